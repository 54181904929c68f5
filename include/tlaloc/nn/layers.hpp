// Layers of tl::nn: each is a small struct of its hyperparameters. init(key) makes its
// Params with PyTorch 1.13's default initialization (the same distributions and
// bounds; the random numbers are tlaloc's own) under PyTorch's names ("weight",
// "bias"); operator()(params, x) applies it. A layer holds no tensors, so a model is
// its hyperparameters plus a Params, and training returns new Params (JAX style).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "tlaloc/nn/params.hpp"
#include "tlaloc/ops.hpp"
#include "tlaloc/random.hpp"
#include "tlaloc/tensor.hpp"

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

}  // namespace tlaloc::nn
