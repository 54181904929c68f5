// expect: tl::grad: the function must return a tl::Tensor (a floating-point scalar)
#include <tlaloc/tlaloc.hpp>
namespace tl = tlaloc;
tl::Tensor f(const tl::Tensor& x) {
  return tl::grad([](const tl::Tensor& y) { return tl::sum(y).item<float>(); })(x);
}
