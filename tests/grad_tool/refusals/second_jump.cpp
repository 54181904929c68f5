// expect: 12:11: error: [UNSUPPORTED_CONSTRUCT] a second break or continue in a loop body
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w, int n) {
  return tl::grad([n](const tl::Tensor& x) {
    tl::Tensor y = x;
    for (int j = 0; j < n; ++j) {
      y = tl::sin(y);
      if (j == 3) continue;
      if (j == 5) break;
      y = y * 2.0;
    }
    return tl::sum(y);
  })(w);
}
