// Tests for the threefry-2x32 / JAX-compatible random core.
//
// Every expected value below is copied from a published source named next to
// it; none was produced by this implementation.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <set>
#include <vector>

#include "core/threefry.hpp"

namespace rng = tlaloc::detail::rng;
using rng::CounterLayout;
using rng::Key;

namespace {

// JAX's assertAllClose tolerance for float32 (atol = rtol = 1e-6), used for
// its printed 6-decimal regression values.
void ExpectCloseF32(const std::vector<float>& actual,
                    const std::vector<double>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], 1e-6 + 1e-6 * std::fabs(expected[i]))
        << "index " << i;
  }
}

// ---------------------------------------------------------------------------
// Random123 known-answer vectors for threefry2x32_20.
// Published in the Random123 distribution, file examples/kat_vectors
// (also tests/kat_vectors), lines of the form
//   threefry2x32 20 <ctr0> <ctr1> <key0> <key1>   <out0> <out1>
// and reused by JAX's PrngTest.testThreefry2x32 (tests/random_test.py), which
// cites Random123-Boost libs/random/test/test_threefry.cpp.
// ---------------------------------------------------------------------------

TEST(ThreefryKat, ZeroKeyZeroCounter) {
  // threefry2x32 20 00000000 00000000 00000000 00000000   6b200159 99ba4efe
  const auto r = rng::threefry2x32({0u, 0u}, {0u, 0u});
  EXPECT_EQ(r[0], 0x6b200159u);
  EXPECT_EQ(r[1], 0x99ba4efeu);
}

TEST(ThreefryKat, AllOnes) {
  // threefry2x32 20 ffffffff ffffffff ffffffff ffffffff   1cb996fc bb002be7
  const auto r =
      rng::threefry2x32({0xffffffffu, 0xffffffffu}, {0xffffffffu, 0xffffffffu});
  EXPECT_EQ(r[0], 0x1cb996fcu);
  EXPECT_EQ(r[1], 0xbb002be7u);
}

TEST(ThreefryKat, PiDigits) {
  // threefry2x32 20 243f6a88 85a308d3 13198a2e 03707344   c4923a9c 483df7a0
  // (counter = 243f6a88 85a308d3, key = 13198a2e 03707344)
  const auto r =
      rng::threefry2x32({0x13198a2eu, 0x03707344u}, {0x243f6a88u, 0x85a308d3u});
  EXPECT_EQ(r[0], 0xc4923a9cu);
  EXPECT_EQ(r[1], 0x483df7a0u);
}

TEST(ThreefryKat, BatchedFillMatchesKat) {
  const Key key{0x13198a2eu, 0x03707344u};
  std::vector<uint32_t> x0(37, 0x243f6a88u), x1(37, 0x85a308d3u);
  std::vector<uint32_t> y0(37), y1(37);
  rng::threefry2x32_fill(key, x0.data(), x1.data(), y0.data(), y1.data(), 37);
  for (size_t i = 0; i < 37; ++i) {
    EXPECT_EQ(y0[i], 0xc4923a9cu);
    EXPECT_EQ(y1[i], 0x483df7a0u);
  }
  // In place.
  rng::threefry2x32_fill(key, x0.data(), x1.data(), x0.data(), x1.data(), 37);
  EXPECT_EQ(x0, y0);
  EXPECT_EQ(x1, y1);
}

// Adapted from JAX's PrngTest.testThreefry2x32Large (tests/random_test.py),
// with n = 1001 instead of 10^7: threefry_2x32 on the flat array
// [c0] * n + [c1] * n gives [0xc4923a9c] * n + [0x483df7a0] * n.
TEST(ThreefryKat, JaxArrayForm) {
  const size_t n = 1001;
  std::vector<uint32_t> count(2 * n);
  std::fill(count.begin(), count.begin() + n, 0x243f6a88u);
  std::fill(count.begin() + n, count.end(), 0x85a308d3u);
  std::vector<uint32_t> out(2 * n);
  rng::threefry2x32_array({0x13198a2eu, 0x03707344u}, count.data(), out.data(),
                          2 * n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], 0xc4923a9cu) << i;
  for (size_t i = n; i < 2 * n; ++i) ASSERT_EQ(out[i], 0x483df7a0u) << i;
  // In place.
  rng::threefry2x32_array({0x13198a2eu, 0x03707344u}, count.data(),
                          count.data(), 2 * n);
  EXPECT_EQ(count, out);
}

