// expect: 10:27: error: [UNSUPPORTED_CONSTRUCT] tl::cond's on_true assigns 'scaled', a tensor from outside it
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  return tl::grad([](const tl::Tensor& x) {
    tl::Tensor scaled = x;
    const tl::Tensor picked = tl::cond(
        tl::sum(x) > 0.0, [&] { scaled = x * 2.0; return scaled; }, [&] { return x; });
    return tl::sum(picked + scaled);
  })(w);
}
