// expect: 10:20: error: [SHAPE_MISMATCH] tl::matmul of ?[2,3], f64[4,2] (shapes fixed in this function)
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  return tl::grad([](const tl::Tensor& x) {
    const tl::Tensor rows = tl::reshape(x, {2, 3});
    const tl::Tensor mix = tl::ones({4, 2}, tl::DType::f64);
    return tl::sum(tl::matmul(rows, mix) * 2.0);
  })(w);
}
