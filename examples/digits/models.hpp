// The two classifiers: an MLP on the 64 pixels, and a small CNN on the 1 x 8 x 8 image.
#pragma once

#include <functional>
#include <string>

#include <tlaloc/nn.hpp>

#include "data.hpp"

namespace digits {

namespace nn = tl::nn;

struct Model {
  std::string name;         // "mlp", "cnn": labels in the output and the plot
  std::string description;  // the layers, for the log
  // Class scores [B, 10] of images [B, 64].
  std::function<tl::Tensor(const nn::Params&, const tl::Tensor&)> logits;
  nn::Params params;  // initial parameters
};

// 64 -> 128 -> ReLU -> 10.
Model make_mlp(tl::random::Key key);
// Conv 3x3 (1 -> 16) -> ReLU -> max-pool 2 -> conv 3x3 (16 -> 32) -> ReLU -> max-pool 2
// -> linear (32 * 2 * 2 -> 10); the convolutions pad by 1 to keep the size.
Model make_cnn(tl::random::Key key);

}  // namespace digits
