// expect: 10:20: error: [UNSUPPORTED_CONSTRUCT] tensor 'y' is used before it has a value
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  return tl::grad([](const tl::Tensor& x) {
    tl::Tensor y;
    const tl::Tensor z = x * 2.0;
    return tl::sum(z * y);
  })(w);
}
