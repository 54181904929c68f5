// expect: 13:15: error: [UNSUPPORTED_CONSTRUCT] scalar 'u' is read after the if at line 11 changed it, inside a branch
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w, bool wide, bool deep) {
  return tl::grad([wide, deep](const tl::Tensor& x) {
    tl::Tensor y = tl::sin(x);
    if (wide) {
      double u = 1.0;
      if (deep) u = 2.0;
      y = tl::sin(y);
      y = y * u;
    }
    return tl::sum(y);
  })(w);
}
