// Dropout and BatchNorm2d (tl::nn): the two layers whose training and evaluation
// differ, so each takes the mode, and the random key or running state, explicitly.
#include <fmt/format.h>

#include "tlaloc/error.hpp"
#include "tlaloc/nn/layers_conv.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::nn {

void detail::check_dropout(double p) {
  if (!(p >= 0.0 && p <= 1.0))
    throw ValueError(fmt::format("tl::nn::Dropout: p must be in [0, 1], not {}", p));
}

Params BatchNorm2d::init(random::Key /*key*/) const {
  if (num_features <= 0)
    throw ValueError(fmt::format("tl::nn::BatchNorm2d: num_features must be positive, not {}", num_features));
  if (!affine) return {};
  return Params{{"weight", ones({num_features})}, {"bias", zeros({num_features})}};
}

Params BatchNorm2d::init_state() const {
  if (num_features <= 0)
    throw ValueError(fmt::format("tl::nn::BatchNorm2d: num_features must be positive, not {}", num_features));
  return Params{{"running_mean", zeros({num_features})},
                {"running_var", ones({num_features})},
                {"num_batches_tracked", full({}, std::int64_t{0}, DType::i64)}};
}

BatchNorm2d::Result BatchNorm2d::operator()(const Params& p, const Params& state, const Tensor& x, bool train) const {
  if (x.rank() != 4 || x.size(1) != num_features)
    throw ShapeError(fmt::format("tl::nn::BatchNorm2d: input of shape {} is not [N, num_features = {}, H, W]",
                                 fmt::join(x.shape(), "x"), num_features));
  const Shape per_channel{1, num_features, 1, 1};
  const Axes axes{0, 2, 3};
  Tensor y;
  Params new_state = state;
  if (train) {
    const std::int64_t n = x.size(0) * x.size(2) * x.size(3);
    if (n < 2)
      throw ValueError(fmt::format("tl::nn::BatchNorm2d: training needs more than one value per channel, input {}",
                                   fmt::join(x.shape(), "x")));
    const Tensor m = mean(x, axes, true);
    y = (x - m) * rsqrt(var(x, axes, true) + eps);
    // PyTorch updates the running variance with the unbiased (n - 1) batch variance.
    const double keep = 1.0 - momentum;
    new_state.set("running_mean", state.at("running_mean") * keep + reshape(m, {num_features}) * momentum);
    new_state.set("running_var", state.at("running_var") * keep + var(x, axes, false, 1) * momentum);
    new_state.set("num_batches_tracked", state.at("num_batches_tracked") + std::int64_t{1});
  } else {
    y = (x - reshape(state.at("running_mean"), per_channel)) *
        rsqrt(reshape(state.at("running_var"), per_channel) + eps);
  }
  if (affine) y = y * reshape(p.at("weight"), per_channel) + reshape(p.at("bias"), per_channel);
  return {y, new_state};
}

}  // namespace tlaloc::nn
