// expect: 9:61: error: [UNSUPPORTED_CONSTRUCT] tl::derivatives::sum_backward takes argument 2 as t.shape() of a tensor t here, got 'shape'
#include <tlaloc/derivatives.hpp>
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w, const tl::Shape& shape) {
  return tl::grad([&](const tl::Tensor& x) {
    return tl::sum(tl::exp(tl::derivatives::sum_backward(x, shape, {1})));
  })(w);
}
