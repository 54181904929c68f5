// tl::nn::capture: the loss and gradients against the eager loss and central
// differences, one trace per batch shape, the training step against the same step
// taken op by op, the StableHLO text read back and run, and bad input.
#include <gtest/gtest.h>

#include <cmath>

#include <tlaloc/nn.hpp>
#include <tlaloc/tlaloc.hpp>

#include "interp/interpreter.hpp"
#include "stablehlo/stablehlo.hpp"
#include "support/expect_error.hpp"
#include "support/params_check.hpp"
#include "support/training_runs.hpp"

namespace {

namespace tl = tlaloc;
namespace nn = tlaloc::nn;
using tl::Tensor;
using tltest::expect_bit_equal;

const nn::MLP kMlp{.sizes = {4, 8, 3}, .activation = [](const Tensor& x) { return tl::tanh(x); }};

Tensor ce(const Tensor& logits, const Tensor& labels) { return nn::cross_entropy(logits, labels); }

nn::Batch batch(std::int64_t n, std::uint64_t seed) {
  const std::vector<tl::random::Key> k = tl::random::split(tl::random::key(seed), 2);
  return {tl::random::normal(k[0], {n, 4}), tl::random::randint(k[1], {n}, 0, 3)};
}

void expect_params_bit_equal(const nn::Params& a, const nn::Params& b) {
  ASSERT_EQ(a.names(), b.names());
  for (const auto& [name, t] : a) {
    SCOPED_TRACE(name);
    expect_bit_equal(t, b.at(name));
  }
}

TEST(Capture, LossAndGradAreTheEagerLossAndItsDerivative) {
  const nn::Params p = kMlp.init(tl::random::key(1));
  const nn::Batch b = batch(5, 2);
  const nn::Captured c = nn::capture(kMlp, p, b, ce);
  const auto [loss, grads] = c.loss_and_grad(p, b);
  expect_bit_equal(loss, ce(kMlp(p, b.inputs), b.targets));
  expect_bit_equal(c.loss(p, b), loss);
  const Tensor x64 = b.inputs.astype(tl::DType::f64);
  tltest::expect_grad_matches_differences(
      p, grads, [&](const nn::Params& q) { return ce(kMlp(q, x64), b.targets).item<double>(); }, 1e-3);
}

TEST(Capture, TracesOncePerBatchShape) {
  const nn::Params p = kMlp.init(tl::random::key(1));
  const nn::Captured c = nn::capture(kMlp, p, batch(8, 2), ce);
  EXPECT_EQ(c.traces(), 1u);
  (void)c.loss_and_grad(p, batch(8, 3));
  EXPECT_EQ(c.traces(), 1u);
  (void)c.loss_and_grad(p, batch(3, 4));  // a short last batch
  (void)c.loss_and_grad(p, batch(3, 5));
  EXPECT_EQ(c.traces(), 2u);
}

TEST(Capture, TrainStepIsTheStepTakenOpByOp) {
  const nn::Params p = kMlp.init(tl::random::key(3));
  const nn::Batch b = batch(6, 4);
  const nn::Adam adam{.lr = 0.05, .weight_decay = 0.01};
  const nn::Clipping clip{.max_norm = 0.5, .max_value = 0.2};
  const nn::TrainStep step = nn::capture(kMlp, p, b, ce).train_step(adam, clip);
  const nn::OptimizerState s0 = step.init(p);
  const nn::StepResult r = step(p, s0, b);

  // The same step, one public call at a time (eager, except the gradient program).
  const auto [loss, g] = tl::value_and_grad([&](const nn::Params& q) { return ce(kMlp(q, b.inputs), b.targets); })(p);
  const auto [by_norm, norm] = nn::clip_grad_norm(g, clip.max_norm);
  const auto [p1, s1] = adam.update(p, nn::clip_grad_value(by_norm, clip.max_value), s0);
  expect_bit_equal(r.loss, loss);
  expect_bit_equal(r.grad_norm, norm);
  expect_params_bit_equal(r.params, p1);
  expect_params_bit_equal(r.state.slots, s1.slots);
  EXPECT_EQ(r.state.step.item<std::int64_t>(), 1);
  EXPECT_EQ(step.traces(), 1u);
  (void)step(r.params, r.state, batch(6, 5));
  EXPECT_EQ(step.traces(), 1u);
}

TEST(Capture, NamesTheTrainStepsInputsAndOutputsInProgramOrder) {
  const nn::Params p = nn::MLP{.sizes = {4, 3}}.init(tl::random::key(1));
  const nn::TrainStep step = nn::capture(nn::MLP{.sizes = {4, 3}}, p, batch(2, 1), ce).train_step(nn::SGD{.lr = 0.1, .momentum = 0.9});
  const nn::OptimizerState s = step.init(p);
  EXPECT_EQ(step.input_names(s),
            (std::vector<std::string>{"params.layers.0.weight", "params.layers.0.bias",
                                      "optim.momentum_buffer.layers.0.weight", "optim.momentum_buffer.layers.0.bias",
                                      "optim.step", "batch.inputs", "batch.targets"}));
  EXPECT_EQ(step.output_names(s).back(), "loss");
  EXPECT_EQ(step.output_names(s).size(), step.input_names(s).size() - 1);
}

// The text parses back (tlaloc's StableHLO parser and verifier) and the parsed
// program computes what the captured one does.
TEST(Capture, StableHloTextRunsToTheSameResults) {
  const nn::Params p = kMlp.init(tl::random::key(5));
  const nn::Batch b = batch(4, 6);
  const nn::Captured c = nn::capture(kMlp, p, b, ce);
  const tl::interp::Program grads(tl::stablehlo::parse(c.stablehlo()));
  std::vector<Tensor> args = p.tensors();
  args.insert(args.end(), {b.inputs, b.targets});
  const std::vector<Tensor> r = grads.run(args);
  const auto [loss, g] = c.loss_and_grad(p, b);
  ASSERT_EQ(r.size(), 1 + p.size());
  expect_bit_equal(r[0], loss);
  for (std::size_t i = 0; i < p.size(); ++i) expect_bit_equal(r[i + 1], g.tensors()[i]);

  const nn::TrainStep step = c.train_step(nn::AdamW{.lr = 0.01}, {.max_norm = 1.0});
  const nn::OptimizerState s = step.init(p);
  const tl::interp::Program program(tl::stablehlo::parse(step.stablehlo()));
  std::vector<Tensor> in = p.tensors();
  for (const Tensor& t : s.slots.tensors()) in.push_back(t);
  in.insert(in.end(), {s.step, b.inputs, b.targets});
  ASSERT_EQ(in.size(), step.input_names(s).size());
  const std::vector<Tensor> out = program.run(in);
  ASSERT_EQ(out.size(), step.output_names(s).size());
  const nn::StepResult expected = step(p, s, b);
  for (std::size_t i = 0; i < p.size(); ++i) expect_bit_equal(out[i], expected.params.tensors()[i]);
  expect_bit_equal(out[out.size() - 2], expected.loss);
  expect_bit_equal(out.back(), expected.grad_norm);
}

// a and b within `ulps` units of the f32 spacing at b's largest magnitude.
void expect_close_ulps(const Tensor& a, const Tensor& b, float ulps) {
  const std::vector<float> va = a.to_vector<float>(), vb = b.to_vector<float>();
  ASSERT_EQ(va.size(), vb.size());
  float scale = 0.0f;
  for (float v : vb) scale = std::max(scale, std::abs(v));
  const float tol = ulps * (std::nextafter(scale, INFINITY) - scale);
  for (std::size_t i = 0; i < va.size(); ++i) EXPECT_NEAR(va[i], vb[i], tol) << "element " << i;
}

// The small language model (attention, rotary, SwiGLU) as text: its gradient, and
// its whole step with clipping and AdamW. StableHLO has no silu: the text computes
// x * logistic(x), rounding twice where tlaloc's kernel rounds once, so results
// agree to rounding, not bit for bit; the one-ulp differences of the forward pass
// pass through two blocks and back (measured up to 5 ulps of a tensor's scale), and
// the bound is the layer oracle's for attention blocks (16 ulps). AdamW's first step moves each parameter by
// about lr * g / |g|, which magnifies the rounding of the smallest gradients: the
// parameters are held to a thousandth of the step instead.
TEST(Capture, LanguageModelRunsFromItsStableHloText) {
  const tltest::TrainingRun run = tltest::lm_run(1);
  const nn::Batch& b = run.batches.front();
  const nn::Captured c = nn::capture(run.loss, run.params, b);
  std::vector<Tensor> args = run.params.tensors();
  args.insert(args.end(), {b.inputs, b.targets});
  const std::vector<Tensor> r = tl::interp::Program(tl::stablehlo::parse(c.stablehlo())).run(args);
  const auto [loss, g] = c.loss_and_grad(run.params, b);
  ASSERT_EQ(r.size(), 1 + g.size());
  expect_close_ulps(r[0], loss, 16);
  for (std::size_t i = 0; i < g.size(); ++i) expect_close_ulps(r[i + 1], g.tensors()[i], 16);

  const nn::TrainStep step = c.train_step(run.optimizer, run.clipping);
  const nn::OptimizerState s = step.init(run.params);
  std::vector<Tensor> in = run.params.tensors();
  for (const Tensor& t : s.slots.tensors()) in.push_back(t);
  in.insert(in.end(), {s.step, b.inputs, b.targets});
  const std::vector<Tensor> out = tl::interp::Program(tl::stablehlo::parse(step.stablehlo())).run(in);
  const nn::StepResult expected = step(run.params, s, b);
  ASSERT_EQ(out.size(), step.output_names(s).size());
  for (std::size_t i = 0; i < run.params.size(); ++i)
    EXPECT_TRUE(tl::allclose(out[i], expected.params.tensors()[i], 0.0, 3e-3 * 1e-3)) << run.params.names()[i];
  expect_close_ulps(out[out.size() - 2], expected.loss, 16);
}

// grad_source prints the language model's gradient with the parameters' names, and
// a convolution's gradient through tl::lax::conv2d (whose printed programs the
// table compiles and compares bit for bit: cppgen.CppgenTable). (The printed text
// of a classifier is pinned, and compiled, by CppgenGolden.CapturedClassifier.)
TEST(Capture, GradSourcePrintsTheModelsGradients) {
  const tltest::TrainingRun run = tltest::lm_run(1);
  const std::string text = nn::capture(run.loss, run.params, run.batches.front()).grad_source();
  EXPECT_NE(text.find("std::vector<tl::Tensor> loss_and_grad(const tl::Tensor& embed_weight"), std::string::npos);
  EXPECT_NE(text.find("blocks_1_mlp_down_proj_weight"), std::string::npos);
  const nn::Conv2d conv{.in_channels = 1, .out_channels = 2, .kernel = {3, 3}};
  const auto loss = [conv](const nn::Params& p, const nn::Batch& b) { return tl::mean(tl::square(conv(p, b.inputs) - b.targets)); };
  const nn::Captured c = nn::capture(loss, conv.init(tl::random::key(1)), {tl::zeros({1, 1, 5, 5}), tl::zeros({1, 2, 3, 3})});
  const std::string conv_text = c.grad_source();
  EXPECT_NE(conv_text.find("tl::lax::conv2d("), std::string::npos) << conv_text;
}

TEST(Capture, RefusesBadInput) {
  const nn::Params p = kMlp.init(tl::random::key(1));
  const nn::Batch b = batch(3, 1);
  tltest::expect_error<tl::ValueError>([&] { (void)nn::capture(kMlp, p, {b.inputs, Tensor()}, ce); },
                                       "nn::capture", "no targets");
  tltest::expect_error<tl::ValueError>([&] { (void)nn::capture(kMlp, nn::Params{}, b, ce); }, "nn::capture",
                                       "no parameters");
  // The loss is traced at capture: a shape error surfaces there.
  EXPECT_THROW((void)nn::capture(kMlp, p, {tl::zeros({3, 5}), b.targets}, ce), tl::ShapeError);
  const nn::Captured c = nn::capture(kMlp, p, b, ce);
  tltest::expect_error<tl::ValueError>([&] { (void)c.train_step(nn::Adam{}, {.max_norm = -1.0}); },
                                       "nn::Captured::train_step", "max_norm -1");
  const nn::TrainStep step = c.train_step(nn::Adam{});
  tltest::expect_error<tl::ValueError>([&] { (void)step(p, nn::OptimizerState{}, b); }, "nn::TrainStep",
                                       "TrainStep::init");
  // Integer parameters cannot be differentiated.
  nn::Params bad = p;
  bad.set("layers.0.bias", tl::zeros({8}, tl::DType::i32));
  EXPECT_THROW((void)c.loss_and_grad(bad, b), tl::DTypeError);
}

}  // namespace
