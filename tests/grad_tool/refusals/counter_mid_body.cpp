// expect: 11:7: error: [UNSUPPORTED_CONSTRUCT] a loop counter changes before the end of the loop body
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  return tl::grad([](const tl::Tensor& x) {
    tl::Tensor y = x;
    int n = 0;
    while (n < 3) {
      n += 1;
      y = y * double(n);
    }
    return tl::sum(y);
  })(w);
}
