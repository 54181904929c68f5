#include <gtest/gtest.h>

#include <tlaloc/tlaloc.hpp>

#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "support/expect_error.hpp"

namespace tl = tlaloc;

TEST(Tensor, CreationAndAccess) {
  tl::Tensor a = tl::tensor({1.f, 2.f, 3.f, 4.f}, {2, 2});
  EXPECT_EQ(a.shape(), (tl::Shape{2, 2}));
  EXPECT_EQ(a.dtype(), tl::DType::f32);
  EXPECT_EQ(a.rank(), 2);
  EXPECT_EQ(a.numel(), 4);
  EXPECT_EQ(a.size(-1), 2);
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(a.to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 2, 3, 4}));
  tl::Tensor d = tl::tensor(std::vector<double>{0.5}, {});
  EXPECT_EQ(d.dtype(), tl::DType::f64);
  EXPECT_EQ(d.rank(), 0);
  EXPECT_DOUBLE_EQ(d.item<double>(), 0.5);
  EXPECT_EQ(tl::tensor(std::vector<std::int32_t>{1, 2}).dtype(), tl::DType::i32);
  EXPECT_EQ(tl::tensor(std::vector<bool>{true, false}).to_vector<bool>(), (std::vector<bool>{true, false}));
}

// A brace list alone is 1-D, its dtype the elements' (a list of doubles once picked the
// std::vector<bool> overload and did not compile).
TEST(Tensor, BraceListsAreOneDimensional) {
  const tl::Tensor d = tl::tensor({0.5, -1.0, 2.0});
  EXPECT_EQ(d.shape(), (tl::Shape{3}));
  EXPECT_EQ(d.dtype(), tl::DType::f64);
  EXPECT_EQ(d.to_vector<double>(), (std::vector<double>{0.5, -1.0, 2.0}));
  const tl::Tensor f = tl::tensor({1.5f, 2.f});
  EXPECT_EQ(f.dtype(), tl::DType::f32);
  EXPECT_EQ(f.to_vector<float>(), (std::vector<float>{1.5f, 2.f}));
  const tl::Tensor b = tl::tensor({true, false, true});
  EXPECT_EQ(b.dtype(), tl::DType::boolean);
  EXPECT_EQ(b.to_vector<bool>(), (std::vector<bool>{true, false, true}));
}

// Functions that would not change their argument return it (generated gradients rely
// on it to add cotangents in the engine's order); any other result is a new tensor.
TEST(Tensor, IsSameTellsWhetherAFunctionReturnedItsArgument) {
  const tl::Tensor x = tl::ones({2, 3});
  const tl::Tensor copy = x;
  EXPECT_TRUE(copy.is_same(x));
  EXPECT_TRUE(tl::reshape(x, {2, 3}).is_same(x));
  EXPECT_TRUE(x.astype(tl::DType::f32).is_same(x));
  EXPECT_TRUE(tl::broadcast_to(x, {2, 3}).is_same(x));
  EXPECT_TRUE(tl::transpose(x, {0, 1}).is_same(x));
  EXPECT_FALSE(tl::reshape(x, {3, 2}).is_same(x));
  EXPECT_FALSE(x.astype(tl::DType::f64).is_same(x));
  EXPECT_FALSE(tl::ones({2, 3}).is_same(x));
  EXPECT_FALSE(tl::Tensor().is_same(x));
  EXPECT_TRUE(tl::Tensor().is_same(tl::Tensor()));
}

