// expect: 9:20: error: [UNSUPPORTED_CONSTRUCT] the lambda 'scaled' captures scalar 'k' by copy, which the function assigns
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  return tl::grad([](const tl::Tensor& x) {
    double k = 2.0;
    auto scaled = [k](const tl::Tensor& v) { return v * k; };
    k = 3.0;
    return tl::sum(scaled(x) * k);
  })(w);
}
