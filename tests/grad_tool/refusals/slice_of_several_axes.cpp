// expect: 8:20: error: [NOT_DIFFERENTIABLE] 'tl::slice(x, {0, 0}, {1, 2})' has no build-time derivative rule
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  return tl::grad([](const tl::Tensor& x) {
    return tl::sum(tl::slice(x, {0, 0}, {1, 2}));
  })(w);
}
