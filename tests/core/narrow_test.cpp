// The narrow storage types: each float format's values against its definition, its
// rounding against a brute-force search, f8e5m2 against the top byte of f16, and the
// integers' wrapping, saturation and promotion.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "core/narrow.hpp"
#include "tlaloc/lax.hpp"
#include "tlaloc/ops.hpp"
#include "tlaloc/transforms.hpp"

namespace tl = tlaloc;
using tl::DType;
using tl::detail::narrow_float_bits;
using tl::detail::narrow_float_value;

namespace {

struct Known {
  DType t;
  double largest, smallest;  // finite, positive
  bool inf, negative_zero;
};
// From each format's definition: bias, mantissa bits, and which codes are special.
constexpr Known kKnown[] = {
    {DType::f8e3m4, 15.5, 0x1p-6, true, true},
    {DType::f8e4m3, 240, 0x1p-9, true, true},
    {DType::f8e4m3fn, 448, 0x1p-9, false, true},
    {DType::f8e4m3fnuz, 240, 0x1p-10, false, false},
    {DType::f8e4m3b11fnuz, 30, 0x1p-13, false, false},
    {DType::f8e5m2, 57344, 0x1p-16, true, true},
    {DType::f8e5m2fnuz, 57344, 0x1p-17, false, false},
    {DType::f8e8m0fnu, 0x1p127, 0x1p-127, false, false},
    {DType::f4e2m1fn, 6, 0.5, false, true},
    {DType::f6e2m3fn, 7.5, 0.125, false, true},
    {DType::f6e3m2fn, 28, 0.0625, false, true},
};

unsigned codes(DType t) { return 1u << tl::bit_width(t); }

}  // namespace

TEST(Narrow, EachFloatFormatHasTheValuesItsDefinitionGives) {
  for (const Known& k : kKnown) {
    SCOPED_TRACE(tl::dtype_name(k.t));
    double largest = 0, smallest = std::numeric_limits<double>::infinity();
    bool inf = false, negative_zero = false;
    for (unsigned c = 0; c < codes(k.t); ++c) {
      const double v = narrow_float_value(k.t, std::uint8_t(c));
      inf = inf || std::isinf(v);
      negative_zero = negative_zero || (v == 0 && std::signbit(v));
      if (!std::isfinite(v)) continue;
      largest = std::max(largest, v);
      if (v > 0) smallest = std::min(smallest, v);
    }
    EXPECT_EQ(largest, k.largest);
    EXPECT_EQ(smallest, k.smallest);
    EXPECT_EQ(inf, k.inf);
    EXPECT_EQ(negative_zero, k.negative_zero);
  }
}

// The nearest finite value by a scan of every code; a tie goes to the even code, or
// up where there is no mantissa bit. Values beyond the largest are tested apart.
TEST(Narrow, RoundingMatchesABruteForceSearch) {
  std::mt19937_64 rng(7);
  for (const Known& k : kKnown) {
    SCOPED_TRACE(tl::dtype_name(k.t));
    std::vector<double> value(codes(k.t)), sorted;
    for (unsigned c = 0; c < codes(k.t); ++c) {
      value[c] = narrow_float_value(k.t, std::uint8_t(c));
      if (std::isfinite(value[c])) sorted.push_back(value[c]);
    }
    std::sort(sorted.begin(), sorted.end());
    std::vector<double> xs = sorted;
    for (std::size_t i = 0; i + 1 < sorted.size(); ++i) {  // each tie, and just beside it
      const double mid = sorted[i] + (sorted[i + 1] - sorted[i]) / 2;
      xs.insert(xs.end(), {mid, std::nextafter(mid, -INFINITY), std::nextafter(mid, INFINITY)});
    }
    std::uniform_real_distribution<double> u(-k.largest, k.largest);
    for (int i = 0; i < 1000; ++i) xs.push_back(u(rng));
    const bool ties_up = k.t == DType::f8e8m0fnu;
    for (double x : xs) {
      if (ties_up) x = std::fabs(x);  // f8e8m0fnu holds no negative value
      unsigned best = 0;
      for (unsigned c = 1; c < codes(k.t); ++c) {
        if (!std::isfinite(value[c])) continue;
        const double d = std::fabs(x - value[c]), best_d = std::fabs(x - value[best]);
        const bool tie_wins = ties_up ? value[c] > value[best] : c % 2 == 0;
        if (d < best_d || (d == best_d && tie_wins)) best = c;
      }
      EXPECT_EQ(value[narrow_float_bits(k.t, x)], value[best]) << "x = " << x;
    }
  }
}

