// Custom derivative rules: they replace the engine's derivative in every mode, fix
// numerically unstable derivatives, and are refused where they cannot apply.
#include <gtest/gtest.h>

#include <cmath>
#include <tlaloc/tlaloc.hpp>

#include "support/expect_error.hpp"
#include "support/lowering.hpp"

namespace {

namespace tl = tlaloc;
using tl::Tensor;

Tensor vec(std::vector<double> v) { return tl::tensor(v); }

// log(sum(exp(x))) written naively: exp overflows for large x.
Tensor naive_lse(const Tensor& x) { return tl::log(tl::sum(tl::exp(x))); }

// The same value computed stably, with the derivative softmax(x) = exp(x - y).
const auto stable_lse = tl::custom_vjp(
    [](const Tensor& x) {
      const Tensor m = tl::stop_gradient(tl::max(x));
      return tl::log(tl::sum(tl::exp(x - m))) + m;
    },
    [](const Tensor& x) {
      const Tensor m = tl::max(x);
      const Tensor y = tl::log(tl::sum(tl::exp(x - m))) + m;
      return std::pair{y, std::vector<Tensor>{x, y}};
    },
    [](const std::vector<Tensor>& res, const Tensor& ct) { return std::vector<Tensor>{ct * tl::exp(res[0] - res[1])}; },
    "stable_lse");

bool all_finite(const Tensor& t) { return tl::all(tl::isfinite(t)).item<bool>(); }

TEST(CustomVjp, FixesTheNaNsOfANaiveLogSumExp) {
  const Tensor x = vec({1000, 1000});
  EXPECT_FALSE(all_finite(tl::grad(naive_lse)(x)));
  const Tensor g = tl::grad([](const Tensor& v) { return stable_lse(v); })(x);
  EXPECT_TRUE(tl::allclose(g, vec({0.5, 0.5}), 1e-12, 0));
  EXPECT_NEAR(stable_lse(x).item<double>(), 1000 + std::log(2.0), 1e-12);
  // (y = 1000 + log 2 carries the rounding of 1000: about 1e-13.)
  // Under jit, and as the inner function of a second derivative (the rule's own ops
  // are differentiated): d2/dx2 lse = diag(s) - s s^T.
  EXPECT_TRUE(tl::allclose(tl::jit(tl::grad([](const Tensor& v) { return stable_lse(v); }))(x), vec({0.5, 0.5}),
                           1e-12, 0));
  const Tensor h = tl::jacfwd(tl::grad([](const Tensor& v) { return stable_lse(v); }))(x);
  EXPECT_TRUE(tl::allclose(h, tl::tensor(std::vector<double>{0.25, -0.25, -0.25, 0.25}, {2, 2}), 1e-12, 0));
}

TEST(CustomVjp, ForwardModeIsRefusedByName) {
  tltest::expect_error_with<tl::NotDifferentiableError>(
      [&] { tl::jvp([](const Tensor& v) { return stable_lse(v); }, vec({1, 2}), vec({1, 0})); },
      {"jvp: op 'custom_rule'", "the custom_vjp function 'stable_lse' has no JVP rule"});
}

TEST(CustomVjp, TheCheckerComparesWithTheEngine) {
  const auto good = tl::check_custom_rule(stable_lse, vec({0.5, -1, 2}));
  EXPECT_TRUE(good.ok) << good.detail;
  EXPECT_LT(good.max_abs_error, 1e-14);
  const auto wrong = tl::custom_vjp([](const Tensor& x) { return tl::sum(x * x); },
                                    [](const Tensor& x) { return std::pair{tl::sum(x * x), std::vector<Tensor>{x}}; },
                                    [](const std::vector<Tensor>& r, const Tensor& ct) { return std::vector<Tensor>{ct * r[0]}; });
  const auto bad = tl::check_custom_rule(wrong, vec({0.5, -1, 2}));
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.detail.find("vjp of argument 0"), std::string::npos) << bad.detail;
}

