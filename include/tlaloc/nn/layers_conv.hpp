// Convolutional-network layers of tl::nn: Conv2d, MaxPool2d, AvgPool2d, Dropout and
// BatchNorm2d, in the style of layers.hpp (hyperparameters in a struct, tensors in
// Params, PyTorch 1.13's names and default initialization). Dropout takes its random
// key and BatchNorm2d its running statistics explicitly: nothing is hidden or mutated.
#pragma once

#include <array>
#include <cstdint>

#include "tlaloc/export.hpp"
#include "tlaloc/nn/params.hpp"
#include "tlaloc/ops.hpp"
#include "tlaloc/random.hpp"
#include "tlaloc/tensor.hpp"

TLALOC_PUBLIC_BEGIN
namespace tlaloc::nn {

// torch.nn.Conv2d. "weight" [out, in/groups, kH, kW] and "bias" [out], both
// U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in = in/groups * kH * kW
// (kaiming_uniform with a = sqrt(5) gives that bound for the weight).
struct Conv2d {
  std::int64_t in_channels = 0;
  std::int64_t out_channels = 0;
  std::array<std::int64_t, 2> kernel{1, 1};
  std::array<std::int64_t, 2> stride{1, 1};
  std::array<std::int64_t, 2> padding{0, 0};
  std::array<std::int64_t, 2> dilation{1, 1};
  std::int64_t groups = 1;
  bool bias = true;

  Params init(random::Key key) const;
  // x: [N, in_channels, H, W] -> [N, out_channels, H', W'].
  Tensor operator()(const Params& p, const Tensor& x) const;
};

// torch.nn.MaxPool2d / AvgPool2d (no parameters; stride 0 means equal to the kernel).
// AvgPool2d counts padding in the divisor, as PyTorch's default count_include_pad.
struct MaxPool2d {
  std::array<std::int64_t, 2> kernel{2, 2};
  std::array<std::int64_t, 2> stride{0, 0};
  std::array<std::int64_t, 2> padding{0, 0};

  Tensor operator()(const Tensor& x) const;
};

struct AvgPool2d {
  std::array<std::int64_t, 2> kernel{2, 2};
  std::array<std::int64_t, 2> stride{0, 0};
  std::array<std::int64_t, 2> padding{0, 0};

  Tensor operator()(const Tensor& x) const;
};

// torch.nn.Dropout: in training, zeroes each element with probability p (drawn from
// `key`, so the same key drops the same elements) and scales the kept ones by
// 1/(1-p); in evaluation (train = false) it is the identity and ignores the key.
struct Dropout {
  double p = 0.5;

  Tensor operator()(const Tensor& x, random::Key key, bool train) const;
};

// torch.nn.BatchNorm2d over [N, C, H, W]. Params: "weight" (ones) and "bias" (zeros),
// [C]. State, a separate Params: "running_mean" (zeros), "running_var" (ones), both
// [C] f32, and "num_batches_tracked" (a 0-d i64), PyTorch's buffer names.
struct BatchNorm2d {
  std::int64_t num_features = 0;
  double eps = 1e-5;
  double momentum = 0.1;
  bool affine = true;

  struct Result {
    Tensor y;
    Params state;  // the new running statistics (train), or the same ones (eval)
  };

  Params init(random::Key key) const;  // deterministic; the key is for uniformity
  Params init_state() const;
  // train: normalizes with the batch's mean and biased variance over N, H, W and
  // returns running = (1 - momentum) * running + momentum * batch statistic (the
  // unbiased variance), num_batches_tracked + 1. eval: uses the running statistics.
  Result operator()(const Params& p, const Params& state, const Tensor& x, bool train) const;
  // The new running statistics after a training step on x (the Result's `state`).
  Params updated_state(const Params& state, const Tensor& x) const;
};

// ---- the forward functions of Conv2d, the pools and Dropout ----------------------
// Defined here, as layers.hpp's are, so that tlaloc-grad sees their bodies.

namespace detail {
// Compiled into the library: Conv2d's check of its input ([N, in_channels, H, W]),
// Dropout's of its probability, and BatchNorm2d's of its input ([N, num_features, H,
// W], with more than one value per channel to train on).
void check_conv_input(const Tensor& x, std::int64_t in_channels);
void check_dropout(double p);
void check_batch_norm_input(const Tensor& x, std::int64_t num_features, bool train);
}  // namespace detail

inline Tensor Conv2d::operator()(const Params& p, const Tensor& x) const {
  detail::check_conv_input(x, in_channels);
  const Tensor y = conv2d(x, p.at("weight"),
                          {.stride = stride, .padding = padding, .dilation = dilation, .groups = groups});
  return bias ? y + reshape(p.at("bias"), {1, out_channels, 1, 1}) : y;
}

inline Tensor MaxPool2d::operator()(const Tensor& x) const {
  return max_pool2d(x, {.kernel = kernel, .stride = stride, .padding = padding});
}

inline Tensor AvgPool2d::operator()(const Tensor& x) const {
  return avg_pool2d(x, {.kernel = kernel, .stride = stride, .padding = padding});
}

inline Tensor Dropout::operator()(const Tensor& x, random::Key key, bool train) const {
  detail::check_dropout(p);
  // One return (a ?: rather than early returns), so that tlaloc-grad may inline it
  // anywhere. p = 1 drops everything (1/(1-p) would be infinite); x * 0 keeps the graph.
  const bool identity = !train || p == 0.0;
  return identity   ? x
         : p == 1.0 ? x * 0.0
                    : where(random::bernoulli(key, 1.0 - p, x.shape()), x * (1.0 / (1.0 - p)), 0.0);
}

// The output is differentiated; the running statistics are not (tlaloc-grad follows
// the Result's tensor only, and a trace of them does not reach the output).
inline BatchNorm2d::Result BatchNorm2d::operator()(const Params& p, const Params& state, const Tensor& x,
                                                   bool train) const {
  detail::check_batch_norm_input(x, num_features, train);
  const Shape per_channel{1, num_features, 1, 1};
  const Axes axes{0, 2, 3};
  Tensor y;
  if (train) {
    y = (x - mean(x, axes, true)) * rsqrt(var(x, axes, true) + eps);
  } else {
    y = (x - reshape(state.at("running_mean"), per_channel)) *
        rsqrt(reshape(state.at("running_var"), per_channel) + eps);
  }
  if (affine) y = y * reshape(p.at("weight"), per_channel) + reshape(p.at("bias"), per_channel);
  return {y, train ? updated_state(state, x) : state};
}

}  // namespace tlaloc::nn
TLALOC_PUBLIC_END
