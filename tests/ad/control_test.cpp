// Derivatives through structured control flow: cond, while_loop, fori_loop, scan.
#include <gtest/gtest.h>

#include <cmath>

#include <tlaloc/tlaloc.hpp>

#include "ir/builder.hpp"
#include "stablehlo/stablehlo.hpp"
#include "support/expect_error.hpp"

namespace {

namespace tl = tlaloc;
using tl::Tensor;

Tensor vec(std::vector<double> v) { return tl::tensor(v); }

// d f / d x by central differences, f scalar.
template <class F>
Tensor numeric_grad(const F& f, const Tensor& x, double h = 1e-6) {
  std::vector<double> g(std::size_t(x.numel()));
  for (std::int64_t i = 0; i < x.numel(); ++i) {
    const Tensor e = tl::reshape(tl::one_hot(tl::scalar_tensor(i, tl::DType::i64), x.numel(), tl::DType::f64), x.shape());
    g[std::size_t(i)] = (f(x + h * e).template item<double>() - f(x - h * e).template item<double>()) / (2 * h);
  }
  return tl::tensor(g, x.shape());
}

void expect_close(const Tensor& a, const Tensor& b, double tol = 1e-6) {
  ASSERT_EQ(a.shape(), b.shape());
  const auto x = a.to_vector<double>(), y = b.to_vector<double>();
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(x[i], y[i], tol * (1 + std::abs(y[i]))) << "element " << i;
}

// A branch on data: x^2 summed where positive, sin otherwise.
Tensor branchy(const Tensor& x) {
  return tl::cond(
      tl::sum(x) > 0, [&] { return tl::sum(x * x); }, [&] { return tl::sum(tl::sin(x)); });
}

TEST(Cond, RunsEagerlyAndDifferentiatesBothBranches) {
  EXPECT_DOUBLE_EQ(branchy(vec({1, 2})).item<double>(), 5);
  expect_close(tl::grad(branchy)(vec({1, 2})), vec({2, 4}));
  expect_close(tl::grad(branchy)(vec({-1, -2})), tl::cos(vec({-1, -2})));
  auto [y, t] = tl::jvp(branchy, vec({-1, -2}), vec({1, 0}));
  EXPECT_NEAR(t.item<double>(), std::cos(-1.0), 1e-15);
}

TEST(Cond, IsRecordedAsOneIfOpUnderJit) {
  const auto f = tl::jit(branchy);
  EXPECT_DOUBLE_EQ(f(vec({1, 2})).item<double>(), 5);
  EXPECT_DOUBLE_EQ(f(vec({-1, -2})).item<double>(), std::sin(-1.0) + std::sin(-2.0));
  EXPECT_EQ(f.traces(), 1u);
}

TEST(Cond, BranchesOfDifferentTypesAreRefused) {
  const auto f = [](const Tensor& x) {
    return tl::cond(
        tl::sum(x) > 0, [&] { return x; }, [&] { return tl::sum(x); });
  };
  tltest::expect_error_with<tl::ShapeError>([&] { tl::jit(f)(vec({1, 2})); },
                                            {"tl::cond: the false branch returns (f64[]) where (f64[2]) was expected"});
}

// A damped spring, explicit Euler, 40 steps: the state is {position, velocity}.
std::vector<Tensor> spring_step(const std::vector<Tensor>& s, const Tensor& k) {
  const double dt = 0.05;
  const Tensor acc = -k * s[0] - 0.1 * s[1];
  return {s[0] + dt * s[1], s[1] + dt * acc};
}

std::vector<Tensor> start() { return {tl::scalar_tensor(1.0, tl::DType::f64), tl::scalar_tensor(0.0, tl::DType::f64)}; }

Tensor final_position_fori(const Tensor& k) {
  const auto s = tl::fori_loop(0, 40, [&](const Tensor&, const std::vector<Tensor>& c) { return spring_step(c, k); },
                               start());
  return s[0];
}

Tensor final_position_unrolled(const Tensor& k) {
  std::vector<Tensor> s = start();
  for (int i = 0; i < 40; ++i) s = spring_step(s, k);
  return s[0];
}

TEST(ForiLoop, IntegratorGradientMatchesTheUnrolledLoopAndDifferences) {
  const Tensor k = tl::scalar_tensor(2.0, tl::DType::f64);
  const Tensor g_loop = tl::grad(final_position_fori)(k);
  const Tensor g_unrolled = tl::grad(final_position_unrolled)(k);
  EXPECT_NEAR(g_loop.item<double>(), g_unrolled.item<double>(), 1e-12);
  EXPECT_NEAR(g_loop.item<double>(), numeric_grad(final_position_fori, k).item<double>(), 1e-6);
  auto [y, t] = tl::jvp(final_position_fori, k, tl::scalar_tensor(1.0, tl::DType::f64));
  EXPECT_NEAR(t.item<double>(), g_loop.item<double>(), 1e-12);
}

TEST(ForiLoop, SecondOrderThroughTheLoop) {
  const Tensor k = tl::scalar_tensor(2.0, tl::DType::f64);
  const auto g = [](const Tensor& kk) { return tl::grad(final_position_fori)(kk); };
  const Tensor h = tl::grad(g)(k);
  EXPECT_NEAR(h.item<double>(), numeric_grad(g, k, 1e-4).item<double>(), 1e-6);
}

TEST(ForiLoop, UsesTheIndex) {
  const auto f = [](const Tensor& x) {
    return tl::sum(tl::fori_loop(0, 5, [&](const Tensor& i, const Tensor& c) { return c + x * i.astype(tl::DType::f64); }, x));
  };
  EXPECT_DOUBLE_EQ(f(vec({1})).item<double>(), 11);
  EXPECT_DOUBLE_EQ(tl::jit(f)(vec({1})).item<double>(), 11);
  EXPECT_DOUBLE_EQ(tl::grad(f)(vec({1})).to_vector<double>()[0], 11);
}

TEST(Scan, CumulativeProductAndItsGradient) {
  const auto f = [](const Tensor& xs) {
    auto [carry, ys] = tl::scan([](const Tensor& c, const Tensor& x) {
      const Tensor next = c * x;
      return std::pair{next, tl::sin(next)};
    }, tl::scalar_tensor(1.0, tl::DType::f64), xs);
    return tl::sum(ys) + carry;
  };
  const Tensor xs = vec({0.5, 1.5, -0.7, 1.2});
  const Tensor direct = tl::sum(tl::sin(tl::cumprod(xs, 0))) + tl::prod(xs);
  EXPECT_NEAR(f(xs).item<double>(), direct.item<double>(), 1e-15);
  EXPECT_NEAR(tl::jit(f)(xs).item<double>(), direct.item<double>(), 1e-15);
  expect_close(tl::grad(f)(xs), numeric_grad(f, xs));
  const Tensor v = vec({1, -1, 0.5, 2});
  auto [y, t] = tl::jvp(f, xs, v);
  EXPECT_NEAR(t.item<double>(), tl::sum(numeric_grad(f, xs) * v).item<double>(), 1e-6);
}

TEST(Scan, ReverseRunsTheSequenceBackward) {
  const auto f = [](const Tensor& xs) {
    auto [c, ys] = tl::scan([](const Tensor& acc, const Tensor& x) { return std::pair{acc * 2.0 + x, acc}; },
                            tl::scalar_tensor(0.0, tl::DType::f64), xs, true);
    return tl::sum(ys * vec({1, 10, 100})) + c;
  };
  // Reverse order: acc goes 0 -> x2 -> 2 x2 + x1 -> 4 x2 + 2 x1 + x0.
  const Tensor xs = vec({1, 2, 3});
  EXPECT_DOUBLE_EQ(f(xs).item<double>(), 8 * 1 + 0 + 10 * 3 + (4 * 3 + 2 * 2 + 1));
  expect_close(tl::grad(f)(xs), numeric_grad(f, xs));
  expect_close(tl::grad(tl::jit(f))(xs), numeric_grad(f, xs));
}

TEST(WhileLoop, ForwardModeThroughADataDependentLoop) {
  // Doubles x until its sum passes 10: the derivative is the number of doublings.
  const auto f = [](const Tensor& x) {
    return tl::sum(tl::while_loop([](const Tensor& v) { return tl::sum(v) < 10.0; },
                                  [](const Tensor& v) { return v * 2.0; }, x));
  };
  EXPECT_DOUBLE_EQ(f(vec({1, 2})).item<double>(), 12);
  auto [y, t] = tl::jvp(f, vec({1, 2}), vec({1, 1}));
  EXPECT_DOUBLE_EQ(y.item<double>(), 12);
  EXPECT_DOUBLE_EQ(t.item<double>(), 8);
}

TEST(WhileLoop, ReverseModeSavesEveryIteration) {
  // Newton's iteration for sqrt(a) until converged: a data-dependent trip count.
  const auto f = [](const Tensor& a) {
    const std::vector<Tensor> out = tl::while_loop(
        [](const std::vector<Tensor>& s) { return tl::abs(s[0] * s[0] - s[1]) > 1e-12; },
        [](const std::vector<Tensor>& s) { return std::vector<Tensor>{0.5 * (s[0] + s[1] / s[0]), s[1]}; },
        std::vector<Tensor>{a * 0.0 + 1.0, a});
    return tl::sum(out[0] * out[0] * out[0]);  // a^(3/2)
  };
  const Tensor a = tl::scalar_tensor(3.0, tl::DType::f64);
  EXPECT_NEAR(f(a).item<double>(), std::pow(3.0, 1.5), 1e-12);
  const Tensor g = tl::grad(f)(a);
  // The loop's derivative, step by step, tends to the exact one (1.5 sqrt(a)).
  EXPECT_NEAR(g.item<double>(), 1.5 * std::sqrt(3.0), 1e-6);
  EXPECT_NEAR(tl::jit(tl::grad(f))(a).item<double>(), g.item<double>(), 1e-15);
  // Forward over reverse: the second derivative, 0.75 / sqrt(a).
  auto [g2, h] = tl::jvp([&](const Tensor& x) { return tl::grad(f)(x); }, a, tl::scalar_tensor(1.0, tl::DType::f64));
  EXPECT_NEAR(h.item<double>(), 0.75 / std::sqrt(3.0), 1e-6);
  // A loop that never runs passes the cotangent straight through.
  const auto skip = [](const Tensor& x) {
    return tl::sum(tl::while_loop([](const Tensor& v) { return tl::sum(v) > 100.0; },
                                  [](const Tensor& v) { return v * 2.0; }, x));
  };
  EXPECT_EQ(tl::grad(skip)(vec({1, 2})).to_vector<double>(), (std::vector<double>{1, 1}));
}

TEST(WhileLoop, ItsGradientIsRefusedByStableHloWithTheReason) {
  const auto g = tl::grad([](const Tensor& x) {
    return tl::sum(tl::while_loop([](const Tensor& v) { return tl::sum(v) < 10.0; },
                                  [](const Tensor& v) { return v * 2.0; }, x));
  });
  std::vector<tl::ir::TensorType> types{{tl::DType::f64, {2}}};
  const tl::ir::Function f = tl::ir::trace("main", types, [&](std::span<const Tensor> a) {
    return std::vector<Tensor>{g(a[0])};
  });
  tltest::expect_error_with<tl::ValueError>([&] { (void)tl::stablehlo::to_text(f); },
                                            {"tl::while_loop: reverse mode through a while loop saves every "
                                             "iteration's values on the host"});
}

}  // namespace
