// expect: 8:39: error: [UNSUPPORTED_CONSTRUCT] 'tl::split(x, n, 1)': tlaloc-grad follows a tl::split into a number of parts known at compile time (a constant number of sections, or a braced list of sizes)
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w, int n) {
  return tl::grad([&](const tl::Tensor& x) {
    const std::vector<tl::Tensor> p = tl::split(x, n, 1);
    return tl::sum(p[0]);
  })(w);
}