// log(1 + exp(x)) with the derivative sigmoid(x): linear in the tangent, so it also
// serves reverse mode. In f32 the naive derivative at 100 is inf/inf.
const auto log1pexp = tl::custom_jvp(
    [](const Tensor& x) { return tl::log(1.0 + tl::exp(x)); },
    [](const std::vector<Tensor>& p, const std::vector<Tensor>& t) {
      return std::pair{tl::log(1.0 + tl::exp(p[0])), t[0] * tl::sigmoid(p[0])};
    },
    "log1pexp");

TEST(CustomJvp, ServesForwardAndReverseModeWhenLinear) {
  const Tensor x = tl::tensor(std::vector<float>{100, 0});
  const auto f = [](const Tensor& v) { return tl::sum(log1pexp(v)); };
  EXPECT_FALSE(all_finite(tl::grad([](const Tensor& v) { return tl::sum(tl::log(1.0 + tl::exp(v))); })(x)));
  EXPECT_EQ(tl::grad(f)(x).to_vector<float>(), (std::vector<float>{1, 0.5}));
  auto [y, t] = tl::jvp(f, x, tl::tensor(std::vector<float>{1, 2}));
  EXPECT_EQ(t.item<float>(), 2);
  EXPECT_TRUE(tl::check_custom_rule(log1pexp, vec({0.3, -2})).ok);
}

TEST(CustomJvp, ANonlinearRuleIsRefusedInReverseMode) {
  const auto square_rule = tl::custom_jvp([](const Tensor& x) { return x * x; },
                                          [](const std::vector<Tensor>& p, const std::vector<Tensor>& t) {
                                            return std::pair{p[0] * p[0], t[0] * t[0]};
                                          },
                                          "bad_square");
  tltest::expect_error_with<tl::NotDifferentiableError>(
      [&] { tl::grad([&](const Tensor& v) { return tl::sum(square_rule(v)); })(vec({1, 2})); },
      {"the custom_jvp function 'bad_square' has a JVP rule that is not linear in the tangents (its op 'mul'"});
}

// forward/backward, which generated gradients call: a custom_jvp function's backward
// is its JVP rule transposed, equal bit for bit to the engine's reverse mode.
TEST(CustomJvp, ItsHalvesOnHostTensorsTransposeTheRuleAsTheEngineDoes) {
  const Tensor x = vec({0.3, -2, 5});
  const Tensor ct = vec({1, -0.5, 2});
  const auto [value, residuals] = log1pexp.forward(x);
  EXPECT_EQ(value.to_vector<double>(), tl::log(1.0 + tl::exp(x)).to_vector<double>());
  const std::vector<Tensor> cts = log1pexp.backward(residuals, ct);
  ASSERT_EQ(cts.size(), 1u);
  auto [y, pullback] = tl::vjp([](const Tensor& v) { return log1pexp(v); }, x);
  EXPECT_EQ(cts[0].to_vector<double>(), pullback(ct).at(0).to_vector<double>());
  EXPECT_EQ(cts[0].to_vector<double>(), (ct * tl::sigmoid(x)).to_vector<double>());
  const auto square_rule = tl::custom_jvp([](const Tensor& v) { return v * v; },
                                          [](const std::vector<Tensor>& p, const std::vector<Tensor>& t) {
                                            return std::pair{p[0] * p[0], t[0] * t[0]};
                                          },
                                          "bad_square");
  tltest::expect_error_with<tl::NotDifferentiableError>(
      [&] { square_rule.backward(square_rule.forward(x).second, ct); },
      {"the custom_jvp function 'bad_square' has a JVP rule that is not linear in the tangents (its op 'mul'"});
}

void expect_near(const Tensor& got, const Tensor& want) {
  ASSERT_TRUE(got.defined());
  const auto g = got.to_vector<double>(), w = want.to_vector<double>();
  ASSERT_EQ(g.size(), w.size());
  for (std::size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], w[i], 1e-12 * (1 + std::abs(w[i]))) << i;
}

