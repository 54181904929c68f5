// expect: 8:12: error: [UNSUPPORTED_CONSTRUCT] scalar 'k' is assigned after its declaration
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  return tl::grad([](const tl::Tensor& x) {
    double k = 2.0;
    tl::Tensor y = x * k;
    k = 3.0;
    return tl::sum(y * k);
  })(w);
}
