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
tl::Tensor gradient(const tl::Tensor& x0, const tl::Tensor& x1) {
  const tl::Tensor v0 = tl::max(x0, {1}, true);  // reduce_max: f32[2,1]
  const tl::Tensor v1 = tl::stop_gradient(v0);  // stop_gradient: f32[2,1]
  const tl::Tensor v2 = x0 - v1;  // sub: f32[2,3]
  const tl::Tensor v3 = tl::exp(v2);  // exp: f32[2,3]
  const tl::Tensor v4 = tl::sum(v3, {1}, true);  // reduce_sum: f32[2,1]
  const tl::Tensor v5 = tl::reshape(x1, {2, 1});  // reshape: i64[2,1]
  const tl::Tensor c6 = tl::full({2, 1}, -0.5f, tl::DType::f32);  // constant: f32[2,1]
  const tl::Tensor c7 = tl::full({2, 3}, 0.0f, tl::DType::f32);  // constant: f32[2,3]
  const tl::Tensor v8 = tl::scatter_add(c7, v5, c6, 1);  // scatter_add: f32[2,3]
  const tl::Tensor v9 = tl::neg(v8);  // neg: f32[2,3]
  const tl::Tensor v10 = tl::sum(v9, {1}, true);  // reduce_sum: f32[2,1]
  const tl::Tensor v11 = tl::reciprocal(v4);  // reciprocal: f32[2,1]
  const tl::Tensor v12 = v10 * v11;  // mul: f32[2,1]
  const tl::Tensor v13 = tl::broadcast_to(v12, {2, 3});  // broadcast_in_dim: f32[2,3]
  const tl::Tensor v14 = v13 * v3;  // mul: f32[2,3]
  const tl::Tensor v15 = v8 + v14;  // add: f32[2,3]
  return v15;
}
