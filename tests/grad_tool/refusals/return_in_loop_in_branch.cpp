// expect: 10:7: error: [UNSUPPORTED_CONSTRUCT] a return inside a loop in a branch, or in a function called in the body
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w, bool deep) {
  return tl::grad([&](const tl::Tensor& x) {
    tl::Tensor y = x;
    if (deep) {
      for (int j = 0; j < 3; ++j) {
        y = tl::sin(y);
        if (j == 1) return tl::sum(y);
      }
    }
    return tl::sum(y * y);
  })(w);
}
