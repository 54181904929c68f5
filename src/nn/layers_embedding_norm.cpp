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

}  // namespace

Params Embedding::init(random::Key key) const {
  if (num_embeddings <= 0 || embedding_dim <= 0)
    throw ValueError(fmt::format("tl::nn::Embedding: sizes must be positive, not {} x {}", num_embeddings,
                                 embedding_dim));
  return Params{{"weight", random::normal(key, {num_embeddings, embedding_dim})}};
}

Params LayerNorm::init(random::Key /*key*/) const {
  check_normalized_shape("LayerNorm", normalized_shape);
  if (!elementwise_affine) return {};
  return Params{{"weight", ones(normalized_shape)}, {"bias", zeros(normalized_shape)}};
}

Params RMSNorm::init(random::Key /*key*/) const {
  check_normalized_shape("RMSNorm", normalized_shape);
  return Params{{"weight", ones(normalized_shape)}};
}

std::vector<std::int64_t> detail::trailing_axes(std::string_view layer, const Shape& normalized_shape,
                                                const Shape& shape) {
  const Shape& s = normalized_shape;
  const bool fits =
      shape.size() >= s.size() && std::equal(s.begin(), s.end(), shape.end() - std::ptrdiff_t(s.size()));
  if (!fits)
    throw ShapeError(fmt::format("tl::nn::{}: input of shape {} does not end in normalized_shape {}", layer,
                                 fmt::join(shape, "x"), fmt::join(s, "x")));
  std::vector<std::int64_t> axes(s.size());
  std::iota(axes.begin(), axes.end(), std::int64_t(shape.size() - s.size()));
  return axes;
}

}  // namespace tlaloc::nn
