// expect: 8:30: error: [NOT_DIFFERENTIABLE] 'tl::sum(x).item<double>()' (not a tl::Tensor) uses 'x', which depends on the differentiated argument: its derivative would be lost
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  return tl::grad([](const tl::Tensor& x) {
    const double s = tl::sum(x).item<double>();
    return tl::sum(x * s);
  })(w);
}
