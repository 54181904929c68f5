#include <tlaloc/derivatives.hpp>
#include <tlaloc/tlaloc.hpp>

#include <bit>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace tl = tlaloc;

// The Hessian of the traced function with respect to x0, applied to v.
// Printed by Tlaloc (tl::hessian_source).
tl::Tensor hessian_vector_product(const tl::Tensor& x0, const tl::Tensor& v) {
  const tl::Tensor v0 = tl::exp(x0);  // exp: f32[3]
  const tl::Tensor v1 = v * v0;  // mul: f32[3]
  const tl::Tensor v2 = v1 * x0;  // mul: f32[3]
  const tl::Tensor v3 = v1 + v2;  // add: f32[3]
  const tl::Tensor v4 = v1 + v3;  // add: f32[3]
  return v4;
}
