// Special functions lowered: those chlo has stay chlo ops in the text (as JAX writes
// them; XLA's compilers legalize them), read back and run to the eager bits;
// bessel_i0e, which chlo lacks, becomes StableHLO arithmetic, and the incomplete
// gamma functions while loops.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "support/expect_error.hpp"
#include "support/lowering.hpp"

namespace tl = tlaloc;

namespace {

using tltest::expect_round_trip;
using tltest::Fn;
using tltest::lowered_results;

tl::Tensor sample() { return tl::tensor({-2.5, -0.5, 0.25, 1.0, 3.5, 12.0}, {2, 3}); }

TEST(LoweringSpecial, ChloOpsStayChlo) {
  const Fn unary = [](std::span<const tl::Tensor> a) {
    return std::vector<tl::Tensor>{tl::lgamma(a[0]), tl::digamma(a[0]), tl::erfc(a[0]), tl::bessel_i1e(a[0]),
                                   tl::erf_inv(a[0] / 13.0)};
  };
  expect_round_trip(unary, {sample()}, "chlo.lgamma");
  std::string text;
  lowered_results(unary, {sample()}, &text);
  for (const char* op : {"chlo.digamma", "chlo.erfc", "chlo.bessel_i1e", "chlo.erf_inv"})
    EXPECT_NE(text.find(op), std::string::npos) << op;
  // Broadcast operands are broadcast before the chlo op, which takes one shape.
  const Fn binary = [](std::span<const tl::Tensor> a) {
    return std::vector<tl::Tensor>{tl::zeta(a[1], a[0]), tl::polygamma(a[1], a[0]),
                                   tl::nextafter(a[0], a[1])};
  };
  expect_round_trip(binary, {tl::abs(sample()) + 0.5, tl::tensor({2.0, 3.0, 4.0}, {3})}, "chlo.zeta");
  const Fn top = [](std::span<const tl::Tensor> a) { return tl::top_k(a[0], 2); };
  expect_round_trip(top, {sample()}, "chlo.top_k(");
  const Fn smallest = [](std::span<const tl::Tensor> a) { return tl::top_k(a[0], 1, false); };
  expect_round_trip(smallest, {sample()}, "{largest = false}");
}

TEST(LoweringSpecial, IntegerOperandsAreConvertedFirst) {
  const tl::Tensor i = tl::tensor(std::vector<std::int32_t>{1, 2, 7}, {3});
  const Fn fn = [](std::span<const tl::Tensor> a) { return std::vector<tl::Tensor>{tl::lgamma(a[0])}; };
  expect_round_trip(fn, {i}, "stablehlo.convert");
}

// Ops that have a chlo spelling and a decomposition (sinh, erf) lower to StableHLO
// arithmetic, as before: no chlo op is left in the text.
TEST(LoweringSpecial, ChloSpelledOpsWithDecompositionsAreDecomposed) {
  std::string text;
  const Fn fn = [](std::span<const tl::Tensor> a) {
    return std::vector<tl::Tensor>{tl::sinh(a[0]) + tl::erf(a[0])};
  };
  lowered_results(fn, {sample()}, &text);
  EXPECT_EQ(text.find("chlo."), std::string::npos) << text;
}

// The lowering sums the kernel's series with a fixed number of terms: within 2e-15
// of the kernel (relative), on both sides of |x| = 20 where the
// methods change, and at the special values.
TEST(LoweringSpecial, BesselI0eBecomesArithmetic) {
  std::vector<double> xs;
  for (int k = -400; k <= 400; ++k) xs.push_back(k / 8.0);
  for (double v : {19.999, 20.0, 20.001, 700.0, 1e6, std::numeric_limits<double>::infinity(),
                   std::numeric_limits<double>::quiet_NaN()})
    xs.push_back(v);
  const tl::Tensor x = tl::tensor(xs, {std::int64_t(xs.size())});
  const Fn fn = [](std::span<const tl::Tensor> a) { return std::vector<tl::Tensor>{tl::bessel_i0e(a[0])}; };
  std::string text;
  const auto results = lowered_results(fn, {x}, &text);
  EXPECT_EQ(text.find("bessel"), std::string::npos);
  const std::vector<double> want = tl::bessel_i0e(x).to_vector<double>();
  for (const auto& got : results) {
    const std::vector<double> y = got.at(0).to_vector<double>();
    for (std::size_t i = 0; i < xs.size(); ++i) {
      if (std::isnan(want[i])) {
        EXPECT_TRUE(std::isnan(y[i])) << xs[i];
        continue;
      }
      EXPECT_NEAR(y[i], want[i], 2e-15 * want[i]) << "bessel_i0e(" << xs[i] << ")";
    }
  }
  const tl::Tensor f = tl::tensor({-25.0f, 0.5f, 3.0f}, {3});
  for (const auto& got : lowered_results(fn, {f})) {
    const std::vector<float> y = got.at(0).to_vector<float>(), w = tl::bessel_i0e(f).to_vector<float>();
    for (std::size_t i = 0; i < y.size(); ++i) EXPECT_EQ(y[i], w[i]) << i;
  }
}

// The incomplete gamma functions lower to two while loops, which converge element
// by element: within a few units of the last place of the kernel, on both sides of
// x = a + 1, at large a, and at the edges (x = 0, inf, a <= 0, NaN).
TEST(LoweringSpecial, IncompleteGammaBecomesLoops) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const tl::Tensor a =
      tl::tensor({0.1, 0.5, 2.5, 2.5, 30.0, 30.0, 500.0, 2.0, 2.0, 0.0, -1.0, nan, 3.0}, {13});
  const tl::Tensor x =
      tl::tensor({0.05, 4.0, 1.0, 9.0, 25.0, 40.0, 480.0, 0.0, inf, 1.0, 1.0, 1.0, -2.0}, {13});
  const Fn fn = [](std::span<const tl::Tensor> v) {
    return std::vector<tl::Tensor>{tl::igamma(v[0], v[1]), tl::igammac(v[0], v[1])};
  };
  std::string text;
  const auto results = lowered_results(fn, {a, x}, &text);
  EXPECT_NE(text.find("stablehlo.while"), std::string::npos);
  EXPECT_EQ(text.find("igamma"), std::string::npos);
  const std::vector<tl::Tensor> want = fn(std::vector<tl::Tensor>{a, x});
  for (const auto& got : results)
    for (std::size_t k = 0; k < 2; ++k) {
      const std::vector<double> y = got.at(k).to_vector<double>(), w = want[k].to_vector<double>();
      for (std::size_t i = 0; i < y.size(); ++i) {
        if (std::isnan(w[i])) {
          EXPECT_TRUE(std::isnan(y[i])) << i;
          continue;
        }
        EXPECT_NEAR(y[i], w[i], 1e-14 * std::abs(w[i]) + 1e-300) << (k == 0 ? "igamma " : "igammac ") << i;
      }
    }
  const Fn f32 = [](std::span<const tl::Tensor> v) {
    return std::vector<tl::Tensor>{tl::igamma(v[0], v[1])};
  };
  expect_round_trip(f32, {tl::tensor({0.5f, 3.0f}, {2}), tl::tensor({2.0f, 1.0f}, {2})});
}

