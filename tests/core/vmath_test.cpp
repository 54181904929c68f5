// Tests for src/core/vmath.hpp: accuracy sweeps against double-precision
// <cmath> references (max error in ulps of the correctly rounded float
// result) and special values.
#include "core/vmath.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <numbers>
#include <vector>

namespace {

namespace vm = tlaloc::vmath;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kMax = std::numeric_limits<float>::max();
constexpr float kDenormMin = std::numeric_limits<float>::denorm_min();

// ---------------------------------------------------------------- refs ----
double ref_sigmoid(double x) {
  const double e = std::exp(-std::fabs(x));
  return (x < 0.0 ? e : 1.0) / (1.0 + e);
}
double ref_silu(double x) { return x * ref_sigmoid(x); }
double ref_softplus(double x) {
  return (x > 0.0 ? x : 0.0) + std::log1p(std::exp(-std::fabs(x)));
}
// 0.5 x (1 + tanh(y)) == x * sigmoid(2y); the second form keeps the negative
// tail accurate in double.
double ref_gelu_tanh(double x) {
  const double y = std::sqrt(2.0 / std::numbers::pi) * (x + 0.044715 * x * x * x);
  return x * ref_sigmoid(2.0 * y);
}
double ref_gelu_erf(double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }

// ------------------------------------------------------------- helpers ----
// Maps floats to integers so that adjacent floats differ by 1.
std::int64_t ordered(float f) {
  const auto i = std::bit_cast<std::int32_t>(f);
  return i < 0 ? static_cast<std::int64_t>(INT32_MIN) - i : i;
}

// Distance in ulps between the result and the correctly rounded reference;
// 0 when both are NaN, huge when only one is.
std::int64_t ulp_dist(float got, double ref) {
  const auto want = static_cast<float>(ref);
  if (std::isnan(got) || std::isnan(want)) {
    return std::isnan(got) == std::isnan(want) ? 0 : (1ll << 40);
  }
  if (std::isinf(got) || std::isinf(want)) return got == want ? 0 : (1ll << 40);
  const std::int64_t d = ordered(got) - ordered(want);
  return d < 0 ? -d : d;
}

// Floats in [lo, hi]: about `count` bit patterns evenly spaced in the ordered
// integer sense (so every binade is covered) plus `linear` evenly spaced
// values when the range is finite.
std::vector<float> sweep(float lo, float hi, std::int64_t count, int linear = 10000) {
  std::vector<float> xs;
  const std::int64_t a = ordered(lo), b = ordered(hi);
  std::int64_t stride = (b - a) / count;
  stride = stride < 1 ? 1 : (stride | 1);
  for (std::int64_t i = a; i <= b; i += stride) {
    const auto bits = static_cast<std::int32_t>(i < 0 ? INT32_MIN - i : i);
    xs.push_back(std::bit_cast<float>(bits));
  }
  if (!std::isfinite(hi - lo)) return xs;
  for (int i = 0; i <= linear; ++i) {
    xs.push_back(lo + (hi - lo) * (static_cast<float>(i) / static_cast<float>(linear)));
  }
  return xs;
}

struct SweepResult {
  std::int64_t max_ulp = 0;
  float worst_x = 0.0f;
};

// Evaluates f over xs in a plain loop (the form that gets vectorized) and
// compares with ref in double.
template <class F, class R>
SweepResult check(const std::vector<float>& xs, F f, R ref) {
  std::vector<float> ys(xs.size());
  const float* __restrict in = xs.data();
  float* __restrict out = ys.data();
  const std::size_t n = xs.size();
  for (std::size_t i = 0; i < n; ++i) out[i] = f(in[i]);
  SweepResult res;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t d = ulp_dist(ys[i], ref(static_cast<double>(xs[i])));
    if (d > res.max_ulp) {
      res.max_ulp = d;
      res.worst_x = xs[i];
    }
  }
  return res;
}

