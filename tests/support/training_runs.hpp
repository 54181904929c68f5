// Two small training runs, shared by the parity check against PyTorch
// (tests/oracle/train_parity_cases.cpp) and the checkpoint-resume test
// (tests/nn/train_resume_test.cpp): a model, its initial Params, a fixed sequence of
// batches, the loss, and the optimizer with its clipping.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tlaloc/nn.hpp"
#include "tlaloc/tlaloc.hpp"

namespace tltest {

struct TrainingRun {
  std::string name;
  tlaloc::nn::Params params;  // initial
  std::vector<tlaloc::nn::Batch> batches;
  tlaloc::nn::LossOf loss;
  tlaloc::nn::AnyOptimizer optimizer;
  tlaloc::nn::Clipping clipping;
};

// An MLP classifier, cross-entropy, Adam.
inline TrainingRun mlp_run(std::int64_t steps) {
  const tlaloc::nn::MLP mlp{.sizes = {16, 32, 32, 5}};
  const std::vector<tlaloc::random::Key> k = tlaloc::random::split(tlaloc::random::key(61), steps + 1);
  std::vector<tlaloc::nn::Batch> batches;
  for (std::int64_t i = 1; i <= steps; ++i) {
    const std::vector<tlaloc::random::Key> kb = tlaloc::random::split(k[std::size_t(i)], 2);
    batches.push_back({tlaloc::random::normal(kb[0], {8, 16}), tlaloc::random::randint(kb[1], {8}, 0, 5)});
  }
  const auto loss = [mlp](const tlaloc::nn::Params& p, const tlaloc::nn::Batch& b) {
    return tlaloc::nn::cross_entropy(mlp(p, b.inputs), b.targets);
  };
  return {"mlp_adam", mlp.init(k[0]), batches, loss, tlaloc::nn::Adam{.lr = 1e-2}, {}};
}

// The small decoder-only language model: next-token cross-entropy on random token
// sequences, AdamW with clipping by global norm.
inline tlaloc::nn::DecoderLM small_lm() {
  return {.vocab = 24, .d_model = 32, .num_layers = 2, .num_heads = 4, .num_kv_heads = 2, .d_ff = 48};
}

inline TrainingRun lm_run(std::int64_t steps) {
  const tlaloc::nn::DecoderLM lm = small_lm();
  const std::vector<tlaloc::random::Key> k = tlaloc::random::split(tlaloc::random::key(62), steps + 1);
  std::vector<tlaloc::nn::Batch> batches;
  for (std::int64_t i = 1; i <= steps; ++i) {
    const tlaloc::Tensor tokens = tlaloc::random::randint(k[std::size_t(i)], {4, 11}, 0, lm.vocab);
    batches.push_back({tlaloc::slice(tokens, 1, 0, 10), tlaloc::slice(tokens, 1, 1, 11)});
  }
  const auto loss = [lm](const tlaloc::nn::Params& p, const tlaloc::nn::Batch& b) {
    return tlaloc::nn::cross_entropy(tlaloc::reshape(lm(p, b.inputs), {-1, lm.vocab}),
                                     tlaloc::reshape(b.targets, {-1}));
  };
  return {"lm_adamw_clipped", lm.init(k[0]), batches, loss,
          tlaloc::nn::AdamW{.lr = 3e-3, .weight_decay = 0.1}, {.max_norm = 1.0}};
}

}  // namespace tltest
