// Linear and MLP (tl::nn::Linear, tl::nn::MLP).
#include <fmt/format.h>

#include <cmath>
#include <string>

#include "tlaloc/error.hpp"
#include "tlaloc/nn/layers.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::nn {

namespace {

void check_positive(const char* who, const char* what, std::int64_t n) {
  if (n <= 0) throw ValueError(fmt::format("tl::nn::{}: {} must be positive, not {}", who, what, n));
}

}  // namespace

Params Linear::init(random::Key key) const {
  check_positive("Linear", "in_features", in_features);
  check_positive("Linear", "out_features", out_features);
  // torch.nn.Linear.reset_parameters: kaiming_uniform_(a=sqrt(5)) on the weight gives
  // gain sqrt(2 / (1 + 5)) * sqrt(3 / fan_in) = 1/sqrt(fan_in); the bias uses the same.
  const double bound = 1.0 / std::sqrt(static_cast<double>(in_features));
  const std::vector<random::Key> k = random::split(key, 2);
  Params p;
  p.set("weight", random::uniform(k[0], {out_features, in_features}, DType::f32, -bound, bound));
  if (bias) p.set("bias", random::uniform(k[1], {out_features}, DType::f32, -bound, bound));
  return p;
}

void detail::check_features(const Tensor& x, std::int64_t in_features) {
  if (x.rank() < 1 || x.size(-1) != in_features)
    throw ShapeError(fmt::format("tl::nn::Linear: input of shape {} does not end in in_features = {}",
                                 fmt::join(x.shape(), "x"), in_features));
}

std::size_t detail::check_mlp(const std::vector<std::int64_t>& sizes) {
  if (sizes.size() < 2)
    throw ValueError(fmt::format("tl::nn::MLP: needs at least 2 sizes (input and output), got {}", sizes.size()));
  return sizes.size() - 1;
}

std::vector<Linear> MLP::linears() const {
  const std::size_t layers = detail::check_mlp(sizes);
  std::vector<Linear> out;
  for (std::size_t i = 0; i < layers; ++i) out.push_back(Linear{sizes[i], sizes[i + 1], bias});
  return out;
}

Params MLP::init(random::Key key) const {
  const std::vector<Linear> ls = linears();
  const std::vector<random::Key> keys = random::split(key, static_cast<std::int64_t>(ls.size()));
  Params p;
  for (std::size_t i = 0; i < ls.size(); ++i)
    for (const Params::Entry& e : ls[i].init(keys[i]).prefixed(fmt::format("layers.{}", i))) p.set(e.first, e.second);
  return p;
}

}  // namespace tlaloc::nn