#define EXPECT_SWEEP(name, lo, hi, count, bound, ref_expr)                       \
  do {                                                                           \
    const auto xs_ = sweep((lo), (hi), (count));                                 \
    const SweepResult r_ = check(                                                \
        xs_, [](float v) { return vm::name(v); }, [](double v) { return ref_expr; }); \
    std::printf("  %-10s [%g, %g]: max %lld ulp (at %a)\n", #name,               \
                static_cast<double>(lo), static_cast<double>(hi),                \
                static_cast<long long>(r_.max_ulp), static_cast<double>(r_.worst_x)); \
    EXPECT_LE(r_.max_ulp, (bound)) << #name << " worst at x = " << r_.worst_x;   \
  } while (0)

constexpr std::int64_t kN = 80000;  // bit-pattern samples per sweep

// ---------------------------------------------------------- accuracy ----
TEST(VMath, ExpAccuracy) {
  EXPECT_SWEEP(exp, -110.0f, 90.0f, 2 * kN, 2, std::exp(v));
}

TEST(VMath, Expm1Accuracy) {
  EXPECT_SWEEP(expm1, -30.0f, 90.0f, 2 * kN, 2, std::expm1(v));
}

TEST(VMath, LogAccuracy) {
  EXPECT_SWEEP(log, 0.0f, kInf, 2 * kN, 2, std::log(v));
  EXPECT_SWEEP(log, 0.5f, 2.0f, kN, 2, std::log(v));
}

TEST(VMath, Log1pAccuracy) {
  EXPECT_SWEEP(log1p, -1.0f, 0.0f, kN, 2, std::log1p(v));
  EXPECT_SWEEP(log1p, 0.0f, kMax, kN, 2, std::log1p(v));
}

TEST(VMath, TanhAccuracy) {
  EXPECT_SWEEP(tanh, -12.0f, 12.0f, 2 * kN, 2, std::tanh(v));
}

TEST(VMath, SigmoidAccuracy) {
  EXPECT_SWEEP(sigmoid, -120.0f, 40.0f, 2 * kN, 2, ref_sigmoid(v));
}

TEST(VMath, SinCosAccuracy) {
  // Full finite range: the argument reduction is exact for every float.
  EXPECT_SWEEP(sin, -kMax, kMax, 2 * kN, 2, std::sin(v));
  EXPECT_SWEEP(cos, -kMax, kMax, 2 * kN, 2, std::cos(v));
  EXPECT_SWEEP(sin, -1.0e4f, 1.0e4f, kN, 2, std::sin(v));
  EXPECT_SWEEP(cos, -1.0e4f, 1.0e4f, kN, 2, std::cos(v));
}

TEST(VMath, ErfAccuracy) {
  EXPECT_SWEEP(erf, -6.0f, 6.0f, 2 * kN, 4, std::erf(v));
}

TEST(VMath, ActivationAccuracy) {
  EXPECT_SWEEP(softplus, -120.0f, 120.0f, 2 * kN, 4, ref_softplus(v));
  EXPECT_SWEEP(silu, -120.0f, 120.0f, 2 * kN, 4, ref_silu(v));
  EXPECT_SWEEP(gelu_tanh, -15.0f, 15.0f, 2 * kN, 4, ref_gelu_tanh(v));
  EXPECT_SWEEP(gelu_erf, -16.0f, 16.0f, 2 * kN, 4, ref_gelu_erf(v));
}

