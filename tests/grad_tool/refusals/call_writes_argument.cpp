// expect: 11:5: error: [UNSUPPORTED_CONSTRUCT] a call of 'clip', which may write its argument 'y'
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

void clip(tl::Tensor& y) { y = tl::minimum(y, 1.0); }

tl::Tensor f(const tl::Tensor& w) {
  return tl::grad([](const tl::Tensor& x) {
    tl::Tensor y = x * x;
    clip(y);
    return tl::sum(y);
  })(w);
}
