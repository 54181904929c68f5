// expect: 13:15: error: [UNSUPPORTED_CONSTRUCT] scalar 'u' is read after the loop at line 11 changed it, inside a branch
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w, bool wide) {
  return tl::grad([wide](const tl::Tensor& x) {
    tl::Tensor y = tl::sin(x);
    if (wide) {
      double u = 1.0;
      for (int j = 0; j < 2; ++j) u = u * 1.5;
      y = tl::sin(y);
      y = y * u;
    }
    return tl::sum(y);
  })(w);
}
