// expect: 9:20: error: [NOT_DIFFERENTIABLE] tl::sum: the reduced axes '{axis}' are not integer literals
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  const int axis = 0;
  return tl::grad([&](const tl::Tensor& x) {
    return tl::sum(tl::sum(x, {axis}));
  })(w);
}