// Near-exhaustive pass over the whole float line (every bit pattern class:
// zeros, subnormals, normals, infinities, NaNs) for every function.
TEST(VMath, WholeLine) {
  const float lo = -kInf, hi = kInf;
  EXPECT_SWEEP(exp, lo, hi, kN, 2, std::exp(v));
  EXPECT_SWEEP(expm1, lo, hi, kN, 2, std::expm1(v));
  EXPECT_SWEEP(log, lo, hi, kN, 2, std::log(v));
  EXPECT_SWEEP(log1p, lo, hi, kN, 2, std::log1p(v));
  EXPECT_SWEEP(tanh, lo, hi, kN, 2, std::tanh(v));
  EXPECT_SWEEP(sigmoid, lo, hi, kN, 2, ref_sigmoid(v));
  EXPECT_SWEEP(erf, lo, hi, kN, 4, std::erf(v));
  EXPECT_SWEEP(softplus, lo, hi, kN, 4, ref_softplus(v));
  EXPECT_SWEEP(silu, -1e30f, 1e30f, kN, 4, ref_silu(v));
  EXPECT_SWEEP(gelu_tanh, -1e30f, 1e30f, kN, 4, ref_gelu_tanh(v));
  EXPECT_SWEEP(gelu_erf, -1e30f, 1e30f, kN, 4, ref_gelu_erf(v));
}

// ------------------------------------------------------ special values ----
TEST(VMath, NaNPropagates) {
  const float nans[] = {kNaN, -kNaN, std::bit_cast<float>(0x7f800001u),
                        std::bit_cast<float>(0xffc12345u)};
  for (const float n : nans) {
    EXPECT_TRUE(std::isnan(vm::exp(n)));
    EXPECT_TRUE(std::isnan(vm::expm1(n)));
    EXPECT_TRUE(std::isnan(vm::log(n)));
    EXPECT_TRUE(std::isnan(vm::log1p(n)));
    EXPECT_TRUE(std::isnan(vm::tanh(n)));
    EXPECT_TRUE(std::isnan(vm::sigmoid(n)));
    EXPECT_TRUE(std::isnan(vm::erf(n)));
    EXPECT_TRUE(std::isnan(vm::sin(n)));
    EXPECT_TRUE(std::isnan(vm::cos(n)));
    EXPECT_TRUE(std::isnan(vm::softplus(n)));
    EXPECT_TRUE(std::isnan(vm::gelu_tanh(n)));
    EXPECT_TRUE(std::isnan(vm::gelu_erf(n)));
    EXPECT_TRUE(std::isnan(vm::silu(n)));
  }
}

bool is_neg_zero(float x) { return x == 0.0f && std::signbit(x); }
bool is_pos_zero(float x) { return x == 0.0f && !std::signbit(x); }

TEST(VMath, ExpSpecial) {
  EXPECT_TRUE(is_pos_zero(vm::exp(-kInf)));
  EXPECT_EQ(vm::exp(kInf), kInf);
  EXPECT_EQ(vm::exp(0.0f), 1.0f);
  EXPECT_EQ(vm::exp(-0.0f), 1.0f);
  EXPECT_EQ(vm::exp(89.0f), kInf);       // overflow
  EXPECT_EQ(vm::exp(1000.0f), kInf);
  EXPECT_EQ(vm::exp(kMax), kInf);
  EXPECT_LT(vm::exp(88.72f), kInf);      // largest finite region
  EXPECT_LE(ulp_dist(vm::exp(88.72f), std::exp(static_cast<double>(88.72f))), 2);
  EXPECT_TRUE(is_pos_zero(vm::exp(-104.0f)));  // underflow
  EXPECT_TRUE(is_pos_zero(vm::exp(-1000.0f)));
  EXPECT_TRUE(is_pos_zero(vm::exp(-kMax)));
  // Gradual underflow: subnormal results are produced, not flushed.
  EXPECT_LE(ulp_dist(vm::exp(-100.0f), std::exp(-100.0)), 1);
  EXPECT_GT(vm::exp(-100.0f), 0.0f);
  EXPECT_EQ(vm::exp(-103.9f), kDenormMin);
}

