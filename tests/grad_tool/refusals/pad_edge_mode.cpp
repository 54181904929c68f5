// expect: 9:20: error: [NOT_DIFFERENTIABLE] tl::pad: mode 'tl::PadMode::edge' has no build-time rule (only PadMode::constant)
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  // Reverse mode through an edge pad sums the border's cotangents: no rule yet.
  return tl::grad([](const tl::Tensor& x) {
    return tl::sum(tl::pad(x, {{1, 1}, {0, 2}}, tl::PadMode::edge) * 2.0);
  })(w);
}