TEST(Tensor, Factories) {
  EXPECT_EQ(tl::zeros({2, 3}).to_vector<float>(), std::vector<float>(6, 0.f));
  EXPECT_EQ(tl::ones({2}, tl::DType::i8).to_vector<int>(), (std::vector<int>{1, 1}));
  EXPECT_EQ(tl::full({3}, 2.5).dtype(), tl::DType::f32);
  EXPECT_EQ(tl::full({3}, 7).dtype(), tl::DType::i64);
  EXPECT_EQ(tl::full({3}, true).dtype(), tl::DType::boolean);
  EXPECT_EQ(tl::arange(5).to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(tl::arange(5).dtype(), tl::DType::i64);
  EXPECT_EQ(tl::arange(1.0, 2.0, 0.25).to_vector<float>(), (std::vector<float>{1, 1.25, 1.5, 1.75}));
  EXPECT_EQ(tl::arange(5, 0, -2).to_vector<int>(), (std::vector<int>{5, 3, 1}));
  EXPECT_EQ(tl::arange(3, 3).numel(), 0);
  EXPECT_EQ(tl::linspace(0, 1, 5).to_vector<float>(), (std::vector<float>{0, 0.25, 0.5, 0.75, 1}));
  EXPECT_EQ(tl::linspace(0, 1, 1).to_vector<float>(), (std::vector<float>{0}));
  EXPECT_EQ(tl::eye(2, 3, 1).to_vector<float>(), (std::vector<float>{0, 1, 0, 0, 0, 1}));
  auto x = tl::tensor({1.0, 2.0}, {2});
  EXPECT_EQ(tl::zeros_like(x).dtype(), tl::DType::f64);
  EXPECT_EQ(tl::ones_like(x, tl::DType::i32).to_vector<int>(), (std::vector<int>{1, 1}));
  EXPECT_EQ(tl::full_like(x, 3).to_vector<double>(), (std::vector<double>{3, 3}));
  EXPECT_EQ(tl::zeros({0, 3}).numel(), 0);
}

TEST(Tensor, HalfPrecisionRoundTrip) {
  // Values exactly representable in both 16-bit formats survive; others round to nearest even.
  EXPECT_EQ(float(tl::bf16(1.0f)), 1.0f);
  EXPECT_EQ(float(tl::f16(0.5f)), 0.5f);
  EXPECT_EQ(float(tl::f16(65504.f)), 65504.f);
  EXPECT_TRUE(std::isinf(float(tl::f16(70000.f))));
  EXPECT_EQ(float(tl::f16(5.9604644775390625e-08f)), 5.9604644775390625e-08f);  // smallest subnormal
  EXPECT_EQ(float(tl::f16(1.0f + 1.0f / 4096)), 1.0f);                           // ties to even
  EXPECT_EQ(float(tl::bf16(1.0f + 1.0f / 256)), 1.0f);                           // ties to even
  EXPECT_EQ(float(tl::bf16(1.0f + 3.0f / 256)), 1.0f + 4.0f / 256);
  EXPECT_TRUE(std::isnan(float(tl::bf16(std::numeric_limits<float>::quiet_NaN()))));
  auto h = tl::tensor({0.1f, 2.f}, {2}).astype(tl::DType::f16);
  EXPECT_EQ(h.dtype(), tl::DType::f16);
  EXPECT_NEAR(h.to_vector<float>()[0], 0.1f, 1e-4);
}

TEST(Tensor, Casts) {
  auto x = tl::tensor({-1.7f, 0.f, 2.5f, 300.f}, {4});
  EXPECT_EQ(x.astype(tl::DType::i32).to_vector<int>(), (std::vector<int>{-1, 0, 2, 300}));
  EXPECT_EQ(x.astype(tl::DType::boolean).to_vector<bool>(), (std::vector<bool>{true, false, true, true}));
  // Out-of-range and NaN conversions to integers saturate / give 0 (no undefined behaviour).
  auto big = tl::tensor({1e20f, -1e20f, std::numeric_limits<float>::quiet_NaN()}, {3});
  EXPECT_EQ(big.astype(tl::DType::i8).to_vector<int>(), (std::vector<int>{127, -128, 0}));
  // Integer to integer wraps, as StableHLO's convert.
  EXPECT_EQ(tl::tensor(std::vector<std::int32_t>{256 + 7, -1}).astype(tl::DType::u8).to_vector<int>(),
            (std::vector<int>{7, 255}));
}

TEST(Tensor, Promotion) {
  using D = tl::DType;
  EXPECT_EQ(tl::promote_types(D::boolean, D::u8), D::u8);
  EXPECT_EQ(tl::promote_types(D::u8, D::i8), D::i16);
  EXPECT_EQ(tl::promote_types(D::i8, D::i64), D::i64);
  EXPECT_EQ(tl::promote_types(D::i64, D::f16), D::f16);
  EXPECT_EQ(tl::promote_types(D::f16, D::bf16), D::f32);
  EXPECT_EQ(tl::promote_types(D::bf16, D::f32), D::f32);
  EXPECT_EQ(tl::promote_types(D::f32, D::f64), D::f64);
  // Weak scalars: a C++ number adopts the tensor's dtype unless its kind is higher.
  auto i = tl::tensor(std::vector<std::int32_t>{1, 2});
  EXPECT_EQ((i + 1).dtype(), D::i32);
  EXPECT_EQ((i + 1.5).dtype(), D::f32);
  EXPECT_EQ((tl::ones({2}, D::f16) * 2.0).dtype(), D::f16);
  EXPECT_EQ((tl::ones({2}, D::boolean) + 1).dtype(), D::i64);
  EXPECT_EQ((i + tl::ones({2}, D::f64)).dtype(), D::f64);
  EXPECT_EQ((i / i).dtype(), D::f32);
}

// Every ordered pair against a table worked out by hand from docs/DTYPES.md:
// bool < integers < floating; same signedness gives the wider; unsigned with signed
// the smallest signed type holding both; u64 with signed has none ("--").
TEST(Tensor, PromotionTableEveryPair) {
  using D = tl::DType;
  const std::vector<std::pair<std::string, D>> names = {
      {"f32", D::f32}, {"f64", D::f64}, {"bf16", D::bf16},   {"f16", D::f16}, {"i8", D::i8},
      {"i16", D::i16}, {"i32", D::i32}, {"i64", D::i64},     {"u8", D::u8},   {"u16", D::u16},
      {"u32", D::u32}, {"u64", D::u64}, {"bool", D::boolean}};
  // Rows and columns in the order of `names`: f32 f64 bf16 f16 i8 i16 i32 i64 u8 u16 u32 u64 bool.
  const std::vector<std::vector<std::string>> table = {
      {"f32", "f64", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32"},
      {"f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64"},
      {"f32", "f64", "bf16", "f32", "bf16", "bf16", "bf16", "bf16", "bf16", "bf16", "bf16", "bf16", "bf16"},
      {"f32", "f64", "f32", "f16", "f16", "f16", "f16", "f16", "f16", "f16", "f16", "f16", "f16"},
      {"f32", "f64", "bf16", "f16", "i8", "i16", "i32", "i64", "i16", "i32", "i64", "--", "i8"},
      {"f32", "f64", "bf16", "f16", "i16", "i16", "i32", "i64", "i16", "i32", "i64", "--", "i16"},
      {"f32", "f64", "bf16", "f16", "i32", "i32", "i32", "i64", "i32", "i32", "i64", "--", "i32"},
      {"f32", "f64", "bf16", "f16", "i64", "i64", "i64", "i64", "i64", "i64", "i64", "--", "i64"},
      {"f32", "f64", "bf16", "f16", "i16", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "u8"},
      {"f32", "f64", "bf16", "f16", "i32", "i32", "i32", "i64", "u16", "u16", "u32", "u64", "u16"},
      {"f32", "f64", "bf16", "f16", "i64", "i64", "i64", "i64", "u32", "u32", "u32", "u64", "u32"},
      {"f32", "f64", "bf16", "f16", "--", "--", "--", "--", "u64", "u64", "u64", "u64", "u64"},
      {"f32", "f64", "bf16", "f16", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "bool"},
  };
  ASSERT_EQ(names.size(), std::size(tl::all_dtypes));
  for (std::size_t r = 0; r < names.size(); ++r) {
    for (std::size_t c = 0; c < names.size(); ++c) {
      const std::string& a = names[r].first;
      const std::string& b = names[c].first;
      const D ta = names[r].second, tb = names[c].second;
      const std::string& want = table[r][c];
      if (want == "--") {
        tltest::expect_error<tl::DTypeError>([&] { tl::promote_types(ta, tb); }, "promote_types", a, b);
        continue;
      }
      D got{};
      ASSERT_NO_THROW(got = tl::promote_types(ta, tb)) << a << " with " << b;
      EXPECT_EQ(tl::dtype_name(got), want) << a << " with " << b;
    }
  }
}

// A pair without a common dtype is refused by the op that meets it, naming both.
TEST(Tensor, U64WithSignedIsRefusedByTheOp) {
  using D = tl::DType;
  const auto u = tl::ones({2}, D::u64), s = tl::ones({2}, D::i32);
  tltest::expect_error<tl::DTypeError>([&] { tl::add(u, s); }, "add", "u64", "i32");
  tltest::expect_error<tl::DTypeError>([&] { tl::lt(s, u); }, "lt", "i32", "u64");
  tltest::expect_error<tl::DTypeError>([&] { tl::where(tl::ones({2}, D::boolean), u, s); }, "where", "u64");
  tltest::expect_error<tl::DTypeError>(
      [&] {
        tl::matmul(tl::ones({2, 2}, D::i8), tl::ones({2, 2}, D::u64));
      },
      "matmul", "i8", "u64");
  tltest::expect_error<tl::DTypeError>([&] { tl::concat({u, s}, 0); }, "concat", "u64", "i32");
  // Unsigned with unsigned, and weak C++ numbers, still work: -1 wraps to 2^64 - 1.
  EXPECT_EQ((u + tl::ones({2}, D::u8)).dtype(), D::u64);
  EXPECT_EQ((u + -1).to_vector<std::uint64_t>(), (std::vector<std::uint64_t>{0, 0}));
  EXPECT_EQ((u * 2.5).dtype(), D::f32);
}

// The new integer types under weak scalars keep their dtype.
TEST(Tensor, WeakScalarsWithNewIntegerTypes) {
  using D = tl::DType;
  for (D t : {D::i16, D::u16, D::u32, D::u64}) {
    EXPECT_EQ((tl::ones({2}, t) + 1).dtype(), t) << tl::dtype_name(t);
    EXPECT_EQ((tl::ones({2}, t) * true).dtype(), t) << tl::dtype_name(t);
    EXPECT_EQ((tl::ones({2}, t) + 1.0).dtype(), D::f32) << tl::dtype_name(t);
    EXPECT_EQ(tl::where(tl::ones({2}, D::boolean), tl::ones({2}, t), 0).dtype(), t) << tl::dtype_name(t);
  }
}

TEST(Tensor, NewIntegerTypesDescribeThemselves) {
  using D = tl::DType;
  EXPECT_EQ(tl::dtype_name(D::i16), "i16");
  EXPECT_EQ(tl::dtype_name(D::u16), "u16");
  EXPECT_EQ(tl::dtype_name(D::u32), "u32");
  EXPECT_EQ(tl::dtype_name(D::u64), "u64");
  EXPECT_EQ(tl::itemsize(D::i16), 2u);
  EXPECT_EQ(tl::itemsize(D::u16), 2u);
  EXPECT_EQ(tl::itemsize(D::u32), 4u);
  EXPECT_EQ(tl::itemsize(D::u64), 8u);
  for (D t : {D::u8, D::u16, D::u32, D::u64}) {
    EXPECT_TRUE(tl::is_unsigned(t));
    EXPECT_TRUE(tl::is_integral(t));
  }
  for (D t : {D::i8, D::i16, D::i32, D::i64, D::boolean, D::f32, D::bf16}) EXPECT_FALSE(tl::is_unsigned(t));
  EXPECT_TRUE(tl::is_integral(D::i16));
  EXPECT_FALSE(tl::is_integral(D::boolean));
  EXPECT_EQ(tl::dtype_v<std::int16_t>, D::i16);
  EXPECT_EQ(tl::dtype_v<std::uint16_t>, D::u16);
  EXPECT_EQ(tl::dtype_v<std::uint32_t>, D::u32);
  EXPECT_EQ(tl::dtype_v<std::uint64_t>, D::u64);
  // Existing enumerators keep their numbers (serialized dtypes stay readable).
  EXPECT_EQ(int(D::boolean), 8);
  EXPECT_EQ(int(D::i16), 9);
  EXPECT_EQ(int(D::u64), 12);
}

TEST(Tensor, NewIntegerTypesCreateAndRead) {
  const std::uint64_t big = std::numeric_limits<std::uint64_t>::max();
  const auto u64 = tl::tensor(std::vector<std::uint64_t>{big, 1, 0}, {3});
  EXPECT_EQ(u64.dtype(), tl::DType::u64);
  EXPECT_EQ(u64.to_vector<std::uint64_t>(), (std::vector<std::uint64_t>{big, 1, 0}));
  EXPECT_EQ(u64.data<std::uint64_t>()[0], big);
  EXPECT_EQ(tl::reshape(tl::slice(u64, {0}, {1}), {}).item<std::uint64_t>(), big);
  const auto u32 = tl::tensor(std::vector<std::uint32_t>{4294967295u, 7}, {2});
  EXPECT_EQ(u32.dtype(), tl::DType::u32);
  EXPECT_EQ(u32.to_vector<std::int64_t>(), (std::vector<std::int64_t>{4294967295, 7}));
  const auto u16 = tl::tensor(std::vector<std::uint16_t>{65535, 3});
  EXPECT_EQ(u16.dtype(), tl::DType::u16);
  EXPECT_EQ(u16.to_vector<std::uint16_t>(), (std::vector<std::uint16_t>{65535, 3}));
  const auto i16 = tl::tensor(std::vector<std::int16_t>{-32768, 32767});
  EXPECT_EQ(i16.dtype(), tl::DType::i16);
  EXPECT_EQ(i16.to_vector<double>(), (std::vector<double>{-32768, 32767}));
  EXPECT_EQ(tl::full({}, 5, tl::DType::u32).item<std::uint32_t>(), 5u);
  EXPECT_EQ(tl::arange(0, 3, 1, tl::DType::u16).to_vector<int>(), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(tl::eye(2, 2, 0, tl::DType::i16).to_vector<int>(), (std::vector<int>{1, 0, 0, 1}));
  EXPECT_THROW(u32.data<std::int32_t>(), tl::DTypeError);
}

// Float to integer truncates toward zero, saturates, and maps NaN to 0; integer to
// integer wraps (docs/DTYPES.md).
TEST(Tensor, CastsToAndFromNewIntegerTypes) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto f = tl::tensor({-1.5f, -0.5f, 3.9f, 4294967296.f, 1e30f, nan}, {6});
  EXPECT_EQ(f.astype(tl::DType::u32).to_vector<std::uint32_t>(),
            (std::vector<std::uint32_t>{0, 0, 3, 4294967295u, 4294967295u, 0}));
  EXPECT_EQ(f.astype(tl::DType::u16).to_vector<std::uint16_t>(),
            (std::vector<std::uint16_t>{0, 0, 3, 65535, 65535, 0}));
  EXPECT_EQ(f.astype(tl::DType::i16).to_vector<std::int16_t>(),
            (std::vector<std::int16_t>{-1, 0, 3, 32767, 32767, 0}));
  const auto d = tl::tensor({-1e30, 9223372036854775808.0, 1e20, 12345.75}, {4});
  EXPECT_EQ(d.astype(tl::DType::u64).to_vector<std::uint64_t>(),
            (std::vector<std::uint64_t>{0, 9223372036854775808ull, 18446744073709551615ull, 12345}));
  EXPECT_EQ(tl::tensor({-40000.f}, {1}).astype(tl::DType::i16).item<std::int16_t>(), -32768);
  // Integer to integer wraps (two's complement).
  EXPECT_EQ(
      tl::tensor(std::vector<std::int32_t>{-1, 65537}).astype(tl::DType::u32).to_vector<std::uint32_t>(),
      (std::vector<std::uint32_t>{4294967295u, 65537}));
  EXPECT_EQ(
      tl::tensor(std::vector<std::int32_t>{-1, 65537}).astype(tl::DType::u16).to_vector<std::uint16_t>(),
      (std::vector<std::uint16_t>{65535, 1}));
  EXPECT_EQ(tl::tensor(std::vector<std::uint64_t>{18446744073709551615ull, 32768})
                .astype(tl::DType::i16)
                .to_vector<std::int16_t>(),
            (std::vector<std::int16_t>{-1, -32768}));
  EXPECT_EQ(tl::tensor(std::vector<std::int8_t>{-2}).astype(tl::DType::u64).item<std::uint64_t>(),
            18446744073709551614ull);
  // To floating: the nearest value (2^32 - 1 rounds to 2^32 in f32).
  EXPECT_EQ(tl::tensor(std::vector<std::uint32_t>{4294967295u}).astype(tl::DType::f32).item<float>(),
            4294967296.f);
  EXPECT_EQ(tl::tensor(std::vector<std::uint64_t>{1ull << 63}).astype(tl::DType::f64).item<double>(),
            9223372036854775808.0);
  EXPECT_EQ(tl::tensor(std::vector<std::uint16_t>{0, 2}).astype(tl::DType::boolean).to_vector<bool>(),
            (std::vector<bool>{false, true}));
}

TEST(Tensor, Printing) {
  EXPECT_EQ(tl::tensor({1.f, 2.5f, -3.f, 4.f}, {2, 2}).to_string(),
            "tensor([[1., 2.5],\n        [-3., 4.]], dtype=f32)");
  EXPECT_EQ(tl::arange(3).to_string(), "tensor([0, 1, 2], dtype=i64)");
  EXPECT_EQ(tl::arange(10).to_string(), "tensor([0, 1, 2, ..., 7, 8, 9], dtype=i64)");
  EXPECT_EQ(tl::full({}, true).to_string(), "tensor(true, dtype=bool)");
  EXPECT_EQ(tl::zeros({0}).to_string(), "tensor([], dtype=f32)");
  EXPECT_EQ(tl::tensor(std::vector<std::uint64_t>{18446744073709551615ull, 0}).to_string(),
            "tensor([18446744073709551615, 0], dtype=u64)");
  EXPECT_EQ(tl::tensor(std::vector<std::uint32_t>{4294967295u}).to_string(),
            "tensor([4294967295], dtype=u32)");
  EXPECT_EQ(tl::tensor(std::vector<std::int16_t>{-32768, 7}).to_string(), "tensor([-32768, 7], dtype=i16)");
  EXPECT_EQ(tl::full({}, 65535, tl::DType::u16).to_string(), "tensor(65535, dtype=u16)");
}

// randint draws i8, i32, i64 and u8; other integer dtypes are refused by name.
TEST(Tensor, RandintRefusesTypesItCannotDraw) {
  const auto k = tl::random::key(0);
  for (tl::DType t : {tl::DType::i16, tl::DType::u16, tl::DType::u32, tl::DType::u64, tl::DType::f32})
    tltest::expect_error<tl::DTypeError>([&] { tl::random::randint(k, {2}, 0, 5, t); }, "random::randint",
                                         std::string(tl::dtype_name(t)));
  EXPECT_EQ(tl::random::randint(k, {2}, 0, 5, tl::DType::u8).dtype(), tl::DType::u8);
}

TEST(Tensor, Allclose) {
  auto a = tl::tensor({1.0, 2.0}, {2});
  EXPECT_TRUE(tl::allclose(a, tl::tensor({1.0 + 1e-9, 2.0}, {2})));
  EXPECT_FALSE(tl::allclose(a, tl::tensor({1.1, 2.0}, {2})));
  EXPECT_TRUE(tl::allclose(a, tl::tensor({1.1, 2.0}, {2}), 0.0, 0.2));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(tl::allclose(tl::tensor({nan}, {1}), tl::tensor({nan}, {1})));
  EXPECT_TRUE(tl::allclose(tl::tensor({nan}, {1}), tl::tensor({nan}, {1}), 1e-5, 1e-8, true));
  EXPECT_TRUE(tl::allclose(tl::full({2}, INFINITY), tl::full({2}, INFINITY)));
}

// Freed buffers of 16 KB and more are handed out again (src/core/tensor.cpp): fresh
// memory costs a page fault per page on first touch, and glibc hands buffers of a
// few hundred KB back to the kernel (docs/PERFORMANCE.md, "Build-time gradients").
TEST(Tensor, FreedBuffersOf16KBAndMoreAreReused) {
  for (const std::int64_t n : {4096, 128 * 1024, 512 * 1024, 3 * 512 * 1024}) {  // f32: 16 KB to 6 MB
    const void* freed = nullptr;
    {
      const tl::Tensor a = tl::zeros({n});
      freed = a.raw_data();
    }
    const tl::Tensor b = tl::ones({n});
    EXPECT_EQ(b.raw_data(), freed) << n << " floats";
    EXPECT_EQ(tl::sum(b).item<double>(), double(n));
  }
}

TEST(TensorErrors, BadInput) {
  EXPECT_THROW(tl::tensor({1.f, 2.f}, {3}), tl::ShapeError);
  EXPECT_THROW(tl::zeros({-1}), tl::ValueError);
  EXPECT_THROW(tl::arange(0, 1, 0), tl::ValueError);
  auto a = tl::tensor({1.f, 2.f}, {2});
  EXPECT_THROW(a.item<float>(), tl::ShapeError);
  EXPECT_THROW(a.data<double>(), tl::DTypeError);
  EXPECT_THROW(a.size(2), tl::AxisError);
  tl::Tensor undefined;
  EXPECT_THROW(undefined.shape(), tl::ValueError);
  EXPECT_THROW(tl::exp(undefined), tl::ValueError);
  try {
    a.data<double>();
  } catch (const tl::Error& e) {
    EXPECT_NE(std::string(e.what()).find("f32"), std::string::npos) << e.what();
  }
}
