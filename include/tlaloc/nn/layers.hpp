// Layers of tl::nn: each is a small struct of its hyperparameters. init(key) makes its
// Params with PyTorch 1.13's default initialization (the same distributions and
// bounds; the random numbers are tlaloc's own) under PyTorch's names ("weight",
// "bias"); operator()(params, x) applies it. A layer holds no tensors, so a model is
// its hyperparameters plus a Params, and training returns new Params (JAX style).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "tlaloc/export.hpp"
#include "tlaloc/nn/params.hpp"
#include "tlaloc/ops.hpp"
#include "tlaloc/random.hpp"
#include "tlaloc/tensor.hpp"

TLALOC_PUBLIC_BEGIN
namespace tlaloc::nn {

// x @ weight^T + bias. weight [out, in], bias [out], both U(-1/sqrt(in), 1/sqrt(in))
// (torch.nn.Linear: kaiming_uniform with a = sqrt(5) gives that bound for the weight).
struct Linear {
  std::int64_t in_features = 0;
  std::int64_t out_features = 0;
  bool bias = true;

  Params init(random::Key key) const;
  // x: [..., in_features] -> [..., out_features].
  Tensor operator()(const Params& p, const Tensor& x) const;
};

using Activation = std::function<Tensor(const Tensor&)>;

// Linear layers of sizes[0] -> sizes[1] -> ... -> sizes.back(), with `activation`
// between them (not after the last). Names "layers.<i>.weight" and "layers.<i>.bias",
// i counting the Linear layers, as a torch.nn.ModuleList named `layers`.
struct MLP {
  std::vector<std::int64_t> sizes;
  Activation activation = [](const Tensor& x) { return relu(x); };
  bool bias = true;

  std::vector<Linear> linears() const;
  Params init(random::Key key) const;  // one key per Linear, split from `key`
  Tensor operator()(const Params& p, const Tensor& x) const;
};

// A table of num_embeddings rows: "weight" [num_embeddings, embedding_dim] ~ N(0, 1).
struct Embedding {
  std::int64_t num_embeddings = 0;
  std::int64_t embedding_dim = 0;

  Params init(random::Key key) const;
  // Integer indices of any shape -> [..., embedding_dim].
  Tensor operator()(const Params& p, const Tensor& indices) const;
};

// Normalizes over the last normalized_shape.size() axes (mean and biased variance),
// then scales by "weight" (ones) and shifts by "bias" (zeros), as torch.nn.LayerNorm.
struct LayerNorm {
  Shape normalized_shape;
  double eps = 1e-5;
  bool elementwise_affine = true;

  Params init(random::Key key) const;  // deterministic; the key is for uniformity
  Tensor operator()(const Params& p, const Tensor& x) const;
};

// x * rsqrt(mean(x^2) + eps) * "weight" (ones) over the last normalized_shape.size()
// axes. PyTorch 1.13 has no RMSNorm; eps 1e-6 as in LLaMA-style models.
struct RMSNorm {
  Shape normalized_shape;
  double eps = 1e-6;

  Params init(random::Key key) const;  // deterministic; the key is for uniformity
  Tensor operator()(const Params& p, const Tensor& x) const;
};

// ---- the layers' forward functions ----------------------------------------------
// Defined here, so that tlaloc-grad sees their bodies: a model written with these
// layers is differentiated at build time op by op, as when traced.

namespace detail {
// The layers' checks of their inputs (compiled into the library): x ends in
// in_features; a shape ends in normalized_shape, whose axes are returned.
void check_features(const Tensor& x, std::int64_t in_features);
// The number of Linear layers of an MLP of these sizes (at least 2 are needed).
std::size_t check_mlp(const std::vector<std::int64_t>& sizes);
std::vector<std::int64_t> trailing_axes(std::string_view layer, const Shape& normalized_shape,
                                        const Shape& shape);
}  // namespace detail

inline Tensor Linear::operator()(const Params& p, const Tensor& x) const {
  detail::check_features(x, in_features);
  // x's last axis against the weight's second: gemm reads the weight transposed in
  // place, and its gradient comes out in the weight's own layout (no transpose copies).
  const Tensor y = dot_general(x, p.at("weight"), {{}, {}, {x.rank() - 1}, {1}});
  return bias ? y + p.at("bias") : y;
}

// The Linear layers in turn, each reading "layers.<i>", the activation between them.
// Written for tlaloc-grad to inline: each Linear is made in the loop (an aggregate of
// numbers, not linears()'s vector), and the activation is inlined from the lambda the
// MLP was made with (docs/BUILD_TIME_GRADIENTS.md).
inline Tensor MLP::operator()(const Params& p, const Tensor& x) const {
  const std::size_t layers = detail::check_mlp(sizes);
  Tensor h = x;
  for (std::size_t i = 0; i < layers; ++i) {
    const Linear linear{sizes[i], sizes[i + 1], bias};
    h = linear(p.sub("layers." + std::to_string(i)), h);
    if (i + 1 < layers) h = activation(h);
  }
  return h;
}

inline Tensor Embedding::operator()(const Params& p, const Tensor& indices) const {
  return embedding(p.at("weight"), indices);
}

inline Tensor LayerNorm::operator()(const Params& p, const Tensor& x) const {
  const std::vector<std::int64_t> axes = detail::trailing_axes("LayerNorm", normalized_shape, x.shape());
  const Tensor centered = x - mean(x, axes, true);
  const Tensor y = centered * rsqrt(var(x, axes, true) + eps);
  return elementwise_affine ? y * p.at("weight") + p.at("bias") : y;
}

inline Tensor RMSNorm::operator()(const Params& p, const Tensor& x) const {
  const std::vector<std::int64_t> axes = detail::trailing_axes("RMSNorm", normalized_shape, x.shape());
  return x * rsqrt(mean(square(x), axes, true) + eps) * p.at("weight");
}

}  // namespace tlaloc::nn
TLALOC_PUBLIC_END
