// expect: 10:60: error: [NOT_DIFFERENTIABLE] 'tl::derivatives::cumprod_jvp(x, x, x, 0)' has no build-time derivative rule
#include <tlaloc/derivatives.hpp>
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  // A rule tlaloc-grad does not have (the traced tl::grad differentiates the function's
  // ops): cumprod's derivative function has no rule of its own.
  return tl::grad([](const tl::Tensor& x) { return tl::sum(tl::derivatives::cumprod_jvp(x, x, x, 0)); })(w);
}
