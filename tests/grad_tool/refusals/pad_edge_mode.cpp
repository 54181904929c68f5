// expect: 9:31: error: [NOT_DIFFERENTIABLE] tl::pad in mode 'tl::PadMode::edge' of 'x', which is used after it
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  // The pad's share would be x's last: the engine adds its border's shares one at a time.
  return tl::grad([](const tl::Tensor& x) {
    const tl::Tensor padded = tl::pad(x, {{1, 1}, {0, 2}}, tl::PadMode::edge);
    const tl::Tensor later = tl::sum(x * x);
    return tl::sum(padded * 2.0) + later;
  })(w);
}
