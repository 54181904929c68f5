#include <tlaloc/derivatives.hpp>
#include <tlaloc/tlaloc.hpp>

#include <bit>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace tl = tlaloc;

// {f(x...), the derivative of f at x... along the tangents t...}, as tl::jvp computes it.
// Printed by Tlaloc (tl::jvp_source).
std::vector<tl::Tensor> jvp(const tl::Tensor& x0, const tl::Tensor& t0) {
  const tl::Tensor v0 = tl::exp(x0);  // exp: f32[3]
  const tl::Tensor v1 = t0 * v0;  // mul: f32[3]
  const tl::Tensor v2 = v0 * x0;  // mul: f32[3]
  const tl::Tensor v3 = v1 * x0;  // mul: f32[3]
  const tl::Tensor v4 = v3 + v1;  // add: f32[3]
  const tl::Tensor v5 = tl::sum(v2);  // reduce_sum: f32[]
  const tl::Tensor v6 = tl::sum(v4);  // reduce_sum: f32[]
  return {v5, v6};
}
