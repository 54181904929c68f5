// A training run stopped after step 10, saved to a checkpoint, loaded by a fresh
// start and finished is bit for bit the run that never stopped: the same losses and
// the same final parameters and optimizer state (the MLP and the small language
// model of tests/support/training_runs.hpp).
#include <gtest/gtest.h>

#include <tlaloc/nn.hpp>
#include <tlaloc/tlaloc.hpp>

#include "support/nn_files.hpp"
#include "support/training_runs.hpp"

namespace {

namespace tl = tlaloc;
namespace nn = tlaloc::nn;

struct Trained {
  nn::Params params;
  nn::OptimizerState state;
  std::vector<float> losses;
};

// Steps [first, last) of the run, from these parameters and state.
Trained train(const nn::TrainStep& step, const tltest::TrainingRun& run, Trained t, std::size_t first,
              std::size_t last) {
  for (std::size_t i = first; i < last; ++i) {
    const nn::StepResult r = step(t.params, t.state, run.batches[i]);
    t.params = r.params, t.state = r.state;
    t.losses.push_back(r.loss.item<float>());
  }
  return t;
}

void expect_resume_is_bit_identical(const tltest::TrainingRun& run) {
  const nn::TrainStep step =
      nn::capture(run.loss, run.params, run.batches.front()).train_step(run.optimizer, run.clipping);
  const Trained start{run.params, step.init(run.params), {}};
  const Trained whole = train(step, run, start, 0, 20);

  const std::filesystem::path file = tltest::fresh_dir("resume_" + run.name) / "step10.safetensors";
  const Trained half = train(step, run, start, 0, 10);
  nn::save_checkpoint(file, half.params, half.state.to_params(), 10, {{"run", run.name}});

  // A fresh start knows only the model's and the optimizer's shapes.
  const nn::Checkpoint c = nn::load_checkpoint(file, run.params, step.init(run.params).to_params());
  EXPECT_EQ(c.step, 10);
  EXPECT_EQ(c.metadata.at("run"), run.name);
  const Trained resumed =
      train(step, run, {c.model, nn::OptimizerState::from_params(c.optimizer_state), half.losses}, 10, 20);

  EXPECT_EQ(resumed.losses, whole.losses);
  tltest::expect_same(resumed.params, whole.params);
  tltest::expect_same(resumed.state.to_params(), whole.state.to_params());
  std::filesystem::remove_all(file.parent_path());
}

TEST(TrainResume, MlpResumedFromACheckpointIsBitIdentical) { expect_resume_is_bit_identical(tltest::mlp_run(20)); }

TEST(TrainResume, LanguageModelResumedFromACheckpointIsBitIdentical) {
  expect_resume_is_bit_identical(tltest::lm_run(20));
}

}  // namespace
