// Embedding, LayerNorm and RMSNorm (tl::nn).
#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <numeric>

#include "tlaloc/error.hpp"
#include "tlaloc/nn/layers.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::nn {

namespace {

void check_normalized_shape(const char* who, const Shape& s) {
  if (s.empty()) throw ValueError(fmt::format("tl::nn::{}: normalized_shape is empty", who));
  for (std::int64_t d : s)
    if (d <= 0)
      throw ValueError(fmt::format("tl::nn::{}: normalized_shape {} has a size that is not positive", who,
                                   fmt::join(s, "x")));
}

// The last s.size() axes of x, after checking that x ends in s.
Axes trailing_axes(const char* who, const Shape& s, const Tensor& x) {
  const Shape& xs = x.shape();
  const bool fits = xs.size() >= s.size() && std::equal(s.begin(), s.end(), xs.end() - std::ptrdiff_t(s.size()));
  if (!fits)
    throw ShapeError(fmt::format("tl::nn::{}: input of shape {} does not end in normalized_shape {}", who,
                                 fmt::join(xs, "x"), fmt::join(s, "x")));
  std::vector<std::int64_t> axes(s.size());
  std::iota(axes.begin(), axes.end(), std::int64_t(xs.size() - s.size()));
  return Axes(axes);
}

}  // namespace

Params Embedding::init(random::Key key) const {
  if (num_embeddings <= 0 || embedding_dim <= 0)
    throw ValueError(fmt::format("tl::nn::Embedding: sizes must be positive, not {} x {}", num_embeddings,
                                 embedding_dim));
  return Params{{"weight", random::normal(key, {num_embeddings, embedding_dim})}};
}

Tensor Embedding::operator()(const Params& p, const Tensor& indices) const {
  return embedding(p.at("weight"), indices);
}

Params LayerNorm::init(random::Key /*key*/) const {
  check_normalized_shape("LayerNorm", normalized_shape);
  if (!elementwise_affine) return {};
  return Params{{"weight", ones(normalized_shape)}, {"bias", zeros(normalized_shape)}};
}

Tensor LayerNorm::operator()(const Params& p, const Tensor& x) const {
  const Axes axes = trailing_axes("LayerNorm", normalized_shape, x);
  const Tensor centered = x - mean(x, axes, true);
  Tensor y = centered * rsqrt(var(x, axes, true) + eps);
  return elementwise_affine ? y * p.at("weight") + p.at("bias") : y;
}

Params RMSNorm::init(random::Key /*key*/) const {
  check_normalized_shape("RMSNorm", normalized_shape);
  return Params{{"weight", ones(normalized_shape)}};
}

Tensor RMSNorm::operator()(const Params& p, const Tensor& x) const {
  const Axes axes = trailing_axes("RMSNorm", normalized_shape, x);
  return x * rsqrt(mean(square(x), axes, true) + eps) * p.at("weight");
}

}  // namespace tlaloc::nn
