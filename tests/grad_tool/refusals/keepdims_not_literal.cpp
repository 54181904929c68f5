// expect: 9:20: error: [NOT_DIFFERENTIABLE] tl::sum: keepdims 'keep' is not a literal true or false
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  const bool keep = true;
  return tl::grad([&](const tl::Tensor& x) {
    return tl::sum(tl::sum(x, {0}, keep));
  })(w);
}
