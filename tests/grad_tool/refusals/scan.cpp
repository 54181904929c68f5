// expect: 9:22: error: [UNSUPPORTED_CONSTRUCT] tl::scan's result used other than as
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w, const tl::Tensor& xs) {
  return tl::grad([&](const tl::Tensor& x) {
    const auto step = [&](const tl::Tensor& c, const tl::Tensor& s) { return std::pair{c * s + x, c}; };
    const auto out = tl::scan(step, x, xs);
    return tl::sum(out.first) + tl::sum(out.second);
  })(w);
}
