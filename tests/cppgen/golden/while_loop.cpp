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
  // while_stacked: f32[2,3], f32[?,2,3]
  tl::Tensor v0 = x0;
  std::vector<tl::Tensor> history2;
  while (true) {
    const tl::Tensor v3 = v0 * v0;  // mul: f32[2,3]
    const tl::Tensor v4 = tl::sum(v3);  // reduce_sum: f32[]
    const tl::Tensor c5 = tl::scalar_tensor(100.0f, tl::DType::f32);  // constant: f32[]
    const tl::Tensor v6 = v4 < c5;  // lt: bool[]
    if (!v6.item<bool>()) break;
    history2.push_back(v0);
    const tl::Tensor c7 = tl::scalar_tensor(1.5f, tl::DType::f32);  // constant: f32[]
    const tl::Tensor v8 = v0 * c7;  // mul: f32[2,3]
    v0 = v8;
  }
  const tl::Tensor v1 = history2.empty() ? tl::zeros({0, 2, 3}, tl::DType::f32) : tl::stack(history2, 0);
  const tl::Tensor v9 = tl::lax::get_dimension_size(v1, 0);  // get_dimension_size: i32[]
  const tl::Tensor v10 = v9.astype(tl::DType::i64);  // convert: i64[]
  const tl::Tensor c11 = tl::scalar_tensor(1, tl::DType::i64);  // constant: i64[]
  const tl::Tensor v12 = v10 - c11;  // sub: i64[]
  const tl::Tensor c13 = tl::full({2, 3}, 1.0f, tl::DType::f32);  // constant: f32[2,3]
  // while: i64[], f32[2,3]
  tl::Tensor v14 = v12, v15 = c13;
  while (true) {
    const tl::Tensor c16 = tl::scalar_tensor(0, tl::DType::i64);  // constant: i64[]
    const tl::Tensor v17 = v14 >= c16;  // ge: bool[]
    if (!v17.item<bool>()) break;
    const tl::Tensor c18 = tl::scalar_tensor(1.5f, tl::DType::f32);  // constant: f32[]
    const tl::Tensor v19 = v15 * c18;  // mul: f32[2,3]
    const tl::Tensor v20 = v14 - c11;  // sub: i64[]
    v14 = v20;
    v15 = v19;
  }
  return v15;
}
