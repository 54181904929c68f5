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

void detail::check_batch_norm_input(const Tensor& x, std::int64_t num_features, bool train) {
  if (x.rank() != 4 || x.size(1) != num_features)
    throw ShapeError(fmt::format("tl::nn::BatchNorm2d: input of shape {} is not [N, num_features = {}, H, W]",
                                 fmt::join(x.shape(), "x"), num_features));
  if (train && x.size(0) * x.size(2) * x.size(3) < 2)
    throw ValueError(
        fmt::format("tl::nn::BatchNorm2d: training needs more than one value per channel, input {}",
                    fmt::join(x.shape(), "x")));
}

Params BatchNorm2d::updated_state(const Params& state, const Tensor& x) const {
  detail::check_batch_norm_input(x, num_features, true);
  const Axes axes{0, 2, 3};
  // PyTorch updates the running variance with the unbiased (n - 1) batch variance.
  const double keep = 1.0 - momentum;
  Params next = state;
  next.set("running_mean",
           state.at("running_mean") * keep + reshape(mean(x, axes), {num_features}) * momentum);
  next.set("running_var", state.at("running_var") * keep + var(x, axes, false, 1) * momentum);
  next.set("num_batches_tracked", state.at("num_batches_tracked") + std::int64_t{1});
  return next;
}

}  // namespace tlaloc::nn