// ---------------------------------------------------------------------------
// JAX regression values, from jax-ml/jax tests/random_test.py.
// ---------------------------------------------------------------------------

// PrngTest.test_prng_seeds_and_keys: seed -> key_data(PRNGKey(seed)).
TEST(JaxKeys, SeedsX64) {
  // jax_enable_x64=True column.
  EXPECT_EQ(rng::key_from_seed(0), (Key{0u, 0u}));
  EXPECT_EQ(rng::key_from_seed(1), (Key{0u, 1u}));
  EXPECT_EQ(rng::key_from_seed(2), (Key{0u, 2u}));
  EXPECT_EQ(rng::key_from_seed(3), (Key{0u, 3u}));
  EXPECT_EQ(rng::key_from_seed(static_cast<uint64_t>(int64_t{-1})),
            (Key{4294967295u, 4294967295u}));
  EXPECT_EQ(rng::key_from_seed(static_cast<uint64_t>(int64_t{-3})),
            (Key{4294967295u, 4294967293u}));
  // np.iinfo(np.int32).max + 100 and + 101.
  EXPECT_EQ(rng::key_from_seed(2147483647ull + 100), (Key{0u, 2147483747u}));
  EXPECT_EQ(rng::key_from_seed(2147483647ull + 101), (Key{0u, 2147483748u}));
  // np.iinfo(np.int32).min - 100 and - 101.
  EXPECT_EQ(rng::key_from_seed(static_cast<uint64_t>(int64_t{-2147483648} - 100)),
            (Key{4294967295u, 2147483548u}));
  EXPECT_EQ(rng::key_from_seed(static_cast<uint64_t>(int64_t{-2147483648} - 101)),
            (Key{4294967295u, 2147483547u}));
}

TEST(JaxKeys, SeedsX32) {
  // jax_enable_x64=False column (non-jit, where JAX accepts these seeds).
  EXPECT_EQ(rng::key_from_seed_x32(0), (Key{0u, 0u}));
  EXPECT_EQ(rng::key_from_seed_x32(1), (Key{0u, 1u}));
  EXPECT_EQ(rng::key_from_seed_x32(-1), (Key{0u, 4294967295u}));
  EXPECT_EQ(rng::key_from_seed_x32(-2), (Key{0u, 4294967294u}));
  EXPECT_EQ(rng::key_from_seed_x32(-3), (Key{0u, 4294967293u}));
  EXPECT_EQ(rng::key_from_seed_x32(int64_t{2147483647} + 100),
            (Key{0u, 2147483747u}));
  EXPECT_EQ(rng::key_from_seed_x32(int64_t{2147483647} + 101),
            (Key{0u, 2147483748u}));
  EXPECT_EQ(rng::key_from_seed_x32(int64_t{-2147483648} - 100),
            (Key{0u, 2147483548u}));
  EXPECT_EQ(rng::key_from_seed_x32(int64_t{-2147483648} - 101),
            (Key{0u, 2147483547u}));
}

// PrngTest.testPRNGValues: key_data(split(PRNGKey(0), 4)).
TEST(JaxKeys, SplitOfKeyZero) {
  const auto keys = rng::split(rng::key_from_seed(0), 4);
  ASSERT_EQ(keys.size(), 4u);
  EXPECT_EQ(keys[0], (Key{2285895361u, 1501764800u}));
  EXPECT_EQ(keys[1], (Key{1518642379u, 4090693311u}));
  EXPECT_EQ(keys[2], (Key{433833334u, 4221794875u}));
  EXPECT_EQ(keys[3], (Key{839183663u, 3740430601u}));
}

// PrngTest.testPRNGValues: key_data(fold_in(PRNGKey(0), 4)).
TEST(JaxKeys, FoldInOfKeyZero) {
  EXPECT_EQ(rng::fold_in(rng::key_from_seed(0), 4),
            (Key{2285895361u, 433833334u}));
}

