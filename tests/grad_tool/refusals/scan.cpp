// expect: 9:23: error: [UNSUPPORTED_CONSTRUCT] tl::scan is not written at build time yet
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w, const tl::Tensor& xs) {
  return tl::grad([&](const tl::Tensor& x) {
    const auto step = [&](const tl::Tensor& c, const tl::Tensor& s) { return std::pair{c * s + x, c}; };
    auto [last, ys] = tl::scan(step, x, xs);
    return tl::sum(last) + tl::sum(ys);
  })(w);
}
