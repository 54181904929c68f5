// expect: 8:60: error: [NOT_DIFFERENTIABLE] 'tl::conv_transpose2d(x, x)' has no build-time derivative rule
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  // A rule tlaloc-grad does not have yet (the traced tl::grad has one).
  return tl::grad([](const tl::Tensor& x) { return tl::sum(tl::conv_transpose2d(x, x)); })(w);
}
