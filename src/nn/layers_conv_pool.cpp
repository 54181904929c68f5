// Conv2d (tl::nn): its initialization and its input check; the forward functions of
// Conv2d and the pools are in the header.
#include <fmt/format.h>

#include <cmath>

#include "tlaloc/error.hpp"
#include "tlaloc/nn/layers_conv.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::nn {

namespace {

void check_pair(const char* what, const std::array<std::int64_t, 2>& v, std::int64_t least) {
  if (v[0] < least || v[1] < least)
    throw ValueError(fmt::format("tl::nn::Conv2d: {} must be at least {}, not ({}, {})", what, least, v[0], v[1]));
}

}  // namespace

Params Conv2d::init(random::Key key) const {
  if (in_channels <= 0 || out_channels <= 0)
    throw ValueError(fmt::format("tl::nn::Conv2d: channels must be positive, not {} -> {}", in_channels, out_channels));
  if (groups <= 0 || in_channels % groups != 0 || out_channels % groups != 0)
    throw ValueError(fmt::format("tl::nn::Conv2d: groups = {} must divide in_channels = {} and out_channels = {}",
                                 groups, in_channels, out_channels));
  check_pair("kernel", kernel, 1);
  check_pair("stride", stride, 1);
  check_pair("padding", padding, 0);
  check_pair("dilation", dilation, 1);
  // torch.nn.Conv2d.reset_parameters: kaiming_uniform_(a=sqrt(5)) gives the bound
  // 1/sqrt(fan_in) for the weight, and the bias is drawn with the same bound.
  const std::int64_t fan_in = in_channels / groups * kernel[0] * kernel[1];
  const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
  const std::vector<random::Key> k = random::split(key, 2);
  Params p;
  p.set("weight", random::uniform(k[0], {out_channels, in_channels / groups, kernel[0], kernel[1]}, DType::f32,
                                  -bound, bound));
  if (bias) p.set("bias", random::uniform(k[1], {out_channels}, DType::f32, -bound, bound));
  return p;
}

void detail::check_conv_input(const Tensor& x, std::int64_t in_channels) {
  if (x.rank() != 4 || x.size(1) != in_channels)
    throw ShapeError(fmt::format("tl::nn::Conv2d: input of shape {} is not [N, in_channels = {}, H, W]",
                                 fmt::join(x.shape(), "x"), in_channels));
}

}  // namespace tlaloc::nn
