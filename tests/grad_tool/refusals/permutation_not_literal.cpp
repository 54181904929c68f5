// expect: 9:20: error: [NOT_DIFFERENTIABLE] tl::transpose: the permutation '{x.rank() - 1, 0}' is not a list of integer literals
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  // The inverse permutation is worked out at build time.
  return tl::grad([](const tl::Tensor& x) {
    return tl::sum(tl::transpose(x, {x.rank() - 1, 0}) * 2.0);
  })(w);
}