// PrngTest.testPRNGValues: randint(PRNGKey(0), (3, 3), 0, 8, dtype).
TEST(JaxValues, RandintKeyZero) {
  std::vector<int32_t> i32(9);
  rng::randint_i32(rng::key_from_seed(0), 0, 8, i32.data(), 9);
  EXPECT_EQ(i32, (std::vector<int32_t>{2, 1, 3, 6, 1, 5, 6, 3, 4}));
  // int64 values, which JAX checks with jax_enable_x64=True.
  std::vector<int64_t> i64(9);
  rng::randint_i64(rng::key_from_seed(0), 0, 8, i64.data(), 9);
  EXPECT_EQ(i64, (std::vector<int64_t>{7, 2, 6, 2, 1, 0, 6, 7, 7}));
}

// PrngTest.testRngRandomBits: _random_bits(PRNGKey(1701), width, (3,)).
TEST(JaxValues, RandomBitsKey1701) {
  const Key key = rng::key_from_seed(1701);
  std::vector<uint8_t> b8(3);
  rng::random_bits8(key, b8.data(), 3);
  EXPECT_EQ(b8, (std::vector<uint8_t>{216, 115, 43}));
  std::vector<uint16_t> b16(3);
  rng::random_bits16(key, b16.data(), 3);
  EXPECT_EQ(b16, (std::vector<uint16_t>{41682, 1300, 55017}));
  std::vector<uint32_t> b32(3);
  rng::random_bits32(key, b32.data(), 3);
  EXPECT_EQ(b32, (std::vector<uint32_t>{56197195u, 4200222568u, 961309823u}));
  std::vector<uint64_t> b64(3);
  rng::random_bits64(key, b64.data(), 3);
  // jax_enable_x64=True.
  EXPECT_EQ(b64, (std::vector<uint64_t>{3982329540505020460ull,
                                        16822122385914693683ull,
                                        7882654074788531506ull}));
  // jax_enable_x64=False: JAX returns the same bits converted to uint32.
  const std::vector<uint32_t> low = {static_cast<uint32_t>(b64[0]),
                                     static_cast<uint32_t>(b64[1]),
                                     static_cast<uint32_t>(b64[2])};
  EXPECT_EQ(low, (std::vector<uint32_t>{676898860u, 3164047411u, 4010691890u}));
}

// The cases below are from _RANDOM_VALUES_CASES (testRandomDistributionValues).
// JAX seeds each case with PRNGKey(zlib.adler32((name + impl).encode())); the
// seeds written here are those Adler-32 checksums (all < 2^31, so the key is
// {0, seed} in either x64 mode).
constexpr uint64_t kSeedBits = 942802475;        // "bitsthreefry2x32"
constexpr uint64_t kSeedUniform = 1338574713;    // "uniformthreefry2x32"
constexpr uint64_t kSeedNormal = 1193674498;     // "normalthreefry2x32"
constexpr uint64_t kSeedRandint = 1319372649;    // "randintthreefry2x32"
constexpr uint64_t kSeedBernoulli = 1612777541;  // "bernoullithreefry2x32"

TEST(JaxValues, BitsCase) {
  const Key key = rng::key_from_seed(kSeedBits);
  std::vector<uint8_t> b8(5);
  rng::random_bits8(key, b8.data(), 5);
  EXPECT_EQ(b8, (std::vector<uint8_t>{10, 158, 82, 54, 158}));
  std::vector<uint16_t> b16(5);
  rng::random_bits16(key, b16.data(), 5);
  EXPECT_EQ(b16, (std::vector<uint16_t>{6738, 38161, 50695, 57337, 61600}));
  std::vector<uint32_t> b32(5);
  rng::random_bits32(key, b32.data(), 5);
  EXPECT_EQ(b32, (std::vector<uint32_t>{1978747883u, 4134381225u, 3628107870u,
                                        689687174u, 2788938207u}));
  std::vector<uint64_t> b64(5);  // on_x64=ONLY
  rng::random_bits64(key, b64.data(), 5);
  EXPECT_EQ(b64, (std::vector<uint64_t>{
                     17649965731882839947ull, 1415307058040849897ull,
                     8282622628079774249ull, 14024425113645909402ull,
                     2012979996110532418ull}));
}

