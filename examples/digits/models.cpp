#include "models.hpp"

namespace digits {

Model make_mlp(tl::random::Key key) {
  const nn::MLP mlp{.sizes = {kPixels, 128, kClasses}};
  return {"mlp", "linear 64->128, relu, linear 128->10",
          [mlp](const nn::Params& p, const tl::Tensor& x) { return mlp(p, x); }, mlp.init(key)};
}

Model make_cnn(tl::random::Key key) {
  const nn::Conv2d conv1{.in_channels = 1, .out_channels = 16, .kernel = {3, 3}, .padding = {1, 1}};
  const nn::Conv2d conv2{.in_channels = 16, .out_channels = 32, .kernel = {3, 3}, .padding = {1, 1}};
  const nn::MaxPool2d pool{};  // 2 x 2, stride 2
  // Two 2 x 2 pools leave 2 x 2 of the 8 x 8 image.
  const nn::Linear head{.in_features = conv2.out_channels * (kSide / 4) * (kSide / 4),
                        .out_features = kClasses};
  const std::vector<tl::random::Key> keys = tl::random::split(key, 3);
  nn::Params params;
  for (const auto& [prefix, p] :
       {std::pair{"conv1", conv1.init(keys[0])}, std::pair{"conv2", conv2.init(keys[1])},
        std::pair{"head", head.init(keys[2])}})
    for (const auto& [name, t] : p.prefixed(prefix)) params.set(name, t);
  auto logits = [=](const nn::Params& p, const tl::Tensor& x) {
    const std::int64_t batch = x.shape()[0];
    tl::Tensor h = tl::reshape(x, {batch, 1, kSide, kSide});
    h = pool(tl::relu(conv1(p.sub("conv1"), h)));  // [B, 16, 4, 4]
    h = pool(tl::relu(conv2(p.sub("conv2"), h)));  // [B, 32, 2, 2]
    return head(p.sub("head"), tl::reshape(h, {batch, -1}));
  };
  return {"cnn", "conv 3x3 1->16, relu, max-pool 2, conv 3x3 16->32, relu, max-pool 2, linear 128->10",
          logits, params};
}

}  // namespace digits
