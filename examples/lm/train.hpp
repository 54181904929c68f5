// Next-byte training of the language model: the whole step (forward, gradient,
// clipping, AdamW) is one captured program (tl::nn::capture, docs/TRAINING.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "text.hpp"

namespace lm {

struct TrainOptions {
  std::int64_t steps = 300;
  std::int64_t batch = 16;
  std::int64_t seq = 64;
  double learning_rate = 3e-3;
  int print_every = 25;  // steps between the printed losses
  std::uint32_t seed = 0;
};

struct Trained {
  nn::Params params;
  nn::Params optimizer_state = {};  // AdamW's, for the checkpoint
  std::vector<double> losses = {};  // each step's, on its batch before the update
  double seconds = 0.0;
};

Trained train(const nn::DecoderLM& model, const std::string& text, const TrainOptions& options);

// The mean of the last `n` losses (fewer when there are fewer).
double final_loss(const Trained& t, std::size_t n = 10);

}  // namespace lm
