// expect: 10:16: error: [UNSUPPORTED_CONSTRUCT] scalar 'k' changes inside a branch
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w, bool sharp) {
  return tl::grad([sharp](const tl::Tensor& x) {
    double k = 2.0;
    tl::Tensor y = x * k;
    if (sharp) k = 3.0;
    return tl::sum(y * k);
  })(w);
}
