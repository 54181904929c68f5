// Optimizers, schedules and clipping: hand-computed steps, frozen parameters, state
// round trips, traced updates equal to eager ones bit for bit, and bad input. The
// match with torch.optim is the oracle lane's (tests/oracle/optim_cases.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numbers>
#include <tlaloc/nn.hpp>
#include <tlaloc/tlaloc.hpp>

#include "support/expect_error.hpp"

namespace {

namespace tl = tlaloc;
namespace nn = tlaloc::nn;
using tl::Tensor;

Tensor f32(const std::vector<float>& v) { return tl::tensor(v); }
std::vector<float> values(const Tensor& t) { return t.to_vector<float>(); }

const nn::Params kParams{{"w", f32({1.0f, -2.0f, 0.5f})}, {"b", f32({0.25f})}};
const nn::Params kGrads{{"w", f32({0.5f, -1.0f, 2.0f})}, {"b", f32({-0.75f})}};

TEST(Optim, SgdWithMomentumStartsItsBufferAtTheFirstGradient) {
  const nn::SGD opt{.lr = 0.5, .momentum = 0.9};
  nn::OptimizerState s = opt.init(kParams);
  EXPECT_EQ(s.slots.names(), (std::vector<std::string>{"momentum_buffer.w", "momentum_buffer.b"}));
  auto [p1, s1] = opt.update(kParams, kGrads, s);
  EXPECT_EQ(values(p1.at("b")), (std::vector<float>{0.25f - 0.5f * -0.75f}));
  auto [p2, s2] = opt.update(p1, kGrads, s1);
  // buf = 0.9 * g + g on the second step.
  EXPECT_FLOAT_EQ(values(p2.at("b"))[0], 0.625f - 0.5f * (0.9f * -0.75f + -0.75f));
  EXPECT_EQ(s2.step.item<std::int64_t>(), 2);
}

TEST(Optim, AdamsFirstStepMovesEachParameterByTheRateAgainstItsGradient) {
  const nn::Adam opt{.lr = 0.1};
  auto [p, s] = opt.update(kParams, kGrads, opt.init(kParams));
  const std::vector<float> w = values(p.at("w"));
  EXPECT_NEAR(w[0], 0.9f, 1e-6);
  EXPECT_NEAR(w[1], -1.9f, 1e-6);
  EXPECT_NEAR(w[2], 0.4f, 1e-6);
  EXPECT_EQ(s.slots.names(),
            (std::vector<std::string>{"exp_avg.w", "exp_avg.b", "exp_avg_sq.w", "exp_avg_sq.b"}));
}

TEST(Optim, AdamWDecaysTheWeightsApartFromTheGradient) {
  const nn::Params zero_grads{{"w", f32({0, 0, 0})}, {"b", f32({0})}};
  const nn::AdamW opt{.lr = 0.1, .weight_decay = 0.5};
  auto [p, s] = opt.update(kParams, zero_grads, opt.init(kParams));
  EXPECT_EQ(values(p.at("w")), (std::vector<float>{0.95f, -1.9f, 0.475f}));
}

TEST(Optim, FrozenParametersStayAndHaveNoState) {
  const nn::RMSprop opt{.momentum = 0.5, .centered = true, .frozen = {"b"}};
  const nn::OptimizerState s = opt.init(kParams);
  EXPECT_EQ(s.slots.names(), (std::vector<std::string>{"square_avg.w", "momentum_buffer.w", "grad_avg.w"}));
  const nn::Params only_w{{"w", kGrads.at("w")}};  // a frozen parameter needs no gradient
  auto [p, s1] = opt.update(kParams, only_w, s);
  EXPECT_EQ(values(p.at("b")), values(kParams.at("b")));
  EXPECT_NE(values(p.at("w")), values(kParams.at("w")));
  EXPECT_EQ(s1.slots.names(), s.slots.names());
}

TEST(Optim, StateRoundTripsThroughParams) {
  const nn::Adam opt{.amsgrad = true};
  auto [p, s] = opt.update(kParams, kGrads, opt.init(kParams));
  const nn::Params flat = s.to_params();
  EXPECT_EQ(flat.names().back(), "step");
  const nn::OptimizerState back = nn::OptimizerState::from_params(flat);
  EXPECT_EQ(back.step.item<std::int64_t>(), 1);
  EXPECT_EQ(back.slots.names(), s.slots.names());
  EXPECT_EQ(values(back.slots.at("max_exp_avg_sq.w")), values(s.slots.at("max_exp_avg_sq.w")));
}

TEST(Schedules, FollowTheirFormulas) {
  const nn::Schedule st = nn::step_lr(1.0, 3, 0.5);
  EXPECT_EQ(st.at(0), 1.0);
  EXPECT_EQ(st.at(2), 1.0);
  EXPECT_EQ(st.at(3), 0.5);
  EXPECT_EQ(st.at(7), 0.25);
  EXPECT_DOUBLE_EQ(nn::exponential_lr(2.0, 0.9).at(3), 2.0 * 0.9 * 0.9 * 0.9);
  const nn::Schedule cos = nn::cosine_lr(1.0, 10, 0.1);
  EXPECT_DOUBLE_EQ(cos.at(0), 1.0);
  EXPECT_DOUBLE_EQ(cos.at(5), 0.55);
  EXPECT_DOUBLE_EQ(cos.at(10), 0.1);
  const nn::Schedule wc = nn::warmup_cosine_lr(1.0, 4, 14);
  EXPECT_DOUBLE_EQ(wc.at(0), 0.0);
  EXPECT_DOUBLE_EQ(wc.at(2), 0.5);
  EXPECT_DOUBLE_EQ(wc.at(4), 1.0);
  EXPECT_DOUBLE_EQ(wc.at(9), 0.5);
  EXPECT_NEAR(wc.at(14), 0.0, 1e-15);
  EXPECT_NEAR(wc.at(30), 0.0, 1e-15);  // stays at eta_min past the end
  EXPECT_EQ(nn::constant_lr(0.25).at(100), 0.25);
}

TEST(Clip, ByGlobalNormScalesEveryGradientAlike) {
  const nn::Params g{{"a", f32({3.0f})}, {"b", f32({0.0f, 4.0f})}};
  auto [clipped, norm] = nn::clip_grad_norm(g, 1.0);
  EXPECT_FLOAT_EQ(norm.item<float>(), 5.0f);
  EXPECT_NEAR(values(clipped.at("a"))[0], 0.6f, 1e-6);
  EXPECT_NEAR(values(clipped.at("b"))[1], 0.8f, 1e-6);
  auto [same, norm2] = nn::clip_grad_norm(g, 10.0);  // under the limit: unchanged
  EXPECT_EQ(values(same.at("b")), values(g.at("b")));
  EXPECT_EQ(values(nn::clip_grad_value(g, 1.0).at("b")), (std::vector<float>{0.0f, 1.0f}));
}

// Bytes of every tensor, to compare traced and eager results exactly.
std::vector<std::vector<char>> bytes(const std::vector<Tensor>& ts) {
  std::vector<std::vector<char>> out;
  for (const Tensor& t : ts) {
    const auto* p = static_cast<const char*>(t.raw_data());
    out.emplace_back(p, p + t.numel() * static_cast<std::int64_t>(tl::itemsize(t.dtype())));
  }
  return out;
}

template <class Opt>
void expect_traced_equals_eager(const Opt& opt) {
  // Clipping then the update, as a function of flat tensors: tl::jit takes Params and
  // gives a vector of tensors (parameters, then the state).
  const auto step = [&opt](const nn::Params& p, const nn::Params& g, const nn::Params& s) {
    auto [np, ns] = opt.update(p, nn::clip_grad_norm(g, 2.0).first, nn::OptimizerState::from_params(s));
    std::vector<Tensor> out = np.tensors();
    for (const Tensor& t : ns.to_params().tensors()) out.push_back(t);
    return out;
  };
  const auto traced = tl::jit(step);
  nn::Params p = kParams;
  nn::Params s = opt.init(p).to_params();
  for (int i = 0; i < 4; ++i) {
    const nn::Params g = kGrads.with_tensors({kGrads.at("w") * float(i + 1), kGrads.at("b") - float(i)});
    const std::vector<Tensor> eager = step(p, g, s), jitted = traced(p, g, s);
    ASSERT_EQ(bytes(eager), bytes(jitted)) << "step " << i;
    p = p.with_tensors({eager[0], eager[1]});
    s = s.with_tensors(std::vector<Tensor>(eager.begin() + 2, eager.end()));
  }
  EXPECT_EQ(traced.traces(), 1u);  // the step count is an input, not a constant
}

TEST(OptimJit, TracedClippingAndUpdatesEqualEagerOnesBitForBit) {
  expect_traced_equals_eager(
      nn::SGD{.lr = nn::step_lr(0.1, 2, 0.5), .momentum = 0.9, .weight_decay = 0.01, .nesterov = true});
  expect_traced_equals_eager(nn::RMSprop{.lr = nn::exponential_lr(0.01, 0.9),
                                         .weight_decay = 0.1,
                                         .momentum = 0.5,
                                         .centered = true,
                                         .frozen = {"b"}});
  expect_traced_equals_eager(nn::Adam{.lr = nn::cosine_lr(0.01, 3), .weight_decay = 0.1, .amsgrad = true});
  expect_traced_equals_eager(nn::AdamW{.lr = nn::warmup_cosine_lr(0.01, 2, 4)});
}

TEST(OptimErrors, NameTheOptimizerAndWhatIsWrong) {
  using tltest::expect_error;
  expect_error<tl::ValueError>([] { (void)nn::SGD{}.init(kParams); }, "nn::SGD", "lr is required");
  expect_error<tl::ValueError>([] { (void)nn::SGD{.lr = 0.1, .nesterov = true}.init(kParams); }, "nn::SGD",
                               "nesterov");
  expect_error<tl::ValueError>([] { (void)nn::Adam{.frozen = {"c"}}.init(kParams); }, "nn::Adam", "'c'");
  const nn::Adam adam;
  const nn::OptimizerState s = adam.init(kParams);
  expect_error<tl::ValueError>(
      [&] {
        (void)adam.update(kParams, nn::Params{{"w", kGrads.at("w")}}, s);
      },
      "nn::Adam::update", "no gradient for parameter 'b'");
  expect_error<tl::ShapeError>(
      [&] {
        (void)adam.update(kParams, kGrads.with_tensors({f32({1, 2}), kGrads.at("b")}), s);
      },
      "nn::Adam::update", "gradient 'w'", "[2]", "[3]");
  expect_error<tl::ValueError>([&] { (void)nn::Adam{.amsgrad = true}.update(kParams, kGrads, s); },
                               "nn::Adam::update", "'max_exp_avg_sq.w'");
  expect_error<tl::ValueError>(
      [] { (void)nn::AdamW{}.update(kParams, kGrads, nn::SGD{.lr = 0.1}.init(kParams)); },
      "nn::AdamW::update", "'exp_avg.w'");
  expect_error<tl::ValueError>([] { (void)nn::OptimizerState::from_params(kParams); },
                               "nn::OptimizerState::from_params", "'step'");
  expect_error<tl::ValueError>([] { (void)nn::step_lr(0.1, 0); }, "nn::step_lr", "step_size");
  expect_error<tl::ValueError>([] { (void)nn::warmup_cosine_lr(0.1, 5, 5); }, "nn::warmup_cosine_lr",
                               "total_steps");
  expect_error<tl::ValueError>([] { (void)nn::clip_grad_norm(kGrads, -1.0); }, "nn::clip_grad_norm",
                               "max_norm");
}

}  // namespace