TEST(JaxValues, UniformCase) {
  std::vector<float> u(5);
  rng::uniform_f32(rng::key_from_seed(kSeedUniform), 0.0f, 1.0f, u.data(), 5);
  ExpectCloseF32(u, {0.298671, 0.073213, 0.873356, 0.260549, 0.412797});
}

TEST(JaxValues, NormalCase) {
  std::vector<float> z(5);
  rng::normal_f32(rng::key_from_seed(kSeedNormal), z.data(), 5);
  ExpectCloseF32(z, {-1.173234, -1.511662, 0.070593, -0.099764, 1.052845});
}

TEST(JaxValues, RandintCase) {
  std::vector<int32_t> r(5);
  rng::randint_i32(rng::key_from_seed(kSeedRandint), 0, 10, r.data(), 5);
  EXPECT_EQ(r, (std::vector<int32_t>{0, 5, 7, 7, 5}));
}

TEST(JaxValues, BernoulliCase) {
  // p = 0.5, on_x64=SKIP (float32 p).
  bool b[5];
  rng::bernoulli(rng::key_from_seed(kSeedBernoulli), 0.5f, b, 5);
  EXPECT_FALSE(b[0]);
  EXPECT_TRUE(b[1]);
  EXPECT_TRUE(b[2]);
  EXPECT_TRUE(b[3]);
  EXPECT_FALSE(b[4]);
  uint8_t u8[5];
  rng::bernoulli(rng::key_from_seed(kSeedBernoulli), 0.5f, u8, 5);
  EXPECT_EQ(std::vector<uint8_t>(u8, u8 + 5),
            (std::vector<uint8_t>{0, 1, 1, 1, 0}));
}

// ---------------------------------------------------------------------------
// Partitionable layout (jax_threefry_partitionable=True, JAX's default since
// v0.5.0). Values from the jax.random module documentation,
// https://docs.jax.dev/en/latest/jax.random.html ("PRNG keys" section):
//   >>> key = random.key(0)
//   >>> random.uniform(key)                -> 0.947667
//   >>> key, subkey = random.split(key)
//   >>> random.uniform(subkey)             -> 0.00729382
// ---------------------------------------------------------------------------

TEST(JaxPartitionable, DocsUniform) {
  const Key key = rng::key_from_seed(0);
  float u = 0.0f;
  rng::uniform_f32(key, 0.0f, 1.0f, &u, 1, CounterLayout::kPartitionable);
  EXPECT_FLOAT_EQ(u, 0.947667f);
  const auto keys = rng::split(key, 2, CounterLayout::kPartitionable);
  rng::uniform_f32(keys[1], 0.0f, 1.0f, &u, 1, CounterLayout::kPartitionable);
  EXPECT_FLOAT_EQ(u, 0.00729382f);
}

// Property JAX tests in test_threefry_split_fold_in_symmetry: with the
// partitionable layout, split(key, 3)[i] == fold_in(key, i).
TEST(JaxPartitionable, SplitFoldInSymmetry) {
  const Key key = rng::key_from_seed(72);
  const auto keys = rng::split(key, 3, CounterLayout::kPartitionable);
  for (uint32_t i = 0; i < 3; ++i) EXPECT_EQ(keys[i], rng::fold_in(key, i));
}

TEST(JaxPartitionable, SamplersRespectLayout) {
  const Key key = rng::key_from_seed(5);
  std::vector<uint32_t> a(100), b(100);
  rng::random_bits32(key, a.data(), 100, CounterLayout::kOriginal);
  rng::random_bits32(key, b.data(), 100, CounterLayout::kPartitionable);
  EXPECT_NE(a, b);
  std::vector<int32_t> r(1000);
  rng::randint_i32(key, -3, 4, r.data(), r.size(), CounterLayout::kPartitionable);
  for (int32_t v : r) {
    EXPECT_GE(v, -3);
    EXPECT_LT(v, 4);
  }
}

// ---------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------

