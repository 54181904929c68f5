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
  const tl::Tensor v0 = tl::sum(x0);  // reduce_sum: f32[]
  const tl::Tensor c1 = tl::scalar_tensor(0.0f, tl::DType::f32);  // constant: f32[]
  const tl::Tensor v2 = v0 > c1;  // gt: bool[]
  // if: f32[2,3]
  tl::Tensor v3;
  if (v2.item<bool>()) {
    const tl::Tensor v4 = x0 + x0;  // add: f32[2,3]
    v3 = v4;
  } else {
    const tl::Tensor v5 = tl::cos(x0);  // cos: f32[2,3]
    v3 = v5;
  }
  return v3;
}