TEST(VMath, Expm1Special) {
  EXPECT_EQ(vm::expm1(-kInf), -1.0f);
  EXPECT_EQ(vm::expm1(kInf), kInf);
  EXPECT_EQ(vm::expm1(100.0f), kInf);
  EXPECT_EQ(vm::expm1(-100.0f), -1.0f);
  EXPECT_TRUE(is_pos_zero(vm::expm1(0.0f)));
  EXPECT_TRUE(is_neg_zero(vm::expm1(-0.0f)));
  EXPECT_EQ(vm::expm1(1e-10f), 1e-10f);
  EXPECT_EQ(vm::expm1(-1e-10f), -1e-10f);
  EXPECT_EQ(vm::expm1(kDenormMin), kDenormMin);
  EXPECT_LE(ulp_dist(vm::expm1(1e-5f), std::expm1(static_cast<double>(1e-5f))), 1);
  EXPECT_LE(ulp_dist(vm::expm1(-3e-4f), std::expm1(static_cast<double>(-3e-4f))), 1);
}

TEST(VMath, LogSpecial) {
  EXPECT_EQ(vm::log(0.0f), -kInf);
  EXPECT_EQ(vm::log(-0.0f), -kInf);
  EXPECT_TRUE(std::isnan(vm::log(-1.0f)));
  EXPECT_TRUE(std::isnan(vm::log(-kDenormMin)));
  EXPECT_TRUE(std::isnan(vm::log(-kInf)));
  EXPECT_EQ(vm::log(kInf), kInf);
  EXPECT_TRUE(is_pos_zero(vm::log(1.0f)));
  EXPECT_LE(ulp_dist(vm::log(kDenormMin), std::log(static_cast<double>(kDenormMin))), 1);
  EXPECT_LE(ulp_dist(vm::log(kMax), std::log(static_cast<double>(kMax))), 1);
  EXPECT_LE(ulp_dist(vm::log(1.0f + 0x1p-23f), std::log(1.0 + 0x1p-23)), 1);
}

TEST(VMath, Log1pSpecial) {
  EXPECT_EQ(vm::log1p(-1.0f), -kInf);
  EXPECT_TRUE(std::isnan(vm::log1p(-1.5f)));
  EXPECT_TRUE(std::isnan(vm::log1p(-kInf)));
  EXPECT_EQ(vm::log1p(kInf), kInf);
  EXPECT_TRUE(is_pos_zero(vm::log1p(0.0f)));
  EXPECT_TRUE(is_neg_zero(vm::log1p(-0.0f)));
  EXPECT_EQ(vm::log1p(1e-10f), 1e-10f);
  EXPECT_EQ(vm::log1p(-1e-10f), -1e-10f);
  EXPECT_EQ(vm::log1p(kDenormMin), kDenormMin);
  EXPECT_LE(ulp_dist(vm::log1p(1e-7f), std::log1p(static_cast<double>(1e-7f))), 1);
  EXPECT_LE(ulp_dist(vm::log1p(-0.999999f), std::log1p(static_cast<double>(-0.999999f))), 1);
  EXPECT_LE(ulp_dist(vm::log1p(kMax), std::log1p(static_cast<double>(kMax))), 1);
}

TEST(VMath, TanhSpecial) {
  EXPECT_EQ(vm::tanh(kInf), 1.0f);
  EXPECT_EQ(vm::tanh(-kInf), -1.0f);
  EXPECT_EQ(vm::tanh(20.0f), 1.0f);
  EXPECT_EQ(vm::tanh(-20.0f), -1.0f);
  EXPECT_TRUE(is_pos_zero(vm::tanh(0.0f)));
  EXPECT_TRUE(is_neg_zero(vm::tanh(-0.0f)));
  EXPECT_EQ(vm::tanh(1e-10f), 1e-10f);
  EXPECT_EQ(vm::tanh(-1e-10f), -1e-10f);
  EXPECT_EQ(vm::tanh(kDenormMin), kDenormMin);
  EXPECT_EQ(vm::tanh(-kDenormMin), -kDenormMin);
}

