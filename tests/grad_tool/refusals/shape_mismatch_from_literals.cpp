// expect: 17:24: error: [SHAPE_MISMATCH] tl::matmul of f64[3,2], f64[3,2] (shapes fixed in this function)
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

// Every value below but x has a shape fixed by literals, each through another
// creating function or op; the last matmul's shapes do not fit.
tl::Tensor f(const tl::Tensor& w) {
  return tl::grad([](const tl::Tensor& x) {
    const tl::Tensor id = tl::eye(3, 2, 0, tl::DType::f64);
    const tl::Tensor filled = tl::full_like(id, 2);
    const tl::Tensor none = tl::zeros_like(id, tl::DType::f64);
    const tl::Tensor summed = tl::sum(tl::ones({4, 3, 2}, tl::DType::f64), 0);
    const tl::Tensor grown = tl::broadcast_to(tl::scalar_tensor(1.0, tl::DType::f64), {3, 2});
    const tl::Tensor turned = tl::transpose(tl::full({2, 3}, 0.5, tl::DType::f64));
    const tl::Tensor mixed = tl::reshape(id * filled + none + summed + grown + turned, {3, -1});
    return tl::sum(x * tl::matmul(mixed, mixed));
  })(w);
}
