// expect: 10:7: error: [UNSUPPORTED_CONSTRUCT] a return inside a loop nested in another loop
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  return tl::grad([](const tl::Tensor& x) {
    tl::Tensor y = x;
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) {
        y = tl::sin(y);
        if (j == i) return tl::sum(y);
      }
    }
    return tl::sum(y * y);
  })(w);
}
