// expect: 10:7: error: [UNSUPPORTED_CONSTRUCT] a lambda changes scalar 'k', declared outside it
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  return tl::grad([](const tl::Tensor& x) {
    double k = 2.0;
    auto bump = [&](const tl::Tensor& v) {
      k += 1.0;
      return v * k;
    };
    return tl::sum(bump(x) * k);
  })(w);
}