// Mirrors JAX's testRngRandomBitsViewProperty: the 8-, 16- and 32-bit
// streams (original layout) are views of the same words.
TEST(ThreefryProperties, RandomBitsViewProperty) {
  const Key key = rng::key_from_seed(1701);
  const size_t words = 20;
  std::vector<uint32_t> b32(words);
  std::vector<uint16_t> b16(2 * words);
  std::vector<uint8_t> b8(4 * words);
  rng::random_bits32(key, b32.data(), words);
  rng::random_bits16(key, b16.data(), 2 * words);
  rng::random_bits8(key, b8.data(), 4 * words);
  for (size_t i = 0; i < words; ++i) {
    EXPECT_EQ(static_cast<uint32_t>(b16[2 * i]) |
                  (static_cast<uint32_t>(b16[2 * i + 1]) << 16),
              b32[i]);
    EXPECT_EQ(static_cast<uint32_t>(b8[4 * i]) |
                  (static_cast<uint32_t>(b8[4 * i + 1]) << 8) |
                  (static_cast<uint32_t>(b8[4 * i + 2]) << 16) |
                  (static_cast<uint32_t>(b8[4 * i + 3]) << 24),
              b32[i]);
  }
}

TEST(ThreefryProperties, BitsAreDeterministicAndChunkingInvariant) {
  // Sizes around the internal chunk size, odd and even.
  for (size_t n : {0u, 1u, 2u, 255u, 256u, 257u, 511u, 512u, 513u, 1000u}) {
    for (auto layout : {CounterLayout::kOriginal, CounterLayout::kPartitionable}) {
      std::vector<uint32_t> a(n), b(n);
      rng::random_bits32(rng::key_from_seed(9), a.data(), n, layout);
      rng::random_bits32(rng::key_from_seed(9), b.data(), n, layout);
      EXPECT_EQ(a, b);
      // Original layout equals JAX's threefry_2x32(key, iota(n)).
      if (layout == CounterLayout::kOriginal) {
        std::vector<uint32_t> iota(n), c(n);
        std::iota(iota.begin(), iota.end(), 0u);
        rng::threefry2x32_array(rng::key_from_seed(9), iota.data(), c.data(), n);
        EXPECT_EQ(a, c) << "n=" << n;
      }
    }
  }
}

TEST(ThreefryProperties, UniformInRange) {
  const size_t n = 100000;
  std::vector<float> u(n);
  const std::array<std::array<float, 2>, 3> ranges = {
      {{0.0f, 1.0f}, {-2.0f, 3.0f}, {-1e-3f, 1e-3f}}};
  for (const auto& r : ranges) {
    rng::uniform_f32(rng::key_from_seed(123), r[0], r[1], u.data(), n);
    double sum = 0.0;
    for (float v : u) {
      ASSERT_GE(v, r[0]);
      ASSERT_LT(v, r[1]);
      sum += v;
    }
    const double mid = 0.5 * (static_cast<double>(r[0]) + r[1]);
    const double width = static_cast<double>(r[1]) - r[0];
    // sd of the mean of n uniforms is width / sqrt(12 n); allow 6 sd.
    EXPECT_NEAR(sum / n, mid, 6.0 * width / std::sqrt(12.0 * n));
  }
  std::vector<double> d(n);
  rng::uniform_f64(rng::key_from_seed(123), -1.0, 2.0, d.data(), n);
  for (double v : d) {
    ASSERT_GE(v, -1.0);
    ASSERT_LT(v, 2.0);
  }
}

TEST(ThreefryProperties, UniformFromBitsEndpoints) {
  EXPECT_EQ(rng::uniform_from_bits(0u, 0.0f, 1.0f), 0.0f);
  EXPECT_EQ(rng::uniform_from_bits(0xffffffffu, 0.0f, 1.0f),
            1.0f - std::ldexp(1.0f, -23));
  EXPECT_EQ(rng::uniform_from_bits(uint64_t{0}, 0.0, 1.0), 0.0);
  EXPECT_EQ(rng::uniform_from_bits(~uint64_t{0}, 0.0, 1.0),
            1.0 - std::ldexp(1.0, -52));
  EXPECT_EQ(rng::uniform_from_bits(0u, -3.0f, 5.0f), -3.0f);
}

