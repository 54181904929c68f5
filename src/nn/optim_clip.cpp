// Gradient clipping, as torch.nn.utils.clip_grad_norm_ / clip_grad_value_ but
// returning new gradients.
#include <fmt/format.h>

#include <vector>

#include "tlaloc/error.hpp"
#include "tlaloc/nn/optim.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::nn {

std::pair<Params, Tensor> clip_grad_norm(const Params& grads, double max_norm) {
  if (!(max_norm >= 0.0))
    throw ValueError(fmt::format("tl::nn::clip_grad_norm: max_norm must be >= 0, got {}", max_norm));
  if (grads.empty()) return {grads, scalar_tensor(0.0, DType::f32)};
  // PyTorch takes the norm of each tensor, then the norm of those norms; the same
  // order keeps the f32 rounding alike.
  const DType t = grads.entries().front().second.dtype();
  std::vector<Tensor> norms;
  for (const auto& [name, g] : grads) {
    if (!is_floating(g.dtype()))
      throw DTypeError(fmt::format("tl::nn::clip_grad_norm: gradient '{}' is {}, not floating", name,
                                   dtype_name(g.dtype())));
    norms.push_back(sqrt(sum(square(g))).astype(t));
  }
  const Tensor total = sqrt(sum(square(stack(norms))));
  const Tensor coef = minimum(max_norm / (total + 1e-6), 1.0);
  std::vector<Tensor> clipped;
  for (const auto& [name, g] : grads) clipped.push_back(g * coef.astype(g.dtype()));
  return {grads.with_tensors(clipped), total};
}

Params clip_grad_value(const Params& grads, double clip_value) {
  if (!(clip_value >= 0.0))
    throw ValueError(fmt::format("tl::nn::clip_grad_value: clip_value must be >= 0, got {}", clip_value));
  std::vector<Tensor> clipped;
  for (const auto& [name, g] : grads) clipped.push_back(clamp(g, -clip_value, clip_value));
  return grads.with_tensors(clipped);
}

}  // namespace tlaloc::nn
