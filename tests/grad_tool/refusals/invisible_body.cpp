// expect: 10:20: error: [NOT_DIFFERENTIABLE] 'opaque' has no visible body
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor opaque(const tl::Tensor& x);

tl::Tensor f(const tl::Tensor& w) {
  return tl::grad([](const tl::Tensor& x) {
    return tl::sum(opaque(x));
  })(w);
}
