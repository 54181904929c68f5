// expect: 8:80: error: [UNSUPPORTED_CONSTRUCT] tl::fori_loop's body captures tensor 'x' by copy
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  return tl::grad([](const tl::Tensor& x) {
    const auto step = [=](const tl::Tensor&, const tl::Tensor& c) { return c * x; };
    return tl::sum(tl::fori_loop(0, 3, step, x));
  })(w);
}
