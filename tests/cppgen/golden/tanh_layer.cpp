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
  const tl::Tensor v0 = tl::dot_general(x0, x1, tl::DotDims{.lhs_batch = {}, .rhs_batch = {}, .lhs_contract = {1}, .rhs_contract = {0}});  // dot_general: f32[2,2]
  const tl::Tensor v1 = tl::tanh(v0);  // tanh: f32[2,2]
  const tl::Tensor v2 = v1 * v1;  // mul: f32[2,2]
  const tl::Tensor c3 = tl::scalar_tensor(1.0f, tl::DType::f32);  // constant: f32[]
  const tl::Tensor v4 = c3 - v2;  // sub: f32[2,2]
  const tl::Tensor v5 = tl::dot_general(v4, x1, tl::DotDims{.lhs_batch = {}, .rhs_batch = {}, .lhs_contract = {1}, .rhs_contract = {1}});  // dot_general: f32[2,3]
  return v5;
}
