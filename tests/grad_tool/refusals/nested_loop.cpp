// expect: 10:7: error: [UNSUPPORTED_CONSTRUCT] a loop inside a loop or a branch
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  return tl::grad([](const tl::Tensor& x) {
    tl::Tensor y = x;
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 2; ++j) y = tl::sin(y);
    }
    return tl::sum(y);
  })(w);
}