template <class T>
void CheckNormalMoments(const std::vector<T>& z) {
  const double n = static_cast<double>(z.size());
  double sum = 0.0, sum2 = 0.0, sum4 = 0.0;
  for (T v : z) {
    ASSERT_TRUE(std::isfinite(v));
    sum += v;
  }
  const double mean = sum / n;
  for (T v : z) {
    const double c = v - mean;
    sum2 += c * c;
    sum4 += c * c * c * c;
  }
  const double var = sum2 / n;
  // mean ~ N(0, 1/n); var ~ N(1, 2/n); kurtosis 3 with sd ~ sqrt(24/n).
  EXPECT_NEAR(mean, 0.0, 6.0 / std::sqrt(n));
  EXPECT_NEAR(var, 1.0, 6.0 * std::sqrt(2.0 / n));
  EXPECT_NEAR(sum4 / n / (var * var), 3.0, 6.0 * std::sqrt(24.0 / n));
}

TEST(ThreefryProperties, NormalMoments) {
  const size_t n = 100000;
  for (auto layout : {CounterLayout::kOriginal, CounterLayout::kPartitionable}) {
    std::vector<float> z(n);
    rng::normal_f32(rng::key_from_seed(2024), z.data(), n, layout);
    CheckNormalMoments(z);
    std::vector<double> zd(n);
    rng::normal_f64(rng::key_from_seed(2024), zd.data(), n, layout);
    CheckNormalMoments(zd);
  }
}

TEST(ThreefryProperties, NormalFromExtremeBitsIsFinite) {
  EXPECT_TRUE(std::isfinite(rng::normal_from_bits(0u)));
  EXPECT_TRUE(std::isfinite(rng::normal_from_bits(0xffffffffu)));
  EXPECT_LT(rng::normal_from_bits(0u), -5.0f);
  EXPECT_TRUE(std::isfinite(rng::normal_from_bits(uint64_t{0})));
  EXPECT_TRUE(std::isfinite(rng::normal_from_bits(~uint64_t{0})));
  EXPECT_LT(rng::normal_from_bits(uint64_t{0}), -8.0);
}

TEST(ThreefryProperties, ErfinvInvertsErf) {
  for (int i = -999; i <= 999; ++i) {
    const double x = i / 1000.0;
    const float xf = static_cast<float>(x);
    EXPECT_NEAR(std::erf(static_cast<double>(rng::erfinv(xf))), xf,
                2e-6 + 2e-6 * std::fabs(xf))
        << x;
    EXPECT_NEAR(std::erf(rng::erfinv(x)), x, 1e-14) << x;
    EXPECT_EQ(rng::erfinv(-xf), -rng::erfinv(xf));
    EXPECT_EQ(rng::erfinv(-x), -rng::erfinv(x));
  }
  // Deep tail (the w >= 16 branch of the double approximation).
  for (double x : {1.0 - 1e-8, 1.0 - 1e-12, 1.0 - 1e-15}) {
    const double y = rng::erfinv(x);
    EXPECT_NEAR(std::erfc(y), 1.0 - x, 1e-6 * (1.0 - x)) << x;
  }
  EXPECT_EQ(rng::erfinv(0.0f), 0.0f);
  EXPECT_EQ(rng::erfinv(1.0f), std::numeric_limits<float>::infinity());
  EXPECT_EQ(rng::erfinv(-1.0), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(rng::erfinv(1.5f)));
}

