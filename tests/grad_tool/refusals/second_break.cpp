// expect: 13:11: error: [UNSUPPORTED_CONSTRUCT] a second break
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w, int n) {
  return tl::grad([n](const tl::Tensor& x) {
    tl::Tensor y = x;
    for (int j = 0; j < n; ++j) {
      y = tl::sin(y);
      if (j == 3) break;
      y = y * 2.0;
      if (j == 5) break;
    }
    return tl::sum(y);
  })(w);
}