TEST(VMath, SigmoidSpecial) {
  EXPECT_EQ(vm::sigmoid(kInf), 1.0f);
  EXPECT_TRUE(is_pos_zero(vm::sigmoid(-kInf)));
  EXPECT_EQ(vm::sigmoid(0.0f), 0.5f);
  EXPECT_EQ(vm::sigmoid(100.0f), 1.0f);
  // sigmoid(-100) = 3.72e-44: a subnormal, produced (not flushed).
  EXPECT_GT(vm::sigmoid(-100.0f), 0.0f);
  EXPECT_LE(ulp_dist(vm::sigmoid(-100.0f), ref_sigmoid(-100.0)), 1);
  EXPECT_NEAR(vm::sigmoid(-100.0f), 3.7e-44f, 0.1e-44f);
  EXPECT_TRUE(is_pos_zero(vm::sigmoid(-110.0f)));
}

TEST(VMath, ErfSpecial) {
  EXPECT_EQ(vm::erf(kInf), 1.0f);
  EXPECT_EQ(vm::erf(-kInf), -1.0f);
  EXPECT_EQ(vm::erf(10.0f), 1.0f);
  EXPECT_TRUE(is_pos_zero(vm::erf(0.0f)));
  EXPECT_TRUE(is_neg_zero(vm::erf(-0.0f)));
  EXPECT_LE(ulp_dist(vm::erf(1e-10f), std::erf(static_cast<double>(1e-10f))), 1);
  EXPECT_LE(ulp_dist(vm::erf(kDenormMin), std::erf(static_cast<double>(kDenormMin))), 1);
}

TEST(VMath, SinCosSpecial) {
  EXPECT_TRUE(std::isnan(vm::sin(kInf)));
  EXPECT_TRUE(std::isnan(vm::sin(-kInf)));
  EXPECT_TRUE(std::isnan(vm::cos(kInf)));
  EXPECT_TRUE(std::isnan(vm::cos(-kInf)));
  EXPECT_TRUE(is_pos_zero(vm::sin(0.0f)));
  EXPECT_TRUE(is_neg_zero(vm::sin(-0.0f)));
  EXPECT_EQ(vm::cos(0.0f), 1.0f);
  EXPECT_EQ(vm::cos(-0.0f), 1.0f);
  EXPECT_EQ(vm::sin(kDenormMin), kDenormMin);
  // Large arguments, and the floats >= 1 closest to a multiple of pi/2
  // (|x - k pi/2| ~ 1.6e-9 .. 7e-9, found by an exhaustive scan), where the
  // reduction suffers the worst cancellation.
  const float xs[] = {1e4f, -1e4f, 12345.678f, 1e6f, 16777215.0f, 1e10f, 1e22f, 1e30f,
                      kMax, -kMax, 0x1.921fb6p+0f, 0x1.921fb6p+1f, 0x1.921fb6p+10f,
                      6.2831855f, 102940.4f, 0x1.f37c8ap+95f, 0x1.47d0fep+34f,
                      0x1.f37c8ap+96f, 0x1.47d0fep+35f, 0x1.f9cbe2p+7f, -0x1.f9cbe2p+7f,
                      0x1.32ede2p+85f, 0x1.628d4cp+40f};
  for (const float x : xs) {
    EXPECT_LE(ulp_dist(vm::sin(x), std::sin(static_cast<double>(x))), 2) << x;
    EXPECT_LE(ulp_dist(vm::cos(x), std::cos(static_cast<double>(x))), 2) << x;
  }
}

