// expect: 12:7: error: [UNSUPPORTED_CONSTRUCT] scalar 'k' changes after a break or continue, or in an if that returns
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  return tl::grad([](const tl::Tensor& x) {
    double k = 2.0;
    tl::Tensor y = x;
    for (int i = 0; i < 3; ++i) {
      if (i == 1) continue;
      k = k * 0.5;
      y = y * k;
    }
    return tl::sum(y);
  })(w);
}
