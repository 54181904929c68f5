// expect: 8:24: error: [NOT_DIFFERENTIABLE] tl::gelu with 2 arguments has no build-time rule (its rule is for 1)
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  return tl::grad([](const tl::Tensor& x) {
    return tl::sum(x * tl::gelu(x, true));
  })(w);
}
