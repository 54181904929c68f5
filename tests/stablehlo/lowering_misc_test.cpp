// Lowerings of library ops that StableHLO has no op for, or accepts only on some
// element types: traced, emitted as StableHLO text, parsed back and interpreted.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <functional>

#include "interp/interpreter.hpp"
#include "ir/builder.hpp"
#include "stablehlo/stablehlo.hpp"
#include "support/lowering.hpp"
#include "tlaloc/tlaloc.hpp"

namespace tl = tlaloc;

namespace {

using tltest::expect_round_trip;
using tltest::Fn;
using tltest::lowered_results;

Fn unary(tl::Tensor (*op)(const tl::Tensor&)) {
  return [op](std::span<const tl::Tensor> a) { return std::vector<tl::Tensor>{op(a[0])}; };
}

// ---- integer operands of float-only StableHLO ops ---------------------------------

TEST(LoweringMisc, RoundingSignAndIsFiniteOfIntegers) {
  const std::vector<tl::Tensor> inputs = {
      tl::tensor(std::vector<std::int32_t>{-3, 0, 7, -2147483647 - 1}, {4}),
      tl::tensor(std::vector<std::int8_t>{-128, 127, 0, -1}, {2, 2}),
      tl::tensor(std::vector<std::uint16_t>{0, 1, 65535}, {3}),
  };
  for (const tl::Tensor& x : inputs) {
    SCOPED_TRACE(tl::dtype_name(x.dtype()));
    std::string text;
    const Fn fn = [](std::span<const tl::Tensor> a) {
      return std::vector<tl::Tensor>{tl::floor(a[0]), tl::ceil(a[0]), tl::round(a[0]), tl::sign(a[0]),
                                     tl::isfinite(a[0])};
    };
    const std::vector<tl::Tensor> want = fn(std::vector<tl::Tensor>{x});
    for (const auto& got : lowered_results(fn, {x}, &text))
      for (std::size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(tltest::same_bits(got[i], want[i])) << i;
    for (const char* op :
         {"stablehlo.floor", "stablehlo.ceil", "stablehlo.round", "stablehlo.sign", "stablehlo.is_finite"})
      EXPECT_EQ(text.find(op), std::string::npos) << op << " in\n" << text;
  }
}

TEST(LoweringMisc, IsFiniteOfBool) {
  std::string text;
  expect_round_trip(unary(tl::isfinite), {tl::tensor(std::vector<bool>{true, false}, {2})});
  lowered_results(unary(tl::isfinite), {tl::tensor(std::vector<bool>{true, false}, {2})}, &text);
  EXPECT_EQ(text.find("stablehlo.is_finite"), std::string::npos) << text;
}

TEST(LoweringMisc, RoundingOfFloatsKeepsTheOps) {
  const tl::Tensor x = tl::tensor({-2.5f, -0.0f, 0.5f, 1.5f, std::nanf(""), INFINITY}, {6});
  std::string text;
  const Fn fn = [](std::span<const tl::Tensor> a) {
    return std::vector<tl::Tensor>{tl::floor(a[0]), tl::round(a[0]), tl::sign(a[0]), tl::isfinite(a[0])};
  };
  expect_round_trip(fn, {x});
  lowered_results(fn, {x}, &text);
  EXPECT_NE(text.find("stablehlo.round_nearest_even"), std::string::npos);
  EXPECT_NE(text.find("stablehlo.is_finite"), std::string::npos);
}

// ---- erf ----------------------------------------------------------------------------

std::int64_t ulp_distance(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : INT64_MAX;
  // Map the float line monotonically onto the integers (-0 and +0 both to 0).
  auto key = [](float v) {
    const std::int32_t i = std::bit_cast<std::int32_t>(v);
    return i < 0 ? -std::int64_t(i & 0x7fffffff) : std::int64_t(i);
  };
  return std::abs(key(a) - key(b));
}

// Every f32 step of 2^-12 in [-7, 7], a log-spaced sweep of small values and the
// special values: the lowered erf is within 1 ulp of std::erf (documented bound).
TEST(LoweringMisc, ErfWithinOneUlp) {
  std::vector<float> xs;
  for (int i = -7 * 4096; i <= 7 * 4096; ++i) xs.push_back(float(i) / 4096.0f);
  for (float v = 1e-30f; v < 1.0f; v *= 1.01f) xs.push_back(v), xs.push_back(-v);
  for (float v : {0.0f, -0.0f, INFINITY, -INFINITY, std::nanf(""), 1e-45f, 3.9f, 0.84375f}) xs.push_back(v);
  const tl::Tensor x = tl::tensor(xs, {std::int64_t(xs.size())});
  std::string text;
  const auto results = lowered_results(unary(tl::erf), {x}, &text);
  EXPECT_EQ(text.find("erf"), std::string::npos);
  for (const auto& got : results) {
    const std::vector<float> y = got.at(0).to_vector<float>();
    std::int64_t worst = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const std::int64_t d = ulp_distance(y[i], std::erf(xs[i]));
      if (d > worst) worst = d;
      ASSERT_LE(d, 1) << "erf(" << xs[i] << ") = " << y[i] << ", std::erf gives " << std::erf(xs[i]);
    }
    EXPECT_EQ(std::signbit(y[xs.size() - 7]), true);  // erf(-0) = -0
  }
}

TEST(LoweringMisc, ErfOfOtherTypes) {
  const tl::Tensor d =
      tl::tensor(std::vector<double>{-6.5, -2.0, -0.3, 0.0, 1e-300, 0.7, 1.5, 3.5, 5.0}, {9});
  for (const auto& got : lowered_results(unary(tl::erf), {d})) {
    const std::vector<double> y = got.at(0).to_vector<double>(), x = d.to_vector<double>();
    for (std::size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(y[i], std::erf(x[i]), 3e-15) << x[i];
  }
  const tl::Tensor h = tl::tensor({-1.0f, 0.25f, 2.0f}, {3}).astype(tl::DType::bf16);
  const tl::Tensor i = tl::tensor(std::vector<std::int32_t>{-1, 0, 2}, {3});
  for (const tl::Tensor& x : {h, i})
    for (const auto& got : lowered_results(unary(tl::erf), {x})) {
      const tl::Tensor want = tl::erf(x);
      ASSERT_EQ(got.at(0).dtype(), want.dtype());
      const std::vector<double> a = got[0].to_vector<double>(), b = want.to_vector<double>();
      for (std::size_t k = 0; k < a.size(); ++k) EXPECT_NEAR(a[k], b[k], 1e-2 * std::abs(b[k]) + 1e-6);
    }
}

// Within 1 ulp, or 3e-15 |x| where 1 + erf(x) cancels (large negative x).
TEST(LoweringMisc, GeluErfForm) {
  std::vector<float> xs;
  for (int k = -80; k <= 80; ++k) xs.push_back(float(k) / 8.0f);
  const tl::Tensor x = tl::tensor(xs, {std::int64_t(xs.size())});
  const Fn fn = [](std::span<const tl::Tensor> a) { return std::vector<tl::Tensor>{tl::gelu(a[0], false)}; };
  for (const auto& got : lowered_results(fn, {x})) {
    const std::vector<float> y = got.at(0).to_vector<float>();
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const double want = 0.5 * double(xs[i]) * (1.0 + std::erf(double(xs[i]) / std::sqrt(2.0)));
      const bool close = std::abs(double(y[i]) - want) <= 3e-15 * std::abs(double(xs[i]));
      EXPECT_TRUE(close || ulp_distance(y[i], float(want)) <= 1) << xs[i] << ": " << y[i] << " vs " << want;
    }
  }
}

}  // namespace
