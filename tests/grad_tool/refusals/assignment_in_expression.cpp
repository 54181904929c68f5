// expect: 10:23: error: [UNSUPPORTED_CONSTRUCT] scalar 'k' assigned inside an expression
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  return tl::grad([](const tl::Tensor& x) {
    double k = 2.0;
    tl::Tensor y = x * k;
    y = tl::sin(y) * (k *= 2.0);
    return tl::sum(y * k);
  })(w);
}
