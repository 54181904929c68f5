#include <tlaloc/derivatives.hpp>
#include <tlaloc/tlaloc.hpp>

#include <bit>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace tl = tlaloc;

// The gradient of the traced function with respect to x0, as tl::grad computes it.
// Printed by Tlaloc (tl::gradient_source).
tl::Tensor gradient(const tl::Tensor& x0) {
  const tl::Tensor c0 = tl::tensor(std::vector<std::int64_t>{0, 1, 2}, {3});  // constant: i64[3]
  // scan: f32[3], f32[3,3]
  tl::Tensor v1 = x0;
  std::vector<tl::Tensor> ys3(3);
  for (std::int64_t i4 = 0; i4 < 3; ++i4) {
    const tl::Tensor x5 = tl::reshape(tl::slice(c0, 0, i4, i4 + 1), tl::Shape{});
    const tl::Tensor v6 = tl::sin(v1);  // sin: f32[3]
    const tl::Tensor c7 = tl::scalar_tensor(2.0f, tl::DType::f32);  // constant: f32[]
    const tl::Tensor v8 = v6 * c7;  // mul: f32[3]
    ys3[std::size_t(i4)] = v1;
    v1 = v8;
  }
  const tl::Tensor v2 = tl::stack(ys3, 0);
  const tl::Tensor c9 = tl::full({3}, 1.0f, tl::DType::f32);  // constant: f32[3]
  // scan: f32[3]
  tl::Tensor v10 = c9;
  for (std::int64_t i11 = 3 - 1; i11 >= 0; --i11) {
    const tl::Tensor x12 = tl::reshape(tl::slice(v2, 0, i11, i11 + 1), {3});
    const tl::Tensor x13 = tl::reshape(tl::slice(c0, 0, i11, i11 + 1), tl::Shape{});
    const tl::Tensor c14 = tl::scalar_tensor(2.0f, tl::DType::f32);  // constant: f32[]
    const tl::Tensor v15 = v10 * c14;  // mul: f32[3]
    const tl::Tensor v16 = tl::cos(x12);  // cos: f32[3]
    const tl::Tensor v17 = v15 * v16;  // mul: f32[3]
    v10 = v17;
  }
  return v10;
}
