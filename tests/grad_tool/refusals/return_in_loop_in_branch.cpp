// expect: 13:11: error: [UNSUPPORTED_CONSTRUCT] a return inside a loop in a branch that does not return, or in a function called in the body
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w, bool deep) {
  return tl::grad([&](const tl::Tensor& x) {
    // A tl::cond's branch is a region of its own: a return there leaves only the lambda.
    const tl::Tensor y = tl::cond(
        tl::sum(x) > 0.0,
        [&] {
          tl::Tensor z = x;
          for (int j = 0; j < 3; ++j) {
            z = tl::sin(z);
            if (j == 1 && deep) return z;
          }
          return z * 2.0;
        },
        [&] { return x; });
    return tl::sum(y * y);
  })(w);
}