TEST(Narrow, BeyondTheLargestValueEachFormatOverflowsItsOwnWay) {
  const auto value = [](DType t, double x) { return narrow_float_value(t, narrow_float_bits(t, x)); };
  // f8e4m3fn: 448, then 480 would follow; 464 ties to the even code of 448.
  EXPECT_EQ(value(DType::f8e4m3fn, 464), 448);
  EXPECT_TRUE(std::isnan(value(DType::f8e4m3fn, 465)));
  EXPECT_TRUE(std::isnan(value(DType::f8e4m3fn, INFINITY)));
  // f8e5m2: 57344, then 65536; the tie 61440 goes to the even code, infinity.
  EXPECT_EQ(value(DType::f8e5m2, 61439), 57344);
  EXPECT_EQ(value(DType::f8e5m2, 61440), INFINITY);
  EXPECT_EQ(value(DType::f8e5m2, -1e9), -INFINITY);
  EXPECT_TRUE(std::isnan(value(DType::f8e5m2fnuz, 1e9)));
  // No infinity and no NaN: saturate; NaN becomes zero.
  EXPECT_EQ(value(DType::f4e2m1fn, 1e9), 6);
  EXPECT_EQ(value(DType::f6e3m2fn, -INFINITY), -28);
  EXPECT_EQ(value(DType::f4e2m1fn, NAN), 0);
  // f8e8m0fnu has no negative values and no zero.
  EXPECT_TRUE(std::isnan(value(DType::f8e8m0fnu, -2)));
  EXPECT_EQ(value(DType::f8e8m0fnu, 0), 0x1p-127);
}

TEST(Narrow, F8e5m2IsTheTopByteOfF16) {
  for (unsigned c = 0; c < 256; ++c) {
    const double v = narrow_float_value(DType::f8e5m2, std::uint8_t(c));
    const float h = tl::f16::to_float(std::uint16_t(c << 8));
    if (std::isnan(h)) {
      EXPECT_TRUE(std::isnan(v)) << c;
    } else {
      EXPECT_EQ(v, double(h)) << c;
      EXPECT_EQ(narrow_float_bits(DType::f8e5m2, double(h)), c);
    }
  }
}

TEST(Narrow, IntegersWrapFromIntegersAndSaturateFromFloats) {
  const tl::Tensor i = tl::tensor(std::vector<std::int32_t>{17, -9, 7, -8});
  EXPECT_EQ(i.astype(DType::i4).to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, 7, 7, -8}));
  EXPECT_EQ(i.astype(DType::u2).to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, 3, 3, 0}));
  const tl::Tensor f = tl::tensor(std::vector<float>{100, -100, 2.7f, -2.7f});
  EXPECT_EQ(f.astype(DType::i4).to_vector<std::int32_t>(), (std::vector<std::int32_t>{7, -8, 2, -2}));
  EXPECT_EQ(f.astype(DType::u4).to_vector<std::int32_t>(), (std::vector<std::int32_t>{15, 0, 2, 0}));
  // Arithmetic wraps at the width: 7 + 1 is -8 in i4, 3 + 1 is 0 in u2.
  const tl::Tensor a = tl::tensor(std::vector<std::int32_t>{7, 3}).astype(DType::i4);
  const tl::Tensor b = tl::ones({2}, DType::i4);
  EXPECT_EQ(tl::add(a, b).dtype(), DType::i4);
  EXPECT_EQ(tl::add(a, b).to_vector<std::int32_t>(), (std::vector<std::int32_t>{-8, 4}));
  EXPECT_EQ(tl::add(a.astype(DType::u2), b.astype(DType::u2)).to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{0, 0}));
}