TEST(ThreefryProperties, RandintInRange) {
  const size_t n = 100000;
  std::vector<int32_t> r(n);
  rng::randint_i32(rng::key_from_seed(77), -5, 7, r.data(), n);
  std::vector<size_t> counts(12, 0);
  for (int32_t v : r) {
    ASSERT_GE(v, -5);
    ASSERT_LT(v, 7);
    ++counts[static_cast<size_t>(v + 5)];
  }
  // Each of the 12 values has probability ~1/12; allow 6 sd.
  const double expect = n / 12.0;
  for (size_t c : counts) {
    EXPECT_NEAR(static_cast<double>(c), expect,
                6.0 * std::sqrt(expect * (11.0 / 12.0)));
  }
  // Full int32 range and a span above 2^16 (where JAX's multiplier wraps).
  rng::randint_i32(rng::key_from_seed(78), INT32_MIN, INT32_MAX, r.data(), n);
  for (int32_t v : r) ASSERT_LT(v, INT32_MAX);
  rng::randint_i32(rng::key_from_seed(79), 0, 1000000, r.data(), n);
  for (int32_t v : r) {
    ASSERT_GE(v, 0);
    ASSERT_LT(v, 1000000);
  }
  // Empty range returns lo (JAX issue #222 semantics).
  rng::randint_i32(rng::key_from_seed(80), 4, 4, r.data(), 100);
  for (size_t i = 0; i < 100; ++i) ASSERT_EQ(r[i], 4);
  rng::randint_i32(rng::key_from_seed(80), 4, -10, r.data(), 100);
  for (size_t i = 0; i < 100; ++i) ASSERT_EQ(r[i], 4);

  std::vector<int64_t> r64(n);
  const int64_t lo = -(int64_t{1} << 40), hi = (int64_t{1} << 40) + 3;
  rng::randint_i64(rng::key_from_seed(81), lo, hi, r64.data(), n);
  for (int64_t v : r64) {
    ASSERT_GE(v, lo);
    ASSERT_LT(v, hi);
  }
  rng::randint_i64(rng::key_from_seed(82), 10, 13, r64.data(), n);
  std::set<int64_t> seen(r64.begin(), r64.end());
  EXPECT_EQ(seen, (std::set<int64_t>{10, 11, 12}));
}

TEST(ThreefryProperties, BernoulliFrequency) {
  const size_t n = 100000;
  std::vector<uint8_t> b(n);
  for (float p : {0.1f, 0.5f, 0.9f}) {
    rng::bernoulli(rng::key_from_seed(5), p, b.data(), n);
    const double freq =
        std::accumulate(b.begin(), b.end(), 0.0) / static_cast<double>(n);
    EXPECT_NEAR(freq, p, 6.0 * std::sqrt(p * (1.0 - p) / n));
  }
  bool all[64];
  rng::bernoulli(rng::key_from_seed(5), 1.0f, all, 64);
  EXPECT_TRUE(std::all_of(all, all + 64, [](bool v) { return v; }));
  rng::bernoulli_f64(rng::key_from_seed(5), 0.0, all, 64);
  EXPECT_TRUE(std::none_of(all, all + 64, [](bool v) { return v; }));
}

TEST(ThreefryProperties, SplitKeysDistinct) {
  for (auto layout : {CounterLayout::kOriginal, CounterLayout::kPartitionable}) {
    const Key key = rng::key_from_seed(42);
    const auto keys = rng::split(key, 1000, layout);
    std::set<Key> unique(keys.begin(), keys.end());
    EXPECT_EQ(unique.size(), keys.size());
    EXPECT_EQ(unique.count(key), 0u);
    // split() is deterministic and split_into() agrees with it.
    std::vector<Key> again(1000);
    rng::split_into(key, again.data(), again.size(), layout);
    EXPECT_EQ(again, keys);
    EXPECT_TRUE(rng::split(key, 0, layout).empty());
  }
  // The two layouts only differ in how counters are assigned.
  EXPECT_NE(rng::split(rng::key_from_seed(42), 4, CounterLayout::kOriginal),
            rng::split(rng::key_from_seed(42), 4, CounterLayout::kPartitionable));
}

TEST(ThreefryProperties, FoldInDeterministic) {
  const Key key = rng::key_from_seed(7);
  EXPECT_EQ(rng::fold_in(key, 11), rng::fold_in(key, 11));
  EXPECT_NE(rng::fold_in(key, 11), rng::fold_in(key, 12));
  EXPECT_NE(rng::fold_in(key, 11), rng::fold_in(rng::key_from_seed(8), 11));
  std::set<Key> seen;
  for (uint32_t d = 0; d < 1000; ++d) seen.insert(rng::fold_in(key, d));
  EXPECT_EQ(seen.size(), 1000u);
}

}  // namespace
