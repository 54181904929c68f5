// expect: 11:13: error: [UNSUPPORTED_CONSTRUCT] a break inside a branch of a loop body
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w, int n) {
  return tl::grad([n](const tl::Tensor& x) {
    tl::Tensor y = x;
    for (int j = 0; j < n; ++j) {
      if (j > 1) {
        if (j == 3) break;
        y = y * 2.0;
      }
      y = tl::sin(y);
    }
    return tl::sum(y);
  })(w);
}
