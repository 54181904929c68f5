// expect: 8:32: error: [NOT_DIFFERENTIABLE] '{x, x * 2.0}' (not a tl::Tensor) uses 'x', which depends on the differentiated argument: its derivative would be lost
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  return tl::grad([](const tl::Tensor& x) {
    return tl::sum(tl::concat({x, x * 2.0}, 0));
  })(w);
}
