// expect: 7:10: error: [UNSUPPORTED_CONSTRUCT] tl::hessian of a function with a loop inside a loop (line 10): tlaloc-grad writes the Hessians of functions without these
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  return tl::hessian([](const tl::Tensor& x) {
    tl::Tensor s = x;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 2; ++j) s = tl::sin(s) * x;
    return tl::sum(s);
  })(w);
}