// betainc lowers to a while loop too: within 1e-14 of the kernel (relative), on both
// sides of x = (a + 1) / (a + b + 2), and at the edges.
TEST(LoweringSpecial, IncompleteBetaBecomesALoop) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const tl::Tensor a = tl::tensor({0.5, 2.0, 2.0, 30.0, 7.0, 2.0, 2.0, 0.0, 1.0, nan}, {10});
  const tl::Tensor b = tl::tensor({0.5, 3.0, 3.0, 20.0, 0.7, 3.0, 3.0, 1.0, 1.0, 1.0}, {10});
  const tl::Tensor x = tl::tensor({0.9, 0.1, 0.8, 0.55, 0.95, 0.0, 1.0, 0.5, 1.5, 0.5}, {10});
  const Fn fn = [](std::span<const tl::Tensor> v) {
    return std::vector<tl::Tensor>{tl::betainc(v[0], v[1], v[2])};
  };
  std::string text;
  const auto results = lowered_results(fn, {a, b, x}, &text);
  EXPECT_NE(text.find("stablehlo.while"), std::string::npos);
  const std::vector<double> want = tl::betainc(a, b, x).to_vector<double>();
  for (const auto& got : results) {
    const std::vector<double> y = got.at(0).to_vector<double>();
    for (std::size_t i = 0; i < y.size(); ++i) {
      if (std::isnan(want[i])) {
        EXPECT_TRUE(std::isnan(y[i])) << i;
        continue;
      }
      EXPECT_NEAR(y[i], want[i], 1e-14 * std::abs(want[i])) << "betainc " << i;
    }
  }
}

// A parsed chlo op that has a decomposition is written back as chlo when the module
// is emitted as it is: reading and writing is a fixed point.
TEST(LoweringSpecial, ParsedChloIsWrittenBackAsChlo) {
  const std::string text =
      "func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  %0 = chlo.sinh %arg0 : tensor<2xf32> -> tensor<2xf32>\n"
      "  %1 = chlo.lgamma %0 : tensor<2xf32> -> tensor<2xf32>\n"
      "  return %1 : tensor<2xf32>\n"
      "}\n";
  for (bool generic : {false, true}) {
    tl::stablehlo::EmitOptions options;
    options.generic = generic;
    const std::string once = tl::stablehlo::emit(tl::stablehlo::parse(text), options);
    EXPECT_NE(once.find(generic ? "\"chlo.sinh\"" : "chlo.sinh %"), std::string::npos) << once;
    EXPECT_EQ(tl::stablehlo::emit(tl::stablehlo::parse(once), options), once);
  }
}

}  // namespace