// forward_jvp/backward_jvp, which generated Hessians call: each half's derivative
// along the tangents given, against the halves' derivatives worked out by hand.
TEST(CustomVjp, ItsHalvesInForwardModeGiveTheirDerivatives) {
  const Tensor x = vec({0.3, -2, 5}), t = vec({1, 0.5, -2}), ct = tl::scalar_tensor(1.5, tl::DType::f64);
  const auto [values, tangents] = stable_lse.forward_jvp({x}, {t});
  const Tensor softmax = tl::exp(x - naive_lse(x));
  expect_near(values.first, naive_lse(x));
  expect_near(tangents.first, tl::sum(softmax * t));
  ASSERT_EQ(tangents.second.size(), 2u);
  expect_near(tangents.second[0], t);
  expect_near(tangents.second[1], tl::sum(softmax * t));
  // bwd = ct * exp(x - y): along (t_x, t_y) and a tangent of ct.
  const Tensor t_ct = tl::scalar_tensor(-0.25, tl::DType::f64);
  const auto [cts, t_cts] = stable_lse.backward_jvp(values.second, tangents.second, ct, t_ct);
  expect_near(cts.at(0), ct * softmax);
  expect_near(t_cts.at(0), t_ct * softmax + ct * softmax * (t - tl::sum(softmax * t)));
  // No tangent of the cotangent; then none at all: the values alone.
  expect_near(stable_lse.backward_jvp(values.second, tangents.second, ct, Tensor()).second.at(0),
              ct * softmax * (t - tl::sum(softmax * t)));
  const auto [still, none] = stable_lse.backward_jvp(values.second, {Tensor(), Tensor()}, ct, Tensor());
  expect_near(still.at(0), ct * softmax);
  EXPECT_FALSE(none.at(0).defined());
  const std::vector<Tensor> residuals = values.second;  // Clang 14 does not capture structured bindings
  tltest::expect_error_with<tl::ValueError>([&] { stable_lse.backward_jvp(residuals, {t}, ct, t_ct); },
                                            {"'stable_lse': 2 residuals but 1 tangents"});
  tltest::expect_error_with<tl::ValueError>([&] { stable_lse.forward_jvp({x}, {}); },
                                            {"'stable_lse': 1 arguments but 0 tangents"});
}

// A custom_jvp function: its forward half is the primal where no tangent moves, and
// its backward half (the transposed rule, ct * sigmoid(x)) moves with x and ct.
TEST(CustomJvp, ItsHalvesInForwardModeGiveTheirDerivatives) {
  const Tensor x = vec({0.3, -2, 5}), t = vec({1, 0.5, -2}), ct = vec({1, -0.5, 2}), t_ct = vec({0.5, 1, 1});
  const auto [still, none] = log1pexp.forward_jvp({x}, {Tensor()});
  expect_near(still.first, tl::log(1.0 + tl::exp(x)));
  EXPECT_FALSE(none.first.defined());
  const auto [values, tangents] = log1pexp.forward_jvp({x}, {t});
  expect_near(tangents.first, t * tl::sigmoid(x));
  expect_near(tangents.second.at(0), t);
  const auto [cts, t_cts] = log1pexp.backward_jvp(values.second, tangents.second, ct, t_ct);
  const Tensor s = tl::sigmoid(x);
  expect_near(cts.at(0), ct * s);
  expect_near(t_cts.at(0), t_ct * s + ct * s * (1.0 - s) * t);
}

TEST(CustomRule, LowersToItsPrimalAndScanToAWhileLoop) {
  tltest::expect_round_trip(
      [](std::span<const Tensor> a) {
        auto [c, ys] = tl::scan([](const Tensor& acc, const Tensor& x) { return std::pair{acc + x, stable_lse(acc * x)}; },
                                tl::zeros({2}, tl::DType::f32), a[0]);
        return std::vector<Tensor>{c, ys};
      },
      {tl::tensor(std::vector<float>{1, 2, 3, 4, 5, 6}, {3, 2})}, "stablehlo.while");
}

}  // namespace
