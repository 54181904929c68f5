// expect: 10:7: error: [UNSUPPORTED_CONSTRUCT] a loop inside a branch
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w, bool twice) {
  return tl::grad([twice](const tl::Tensor& x) {
    tl::Tensor y = x;
    if (twice) {
      for (int j = 0; j < 2; ++j) y = tl::sin(y);
    }
    return tl::sum(y);
  })(w);
}