TEST(VMath, ActivationSpecial) {
  EXPECT_EQ(vm::softplus(kInf), kInf);
  EXPECT_TRUE(is_pos_zero(vm::softplus(-kInf)));
  EXPECT_EQ(vm::softplus(100.0f), 100.0f);
  EXPECT_EQ(vm::softplus(1e30f), 1e30f);
  EXPECT_LE(ulp_dist(vm::softplus(-100.0f), ref_softplus(-100.0)), 1);
  EXPECT_EQ(vm::softplus(0.0f), static_cast<float>(std::log(2.0)));

  EXPECT_EQ(vm::silu(kInf), kInf);
  EXPECT_EQ(vm::silu(-kInf), 0.0f);
  EXPECT_EQ(vm::silu(1e30f), 1e30f);
  EXPECT_TRUE(is_pos_zero(vm::silu(0.0f)));
  EXPECT_LE(ulp_dist(vm::silu(-100.0f), ref_silu(-100.0)), 1);

  EXPECT_EQ(vm::gelu_tanh(kInf), kInf);
  EXPECT_EQ(vm::gelu_tanh(-kInf), 0.0f);
  EXPECT_EQ(vm::gelu_tanh(50.0f), 50.0f);
  EXPECT_EQ(vm::gelu_tanh(-50.0f), 0.0f);
  EXPECT_TRUE(is_pos_zero(vm::gelu_tanh(0.0f)));

  EXPECT_EQ(vm::gelu_erf(kInf), kInf);
  EXPECT_EQ(vm::gelu_erf(-kInf), 0.0f);
  EXPECT_EQ(vm::gelu_erf(50.0f), 50.0f);
  EXPECT_EQ(vm::gelu_erf(-50.0f), 0.0f);
  EXPECT_TRUE(is_pos_zero(vm::gelu_erf(0.0f)));
}

// The double overloads forward to <cmath> / stable double formulas, so that
// templates can call vmath::f(T) for both float and double.
template <class T>
T generic_sum(T x) {
  return vm::exp(x) + vm::expm1(x) + vm::log(x) + vm::log1p(x) + vm::tanh(x) +
         vm::sigmoid(x) + vm::erf(x) + vm::sin(x) + vm::cos(x) + vm::softplus(x) +
         vm::gelu_tanh(x) + vm::gelu_erf(x) + vm::silu(x);
}

TEST(VMath, DoubleOverloads) {
  EXPECT_EQ(vm::exp(1.5), std::exp(1.5));
  EXPECT_EQ(vm::expm1(1e-3), std::expm1(1e-3));
  EXPECT_EQ(vm::log(3.0), std::log(3.0));
  EXPECT_EQ(vm::log1p(1e-3), std::log1p(1e-3));
  EXPECT_EQ(vm::tanh(0.3), std::tanh(0.3));
  EXPECT_EQ(vm::erf(0.3), std::erf(0.3));
  EXPECT_EQ(vm::sin(2.0), std::sin(2.0));
  EXPECT_EQ(vm::cos(2.0), std::cos(2.0));
  for (const double x : {-200.0, -30.0, -2.5, -1e-3, 0.0, 1e-3, 0.7, 3.0, 30.0, 200.0}) {
    EXPECT_NEAR(vm::sigmoid(x), 1.0 / (1.0 + std::exp(-x)), 1e-15);
    EXPECT_NEAR(vm::silu(x), x / (1.0 + std::exp(-x)), 1e-13);
    EXPECT_NEAR(vm::softplus(x), x > 30 ? x : std::log1p(std::exp(x)), 1e-13);
    EXPECT_NEAR(vm::gelu_erf(x), 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))), 1e-13);
    EXPECT_NEAR(vm::gelu_tanh(x),
                0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / std::numbers::pi) * (x + 0.044715 * x * x * x))),
                1e-13);
  }
  EXPECT_EQ(vm::sigmoid(std::numeric_limits<double>::infinity()), 1.0);
  EXPECT_EQ(vm::silu(-std::numeric_limits<double>::infinity()), 0.0);
  EXPECT_EQ(vm::gelu_erf(std::numeric_limits<double>::infinity()),
            std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(vm::gelu_tanh(std::numeric_limits<double>::quiet_NaN())));
  // Same generic code instantiates for float and double and agrees.
  EXPECT_NEAR(generic_sum(0.75f), generic_sum(0.75), 1e-5);
}

}  // namespace
