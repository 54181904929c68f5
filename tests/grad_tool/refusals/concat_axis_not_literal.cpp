// expect: 9:20: error: [NOT_DIFFERENTIABLE] tl::concat: the axis 'axis' is not an integer literal
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  const int axis = int(w.rank()) - 1;
  return tl::grad([&](const tl::Tensor& x) {
    return tl::sum(tl::concat({x, x * x}, axis));
  })(w);
}
