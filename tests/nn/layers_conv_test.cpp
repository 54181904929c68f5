// Convolutional layers of tl::nn (Conv2d, pools, Dropout, BatchNorm2d): names and
// shapes, PyTorch's initialization bounds, apply equal to the same ops written by hand
// (bit for bit), BatchNorm2d's running-statistics update, Dropout's mask, gradients
// against finite differences, and bad input. The match with torch.nn itself is the
// oracle lane's (tests/oracle/layers_conv_cases.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <tlaloc/nn.hpp>
#include <tlaloc/tlaloc.hpp>

#include "support/expect_error.hpp"
#include "support/params_check.hpp"

namespace {

namespace tl = tlaloc;
namespace nn = tlaloc::nn;
using tl::Tensor;

std::vector<float> values(const Tensor& t) { return t.to_vector<float>(); }

using tltest::expect_bit_equal;

TEST(LayersConv, Conv2dHasTorchsNamesShapesAndBound) {
  const nn::Conv2d conv{.in_channels = 8, .out_channels = 12, .kernel = {3, 5}, .groups = 2};
  const nn::Params p = conv.init(tl::random::key(0));
  EXPECT_EQ(p.names(), (std::vector<std::string>{"weight", "bias"}));
  EXPECT_EQ(p.at("weight").shape(), (tl::Shape{12, 4, 3, 5}));
  EXPECT_EQ(p.at("bias").shape(), (tl::Shape{12}));
  const float bound = 1.0f / std::sqrt(4.0f * 3 * 5);  // fan_in = in/groups * kH * kW
  for (const char* name : {"weight", "bias"}) {
    const std::vector<float> v = values(p.at(name));
    EXPECT_GE(*std::min_element(v.begin(), v.end()), -bound) << name;
    EXPECT_LE(*std::max_element(v.begin(), v.end()), bound) << name;
  }
  // 720 uniform draws fill the interval: the extremes lie near the bound.
  const std::vector<float> w = values(p.at("weight"));
  EXPECT_GT(*std::max_element(w.begin(), w.end()), 0.97f * bound);
  EXPECT_LT(*std::min_element(w.begin(), w.end()), -0.97f * bound);
  EXPECT_EQ((nn::Conv2d{.in_channels = 2, .out_channels = 3, .bias = false}.init(tl::random::key(0)).names()),
            (std::vector<std::string>{"weight"}));
}

TEST(LayersConv, BatchNormStartsAsOnesZerosAndTorchsBuffers) {
  const nn::BatchNorm2d bn{.num_features = 3};
  const nn::Params p = bn.init(tl::random::key(0));
  EXPECT_EQ(p.names(), (std::vector<std::string>{"weight", "bias"}));
  EXPECT_EQ(values(p.at("weight")), std::vector<float>(3, 1.0f));
  EXPECT_EQ(values(p.at("bias")), std::vector<float>(3, 0.0f));
  const nn::Params s = bn.init_state();
  EXPECT_EQ(s.names(), (std::vector<std::string>{"running_mean", "running_var", "num_batches_tracked"}));
  EXPECT_EQ(values(s.at("running_mean")), std::vector<float>(3, 0.0f));
  EXPECT_EQ(values(s.at("running_var")), std::vector<float>(3, 1.0f));
  EXPECT_EQ(s.at("num_batches_tracked").dtype(), tl::DType::i64);
  EXPECT_EQ(s.at("num_batches_tracked").shape(), tl::Shape{});
  EXPECT_TRUE((nn::BatchNorm2d{.num_features = 3, .affine = false}.init(tl::random::key(0)).empty()));
}

TEST(LayersConv, ApplyIsTheHandWrittenComputation) {
  const auto keys = tl::random::split(tl::random::key(13), 3);
  const Tensor x = tl::random::normal(keys[0], {2, 4, 9, 8});

  const nn::Conv2d conv{.in_channels = 4, .out_channels = 6, .kernel = {3, 3}, .stride = {2, 1},
                        .padding = {1, 2}, .dilation = {1, 2}, .groups = 2};
  const nn::Params pc = conv.init(keys[1]);
  const Tensor y = conv(pc, x);
  expect_bit_equal(y, tl::conv2d(x, pc.at("weight"), {.stride = {2, 1}, .padding = {1, 2}, .dilation = {1, 2}, .groups = 2}) +
                          tl::reshape(pc.at("bias"), {1, 6, 1, 1}));
  EXPECT_EQ(y.shape(), (tl::Shape{2, 6, 5, 8}));  // (9+2-3)/2+1, (8+4-5)/1+1

  expect_bit_equal(nn::MaxPool2d{.kernel = {3, 2}, .stride = {2, 2}, .padding = {1, 0}}(x),
                   tl::max_pool2d(x, {.kernel = {3, 2}, .stride = {2, 2}, .padding = {1, 0}}));
  expect_bit_equal(nn::AvgPool2d{}(x), tl::avg_pool2d(x, {.kernel = {2, 2}}));
  EXPECT_EQ(nn::AvgPool2d{}(x).shape(), (tl::Shape{2, 4, 4, 4}));

  const nn::BatchNorm2d bn{.num_features = 4};
  const nn::Params pb{{"weight", tl::random::normal(keys[2], {4})}, {"bias", tl::full({4}, 0.5f)}};
  const tl::Axes axes{0, 2, 3};
  const auto c = [](const Tensor& t) { return tl::reshape(t, {1, 4, 1, 1}); };
  const nn::BatchNorm2d::Result train = bn(pb, bn.init_state(), x, true);
  expect_bit_equal(train.y, (x - tl::mean(x, axes, true)) * tl::rsqrt(tl::var(x, axes, true) + 1e-5) * c(pb.at("weight")) +
                                c(pb.at("bias")));
  const nn::BatchNorm2d::Result eval = bn(pb, train.state, x, false);
  expect_bit_equal(eval.y, (x - c(train.state.at("running_mean"))) *
                                   tl::rsqrt(c(train.state.at("running_var")) + 1e-5) * c(pb.at("weight")) +
                               c(pb.at("bias")));
  // Evaluation leaves the state as it was.
  for (const auto& [name, t] : train.state) EXPECT_EQ(values(eval.state.at(name)), values(t)) << name;
}

TEST(LayersConv, BatchNormUpdatesRunningStatisticsAsTorch) {
  const nn::BatchNorm2d bn{.num_features = 2, .momentum = 0.25};
  // Channel 0 holds 1..8, channel 1 holds twice that, over N = 2, H = 2, W = 2.
  std::vector<float> v(16);
  for (std::size_t n = 0; n < 2; ++n)
    for (std::size_t ch = 0; ch < 2; ++ch)
      for (std::size_t i = 0; i < 4; ++i) v[n * 8 + ch * 4 + i] = float((ch + 1) * (n * 4 + i + 1));
  const Tensor x = tl::tensor(v, {2, 2, 2, 2});
  nn::Params state = bn.init_state();
  state.set("running_mean", tl::tensor(std::vector<float>{1.0f, -1.0f}, {2}));
  state.set("running_var", tl::tensor(std::vector<float>{2.0f, 4.0f}, {2}));
  const nn::Params s = bn(bn.init({}), state, x, true).state;
  // Mean of 1..8 is 4.5, unbiased variance 6 (biased 5.25); channel 1: 9 and 24.
  const std::vector<float> rm = values(s.at("running_mean")), rv = values(s.at("running_var"));
  EXPECT_FLOAT_EQ(rm[0], 0.75f * 1.0f + 0.25f * 4.5f);
  EXPECT_FLOAT_EQ(rm[1], 0.75f * -1.0f + 0.25f * 9.0f);
  EXPECT_FLOAT_EQ(rv[0], 0.75f * 2.0f + 0.25f * 6.0f);
  EXPECT_FLOAT_EQ(rv[1], 0.75f * 4.0f + 0.25f * 24.0f);
  EXPECT_EQ(s.at("num_batches_tracked").item<std::int64_t>(), 1);
  EXPECT_EQ(bn(bn.init({}), s, x, true).state.at("num_batches_tracked").item<std::int64_t>(), 2);
  // The input state is a value: applying did not change it.
  EXPECT_EQ(values(state.at("running_mean")), (std::vector<float>{1.0f, -1.0f}));
  EXPECT_EQ(state.at("num_batches_tracked").item<std::int64_t>(), 0);
}

TEST(LayersConv, DropoutIsIdentityInEvalAndScalesKeptElementsInTraining) {
  const nn::Dropout drop{.p = 0.25};
  const Tensor x = tl::random::normal(tl::random::key(1), {64, 64}) + 3.0f;  // no zeros of its own
  const tl::random::Key key = tl::random::key(2);
  expect_bit_equal(drop(x, key, false), x);
  const Tensor y = drop(x, key, true);
  expect_bit_equal(y, drop(x, key, true));  // the same key drops the same elements
  EXPECT_NE(values(y), values(drop(x, tl::random::key(3), true)));
  const std::vector<float> xv = values(x), yv = values(y);
  std::size_t kept = 0;
  for (std::size_t i = 0; i < xv.size(); ++i) {
    if (yv[i] == 0.0f) continue;
    ++kept;
    EXPECT_EQ(yv[i], xv[i] * float(1.0 / 0.75)) << i;
  }
  // 4096 draws keep 3/4: the standard error of the count is about 28.
  EXPECT_NEAR(double(kept), 0.75 * 4096, 150.0);
  expect_bit_equal(y, tl::where(tl::random::bernoulli(key, 0.75, x.shape()), x * (1.0 / 0.75), 0.0));
  expect_bit_equal(nn::Dropout{.p = 0.0}(x, key, true), x);
  EXPECT_EQ(values(nn::Dropout{.p = 1.0}(x, key, true)), std::vector<float>(xv.size(), 0.0f));
}

TEST(LayersConv, GradientThroughConvAndTrainingBatchNormMatchesFiniteDifferences) {
  const nn::Conv2d conv{.in_channels = 2, .out_channels = 3, .kernel = {2, 2}, .padding = {1, 1}};
  const nn::BatchNorm2d bn{.num_features = 3};
  const auto keys = tl::random::split(tl::random::key(31), 3);
  nn::Params p = conv.init(keys[0]).prefixed("conv");
  for (const auto& [name, t] : bn.init(keys[1]).prefixed("bn")) p.set(name, t);
  p.set("bn.weight", tl::tensor(std::vector<float>{1.5f, -0.5f, 0.75f}, {3}));  // not ones
  const Tensor x = tl::random::normal(keys[2], {2, 2, 3, 3});
  const nn::Params state = bn.init_state();
  // Cubing makes the loss depend on the normalized values beyond their (fixed) moments.
  auto loss = [&](const nn::Params& q, const Tensor& in) {
    const Tensor h = bn(q.sub("bn"), state, conv(q.sub("conv"), in), true).y;
    return tl::sum(h * h * h);
  };
  const nn::Params g = tl::grad(loss)(p, x);
  ASSERT_EQ(g.names(), p.names());
  // Central differences in f64, a few elements of each parameter.
  const Tensor x64 = x.astype(tl::DType::f64);
  tltest::expect_grad_matches_differences(p, g, [&](const nn::Params& q) { return loss(q, x64).item<double>(); }, 1e-3);
}

TEST(LayersConv, BadInputNamesTheLayer) {
  const nn::Conv2d conv{.in_channels = 3, .out_channels = 4, .kernel = {3, 3}};
  const nn::Params p = conv.init(tl::random::key(0));
  tltest::expect_error<tl::ShapeError>([&] { conv(p, tl::ones({1, 2, 5, 5})); }, "nn::Conv2d", "1x2x5x5",
                                       "in_channels = 3");
  tltest::expect_error<tl::ValueError>(
      [&] { nn::Conv2d{.in_channels = 3, .out_channels = 4, .groups = 2}.init(tl::random::key(0)); }, "nn::Conv2d",
      "groups = 2");
  tltest::expect_error<tl::ValueError>(
      [&] { nn::Conv2d{.in_channels = 3, .out_channels = 4, .kernel = {0, 3}}.init(tl::random::key(0)); },
      "nn::Conv2d", "kernel");
  tltest::expect_error<tl::ValueError>([&] { nn::Dropout{.p = 1.5}(tl::ones({2}), tl::random::key(0), true); },
                                       "nn::Dropout", "1.5");
  const nn::BatchNorm2d bn{.num_features = 3};
  tltest::expect_error<tl::ShapeError>([&] { bn(bn.init({}), bn.init_state(), tl::ones({2, 4, 2, 2}), true); },
                                       "nn::BatchNorm2d", "2x4x2x2");
  tltest::expect_error<tl::ValueError>([&] { bn(bn.init({}), bn.init_state(), tl::ones({1, 3, 1, 1}), true); },
                                       "nn::BatchNorm2d", "more than one value");
  tltest::expect_error<tl::ValueError>([&] { nn::BatchNorm2d{.num_features = 0}.init_state(); }, "nn::BatchNorm2d");
}

}  // namespace
