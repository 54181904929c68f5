// expect: 9:24: error: [SHAPE_MISMATCH] tl::broadcast_to of f64[3] (shapes fixed in this function)
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  return tl::grad([](const tl::Tensor& x) {
    const tl::Tensor row = tl::ones({3}, tl::DType::f64);
    return tl::sum(x * tl::broadcast_to(row, {2, 2}));
  })(w);
}
