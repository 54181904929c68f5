// expect: 10:11: error: [UNSUPPORTED_CONSTRUCT] an early return in tl::scan's function
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w, const tl::Tensor& xs) {
  return tl::grad([&](const tl::Tensor& x) {
    auto [last, ys] = tl::scan(
        [&](const tl::Tensor& c, const tl::Tensor& s) {
          if (xs.numel() > 4) return std::pair{c, s};
          return std::pair{c * s + x, c};
        },
        x, xs);
    return tl::sum(last) + tl::sum(ys);
  })(w);
}
