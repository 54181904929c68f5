#include "train.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace lm {

Trained train(const nn::DecoderLM& model, const std::string& text, const TrainOptions& o) {
  const tl::random::Key root = tl::random::fold_in(tl::random::key(0), o.seed);
  const std::vector<tl::random::Key> keys = tl::random::split(root, 2);
  const auto loss = [model](const nn::Params& p, const nn::Batch& b) {
    return nn::cross_entropy(tl::reshape(model(p, b.inputs), {-1, model.vocab}),
                             tl::reshape(b.targets, {-1}));
  };
  Trained t{.params = model.init(keys[0])};
  const nn::Captured captured = nn::capture(loss, t.params, sample_batch(text, o.batch, o.seq, keys[1]));
  const nn::TrainStep step =
      captured.train_step(nn::AdamW{.lr = o.learning_rate, .weight_decay = 0.1}, {.max_norm = 1.0});
  nn::OptimizerState state = step.init(t.params);
  const auto start = std::chrono::steady_clock::now();
  for (std::int64_t s = 1; s <= o.steps; ++s) {
    const nn::Batch b =
        sample_batch(text, o.batch, o.seq, tl::random::fold_in(keys[1], static_cast<std::uint32_t>(s)));
    nn::StepResult r = step(t.params, state, b);
    t.params = std::move(r.params);
    state = std::move(r.state);
    t.losses.push_back(r.loss.item<float>());
    if (s % o.print_every == 0 || s == 1 || s == o.steps) {
      std::printf("step %4lld  loss %.4f\n", static_cast<long long>(s), t.losses.back());
      std::fflush(stdout);
    }
  }
  t.optimizer_state = state.to_params();
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return t;
}

double final_loss(const Trained& t, std::size_t n) {
  const std::size_t k = std::min(n, t.losses.size());
  double sum = 0.0;
  for (std::size_t i = t.losses.size() - k; i < t.losses.size(); ++i) sum += t.losses[i];
  return k == 0 ? 0.0 : sum / static_cast<double>(k);
}

}  // namespace lm
