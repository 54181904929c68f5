// expect: 13:52: error: [UNSUPPORTED_CONSTRUCT] the default argument of 'k' in 'scaled' is not a constant: pass it at the call
#include <tlaloc/tlaloc.hpp>

#include <cmath>

namespace tl = tlaloc;

double stiffness() { return std::sqrt(2.0); }

tl::Tensor scaled(const tl::Tensor& x, double k = stiffness()) { return tl::sum(x * x) * k; }

tl::Tensor f(const tl::Tensor& w) {
  return tl::grad([](const tl::Tensor& x) { return scaled(x); })(w);
}
