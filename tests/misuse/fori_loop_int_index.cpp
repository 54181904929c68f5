// expect: tl::fori_loop: the body is called as body(i, carry), i a tl::Tensor
#include <tlaloc/tlaloc.hpp>
namespace tl = tlaloc;
tl::Tensor f(const tl::Tensor& x) {
  return tl::fori_loop(
      0, 3, [](int i, const tl::Tensor& c) { return c * double(i); }, x);
}