TEST(Narrow, FloatArithmeticRoundsEachResult) {
  // 1 + 1/16 ties between 1 and 1.125 in f8e4m3fn and goes to the even code, 1.
  const tl::Tensor one = tl::ones({1}, DType::f8e4m3fn);
  const tl::Tensor sixteenth = tl::full({1}, 0.0625, DType::f8e4m3fn);
  EXPECT_EQ(tl::add(one, sixteenth).to_vector<float>(), std::vector<float>{1.0f});
  EXPECT_EQ(tl::add(tl::add(one, sixteenth), sixteenth).to_vector<float>(), std::vector<float>{1.0f});
  // Computed in f32 and rounded once: 1 + 1/16 + 1/16 = 1.125.
  EXPECT_EQ(tl::sum(tl::stack({one, sixteenth, sixteenth}), {0}).astype(DType::f32).to_vector<float>(),
            std::vector<float>{1.125f});
  const tl::Tensor v = tl::tensor(std::vector<float>{1, 2, 3}).astype(DType::f8e4m3fn);
  EXPECT_EQ(tl::matmul(v, v).to_vector<float>(), std::vector<float>{14.0f});
  EXPECT_NE(tl::tensor(std::vector<float>{0.1f}).astype(DType::f8e4m3fn).to_string().find("dtype=f8e4m3fn"),
            std::string::npos);
}

TEST(Narrow, PromotionKeepsKindAndWidth) {
  EXPECT_EQ(tl::promote_types(DType::i4, DType::i8), DType::i8);
  EXPECT_EQ(tl::promote_types(DType::i2, DType::i4), DType::i4);
  EXPECT_EQ(tl::promote_types(DType::u4, DType::u8), DType::u8);
  EXPECT_EQ(tl::promote_types(DType::u4, DType::i4), DType::i8);
  EXPECT_EQ(tl::promote_types(DType::u2, DType::i2), DType::i4);
  EXPECT_EQ(tl::promote_types(DType::i4, DType::f8e4m3fn), DType::f8e4m3fn);
  EXPECT_EQ(tl::promote_types(DType::f8e4m3fn, DType::f8e5m2), DType::f32);
  EXPECT_EQ(tl::promote_types(DType::f8e5m2, DType::bf16), DType::bf16);
  EXPECT_EQ(tl::promote_types(DType::f4e2m1fn, DType::f64), DType::f64);
}

TEST(Narrow, OpsOnBitsRefuseNarrowIntegersByName) {
  const tl::Tensor x = tl::ones({2}, DType::i4);
  try {
    (void)tl::lax::popcnt(x);
    FAIL() << "popcnt of i4 ran";
  } catch (const tl::DTypeError& e) {
    EXPECT_NE(std::string(e.what()).find("popcnt"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("i4"), std::string::npos) << e.what();
  }
  EXPECT_EQ(tl::lax::popcnt(tl::ones({2}, DType::i8)).to_vector<int>(), (std::vector<int>{1, 1}));
}

// Narrow floats count as floating for grad, as in JAX: the cotangent has the argument's
// narrow type. d/dx sum(x * x) = 2x, worked out by hand and exact in f8e4m3fn here.
TEST(Narrow, GradThroughANarrowFloatKeepsItsType) {
  const tl::Tensor x = tl::tensor(std::vector<float>{1.0f, 1.5f, -3.0f, 0.125f}).astype(DType::f8e4m3fn);
  const tl::Tensor g = tl::grad([](const tl::Tensor& v) { return tl::sum(tl::mul(v, v)); })(x);
  EXPECT_EQ(g.dtype(), DType::f8e4m3fn);
  EXPECT_EQ(g.to_vector<float>(), (std::vector<float>{2.0f, 3.0f, -6.0f, 0.25f}));
}
