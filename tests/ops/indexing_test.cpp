// Tests for take, take_along_axis, scatter_add and index_add. Expected values are
// literals worked out by hand or naive index loops written here.
#include <gtest/gtest.h>

#include "support/expect_error.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "tlaloc/ops.hpp"

namespace tl = tlaloc;

namespace {

using tltest::expect_error;

using Ints = std::vector<std::int64_t>;

// Indices may have any integer dtype, as in JAX.
constexpr tl::DType kIndexTypes[] = {tl::DType::i8, tl::DType::i16, tl::DType::i32, tl::DType::i64,
                                     tl::DType::u8, tl::DType::u16, tl::DType::u32, tl::DType::u64};

tl::Tensor seq(const tl::Shape& shape, tl::DType t, double offset = 0) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = t == tl::DType::boolean ? double((i + std::size_t(offset)) % 2) : double(i % 50) + offset;
  return tl::tensor(v, shape).astype(t);
}
tl::Tensor ints(const Ints& v, const tl::Shape& shape, tl::DType t = tl::DType::i64) {
  return tl::tensor(v, shape).astype(t);
}


std::vector<double> vals(const tl::Tensor& t) { return t.to_vector<double>(); }

// ---- take ------------------------------------------------------------------------------------

TEST(IndexingTake, Literal) {
  const auto x = tl::tensor({10.f, 11.f, 12.f, 13.f}, {4});
  EXPECT_EQ(vals(tl::take(x, ints({3, 0, -1, 1}, {4}))), (std::vector<double>{13, 10, 13, 11}));
  const auto m = tl::reshape(tl::arange(6), {2, 3});
  const auto rows = tl::take(m, ints({1, 1, 0, 1}, {2, 2}), 0);
  EXPECT_EQ(rows.shape(), (tl::Shape{2, 2, 3}));
  EXPECT_EQ(vals(rows), (std::vector<double>{3, 4, 5, 3, 4, 5, 0, 1, 2, 3, 4, 5}));
  const auto cols = tl::take(m, ints({2, -3}, {2}), -1);
  EXPECT_EQ(cols.shape(), (tl::Shape{2, 2}));
  EXPECT_EQ(vals(cols), (std::vector<double>{2, 0, 5, 3}));
  const auto one = tl::take(m, ints({1}, {}), 1);  // a rank-0 index drops the axis
  EXPECT_EQ(one.shape(), (tl::Shape{2}));
  EXPECT_EQ(vals(one), (std::vector<double>{1, 4}));
}

// out[a, j, b] = x[a, idx[j], b] for every element dtype and index dtype.
TEST(IndexingTake, MatchesNaiveLoopEveryDType) {
  const std::vector<std::int64_t> idx{2, 0, -1, 3, 1, 2};
  for (tl::DType t : tl::all_dtypes) {
    for (tl::DType it : kIndexTypes) {
      const auto x = seq({2, 4, 3}, t);
      std::vector<std::int64_t> iv = idx;
      if (tl::is_unsigned(it)) iv[2] = 3;  // no negative unsigned indices
      const auto y = tl::take(x, ints(iv, {3, 2}, it), 1);
      ASSERT_EQ(y.shape(), (tl::Shape{2, 3, 2, 3}));
      ASSERT_EQ(y.dtype(), t);
      const auto vx = vals(x), vy = vals(y);
      for (std::size_t a = 0; a < 2; ++a)
        for (std::size_t j = 0; j < 6; ++j)
          for (std::size_t b = 0; b < 3; ++b) {
            const auto k = std::size_t(iv[j] < 0 ? iv[j] + 4 : iv[j]);
            EXPECT_EQ(vy[(a * 6 + j) * 3 + b], vx[(a * 4 + k) * 3 + b])
                << tl::dtype_name(t) << tl::dtype_name(it);
          }
    }
  }
}

TEST(IndexingTake, EmptyAndLarge) {
  const auto x = seq({5, 2}, tl::DType::f32);
  EXPECT_EQ(tl::take(x, ints({}, {0}), 0).shape(), (tl::Shape{0, 2}));
  EXPECT_EQ(tl::take(tl::zeros({0, 3}), ints({2}, {1}), 1).shape(), (tl::Shape{0, 1}));
  // Flat and row gathers big enough to be split across threads.
  const std::int64_t n = 1000, m = 100000;
  std::vector<std::int64_t> iv(static_cast<std::size_t>(m));
  for (std::size_t i = 0; i < iv.size(); ++i) iv[i] = std::int64_t((i * 7919) % std::size_t(n)) - 500;
  const auto src = seq({n}, tl::DType::f64);
  const auto got = vals(tl::take(src, ints(iv, {m}, tl::DType::i32)));
  const auto vs = vals(src);
  for (std::size_t i = 0; i < iv.size(); ++i)
    ASSERT_EQ(got[i], vs[std::size_t(iv[i] < 0 ? iv[i] + n : iv[i])]);
  const auto rows = seq({n, 40}, tl::DType::f32);
  const auto vr = vals(rows);
  const auto gr =
      vals(tl::take(rows, ints(std::vector<std::int64_t>(iv.begin(), iv.begin() + 5000), {5000}), 0));
  for (std::size_t i = 0; i < 5000; ++i)
    for (std::size_t j = 0; j < 40; ++j)
      ASSERT_EQ(gr[i * 40 + j], vr[std::size_t(iv[i] < 0 ? iv[i] + n : iv[i]) * 40 + j]);
}

TEST(IndexingTake, BadInputs) {
  const auto x = tl::zeros({3, 4});
  expect_error<tl::AxisError>([&] { tl::take(x, ints({0, 4}, {2}), 1); }, "take", "index 4");
  expect_error<tl::AxisError>([&] { tl::take(x, ints({-4}, {1}), 0); }, "take", "size 3");
  expect_error<tl::AxisError>([&] { tl::take(x, ints({0}, {1}), 2); }, "take");
  expect_error<tl::AxisError>([] { tl::take(tl::zeros({}), ints({0}, {1})); }, "take");
  expect_error<tl::AxisError>([] { tl::take(tl::zeros({0}), ints({0}, {1})); }, "take");
  expect_error<tl::DTypeError>([&] { tl::take(x, tl::tensor({0.f}, {1})); }, "take");
  expect_error<tl::DTypeError>([&] { tl::take(x, tl::tensor(std::vector<bool>{true})); }, "take");
}

// An unsigned index is never negative: its largest values are out of range, not
// counted from the end, and the message shows the value as it is.
TEST(IndexingTake, LargeUnsignedIndicesAreOutOfRange) {
  const auto x = tl::tensor({10.f, 11.f, 12.f}, {3});
  const auto u64 = tl::tensor(std::vector<std::uint64_t>{0, 18446744073709551615ull});
  expect_error<tl::AxisError>([&] { tl::take(x, u64); }, "take", "index 18446744073709551615");
  const auto u32 = tl::tensor(std::vector<std::uint32_t>{4294967295u});
  expect_error<tl::AxisError>([&] { tl::take(x, u32); }, "take", "index 4294967295");
  expect_error<tl::AxisError>(
      [&] {
        tl::embedding(tl::reshape(x, {3, 1}), u64);
      },
      "embedding", "index 18446744073709551615");
  expect_error<tl::AxisError>([&] { tl::index_add(x, u32, tl::ones({1}), 0); }, "index_add",
                              "index 4294967295");
  EXPECT_EQ(vals(tl::take(x, tl::tensor(std::vector<std::uint64_t>{2, 0}))), (std::vector<double>{12, 10}));
  EXPECT_EQ(vals(tl::take(x, tl::tensor(std::vector<std::int16_t>{-1, -3}))), (std::vector<double>{12, 10}));
  EXPECT_EQ(vals(tl::take(x, tl::tensor(std::vector<std::uint16_t>{1}))), (std::vector<double>{11}));
}

// ---- take_along_axis -------------------------------------------------------------------------

TEST(IndexingTakeAlongAxis, Literal) {
  const auto x = tl::tensor({5.f, 1.f, 3.f, 2.f, 9.f, 4.f}, {2, 3});
  const auto y = tl::take_along_axis(x, ints({1, 2, 0, 0, 2, 1}, {2, 3}), 1);
  EXPECT_EQ(vals(y), (std::vector<double>{1, 3, 5, 2, 4, 9}));
  const auto z = tl::take_along_axis(x, ints({1, -2, 0}, {1, 3}), 0);
  EXPECT_EQ(z.shape(), (tl::Shape{1, 3}));
  EXPECT_EQ(vals(z), (std::vector<double>{2, 1, 3}));
  // Indices [1, 2] broadcast against x's 2 rows.
  const auto b = tl::take_along_axis(x, ints({2, 0}, {1, 2}), 1);
  EXPECT_EQ(b.shape(), (tl::Shape{2, 2}));
  EXPECT_EQ(vals(b), (std::vector<double>{3, 5, 4, 2}));
}

TEST(IndexingTakeAlongAxis, MatchesNaiveLoopEveryDType) {
  const tl::Shape xs{3, 4, 2}, is{3, 5, 2};
  std::vector<std::int64_t> iv(30);
  for (std::size_t i = 0; i < iv.size(); ++i) iv[i] = std::int64_t((i * 5) % 4);
  for (tl::DType t : tl::all_dtypes) {
    for (tl::DType it : kIndexTypes) {
      const auto x = seq(xs, t);
      const auto y = tl::take_along_axis(x, ints(iv, is, it), 1);
      ASSERT_EQ(y.shape(), is);
      const auto vx = vals(x), vy = vals(y);
      for (std::size_t a = 0; a < 3; ++a)
        for (std::size_t j = 0; j < 5; ++j)
          for (std::size_t b = 0; b < 2; ++b) {
            const std::size_t f = (a * 5 + j) * 2 + b;
            EXPECT_EQ(vy[f], vx[(a * 4 + std::size_t(iv[f])) * 2 + b]) << tl::dtype_name(t);
          }
    }
  }
}

TEST(IndexingTakeAlongAxis, EmptyAndBadInputs) {
  EXPECT_EQ(tl::take_along_axis(tl::zeros({2, 3}), ints({}, {2, 0}), 1).shape(), (tl::Shape{2, 0}));
  const auto x = tl::zeros({2, 3});
  expect_error<tl::AxisError>(
      [&] {
        tl::take_along_axis(x, ints({0, 3}, {2, 1}), 1);
      },
      "take_along_axis", "index 3");
  expect_error<tl::ShapeError>([&] { tl::take_along_axis(x, ints({0, 1}, {2}), 1); }, "take_along_axis");
  expect_error<tl::ShapeError>(
      [&] {
        tl::take_along_axis(x, ints({0, 0, 0}, {3, 1}), 1);
      },
      "take_along_axis");
  expect_error<tl::DTypeError>([&] { tl::take_along_axis(x, tl::zeros({2, 1}), 1); }, "take_along_axis");
  expect_error<tl::AxisError>([&] { tl::take_along_axis(x, ints({0, 0}, {2, 1}), 2); }, "take_along_axis");
}

// ---- scatter_add --------------------------------------------------------------------------------

TEST(IndexingScatterAdd, LiteralWithDuplicates) {
  const auto x = tl::tensor({1.f, 1.f, 1.f, 0.f, 0.f, 0.f}, {2, 3});
  const auto idx = ints({0, 0, 2, 1, -1, 1}, {2, 3});
  const auto u = tl::tensor({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {2, 3});
  const auto y = tl::scatter_add(x, idx, u, 1);
  EXPECT_EQ(vals(y), (std::vector<double>{4, 1, 4, 0, 10, 5}));
  EXPECT_EQ(vals(x), (std::vector<double>{1, 1, 1, 0, 0, 0}));  // the operand is unchanged
}

// The adjoint of take_along_axis: out[a, idx[a, j, b], b] += u[a, j, b].
TEST(IndexingScatterAdd, MatchesNaiveLoopEveryDType) {
  const tl::Shape xs{2, 3, 4}, is{2, 5, 4};
  std::vector<std::int64_t> iv(40);
  for (std::size_t i = 0; i < iv.size(); ++i) iv[i] = std::int64_t((i * 7) % 3);
  for (tl::DType t : tl::all_dtypes) {
    for (tl::DType it : kIndexTypes) {
      const auto x = seq(xs, t), u = seq(is, t, 1);
      const auto y = tl::scatter_add(x, ints(iv, is, it), u, 1);
      ASSERT_EQ(y.dtype(), t);
      std::vector<double> want = vals(x);
      const auto vu = vals(u);
      for (std::size_t a = 0; a < 2; ++a)
        for (std::size_t j = 0; j < 5; ++j)
          for (std::size_t b = 0; b < 4; ++b) {
            const std::size_t f = (a * 5 + j) * 4 + b;
            double& w = want[(a * 3 + std::size_t(iv[f])) * 4 + b];
            w = t == tl::DType::boolean ? double(w != 0 || vu[f] != 0) : w + vu[f];
          }
      EXPECT_EQ(vals(y), want) << tl::dtype_name(t) << tl::dtype_name(it);
    }
  }
}

TEST(IndexingScatterAdd, HalfAccumulatesInF32AndIntegersWrap) {
  // 2048 + 1 + 1 in f16 steps would round back to 2048 twice; summed in f32 it is 2050.
  const auto x = tl::tensor({2048.f}, {1}).astype(tl::DType::f16);
  const auto u = tl::tensor({1.f, 1.f}, {2}).astype(tl::DType::f16);
  EXPECT_EQ(vals(tl::scatter_add(x, ints({0, 0}, {2}), u, 0)), (std::vector<double>{2050}));
  const auto xi = tl::tensor(std::vector<std::int8_t>{127});
  EXPECT_EQ(vals(tl::scatter_add(xi, ints({0}, {1}), tl::tensor(std::vector<std::int8_t>{1}), 0)),
            (std::vector<double>{-128}));
}

// Integers add by their width and wrap, signed or unsigned.
TEST(IndexingScatterAdd, NewIntegerTypesWrap) {
  const auto idx = ints({0, 0, 1}, {3});
  const auto u16 = tl::scatter_add(tl::tensor(std::vector<std::uint16_t>{65535, 7}), idx,
                                   tl::tensor(std::vector<std::uint16_t>{1, 2, 3}), 0);
  EXPECT_EQ(u16.dtype(), tl::DType::u16);
  EXPECT_EQ(u16.to_vector<std::uint16_t>(), (std::vector<std::uint16_t>{2, 10}));
  const auto i16 = tl::scatter_add(tl::tensor(std::vector<std::int16_t>{32767, -32768}), idx,
                                   tl::tensor(std::vector<std::int16_t>{1, 0, -1}), 0);
  EXPECT_EQ(i16.to_vector<std::int16_t>(), (std::vector<std::int16_t>{-32768, 32767}));
  const auto u64 = tl::index_add(tl::tensor(std::vector<std::uint64_t>{18446744073709551615ull, 0}), idx,
                                 tl::tensor(std::vector<std::uint64_t>{1, 1, 18446744073709551615ull}), 0);
  EXPECT_EQ(u64.to_vector<std::uint64_t>(), (std::vector<std::uint64_t>{1, 18446744073709551615ull}));
  const auto u32 = tl::index_add(tl::tensor(std::vector<std::uint32_t>{0, 5}), idx,
                                 tl::tensor(std::vector<std::uint32_t>{4294967295u, 4294967295u, 1}), 0);
  EXPECT_EQ(u32.to_vector<std::uint32_t>(), (std::vector<std::uint32_t>{4294967294u, 6}));
}

TEST(IndexingScatterAdd, LargeColumnsSplitAcrossThreads) {
  const std::int64_t rows = 6, cols = 20000, k = 9;
  std::vector<std::int64_t> iv(std::size_t(k * cols));
  for (std::size_t i = 0; i < iv.size(); ++i) iv[i] = std::int64_t((i * 13) % std::size_t(rows));
  const auto u = seq({k, cols}, tl::DType::f64);
  const auto y = tl::scatter_add(tl::zeros({rows, cols}, tl::DType::f64), ints(iv, {k, cols}), u, 0);
  std::vector<double> want(std::size_t(rows * cols), 0.0);
  const auto vu = vals(u);
  for (std::size_t j = 0; j < std::size_t(k); ++j)
    for (std::size_t c = 0; c < std::size_t(cols); ++c)
      want[std::size_t(iv[j * std::size_t(cols) + c]) * std::size_t(cols) + c] +=
          vu[j * std::size_t(cols) + c];
  EXPECT_EQ(vals(y), want);
}

TEST(IndexingScatterAdd, EmptyAndBadInputs) {
  const auto x = tl::zeros({2, 3});
  EXPECT_EQ(vals(tl::scatter_add(x, ints({}, {2, 0}), tl::zeros({2, 0}), 1)), std::vector<double>(6, 0.0));
  expect_error<tl::AxisError>(
      [&] {
        tl::scatter_add(x, ints({0, 5, 1}, {1, 3}), tl::zeros({1, 3}), 0);
      },
      "scatter_add", "index 5");
  expect_error<tl::ShapeError>(
      [&] {
        tl::scatter_add(x, ints({0, 0}, {2, 1}), tl::zeros({2, 2}), 1);
      },
      "scatter_add");
  expect_error<tl::ShapeError>(
      [&] {
        tl::scatter_add(x, ints({0, 0}, {1, 2}), tl::zeros({1, 2}), 1);
      },
      "scatter_add");
  expect_error<tl::DTypeError>(
      [&] {
        tl::scatter_add(x, tl::zeros({2, 1}), tl::zeros({2, 1}), 1);
      },
      "scatter_add");
  expect_error<tl::AxisError>([] { tl::scatter_add(tl::zeros({}), ints({0}, {}), tl::zeros({}), 0); },
                              "scatter_add");
}

// ---- index_add --------------------------------------------------------------------------------------

TEST(IndexingIndexAdd, LiteralWithDuplicates) {
  const auto x = tl::zeros({3, 2});
  const auto u = tl::tensor({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {3, 2});
  EXPECT_EQ(vals(tl::index_add(x, ints({2, 0, 2}, {3}), u, 0)), (std::vector<double>{3, 4, 0, 0, 6, 8}));
  const auto c =
      tl::index_add(tl::ones({2, 3}), ints({-1, -1}, {2}), tl::tensor({1.f, 2.f, 3.f, 4.f}, {2, 2}), 1);
  EXPECT_EQ(vals(c), (std::vector<double>{1, 1, 4, 1, 1, 8}));
  // A rank-0 index: updates lose the axis, as take's result does.
  EXPECT_EQ(vals(tl::index_add(tl::zeros({2, 2}), ints({1}, {}), tl::tensor({7.f, 8.f}, {2}), 1)),
            (std::vector<double>{0, 7, 0, 8}));
}

// The adjoint of take: out[a, idx[j], b] += u[a, j, b].
TEST(IndexingIndexAdd, MatchesNaiveLoopEveryDType) {
  const std::vector<std::int64_t> iv{1, 3, 1, 0, 3};
  for (tl::DType t : tl::all_dtypes) {
    for (tl::DType it : kIndexTypes) {
      const auto x = seq({2, 4, 3}, t), u = seq({2, 5, 3}, t, 1);
      const auto y = tl::index_add(x, ints(iv, {5}, it), u, 1);
      ASSERT_EQ(y.dtype(), t);
      std::vector<double> want = vals(x);
      const auto vu = vals(u);
      for (std::size_t a = 0; a < 2; ++a)
        for (std::size_t j = 0; j < 5; ++j)
          for (std::size_t b = 0; b < 3; ++b) {
            double& w = want[(a * 4 + std::size_t(iv[j])) * 3 + b];
            const double v = vu[(a * 5 + j) * 3 + b];
            w = t == tl::DType::boolean ? double(w != 0 || v != 0) : w + v;
          }
      EXPECT_EQ(vals(y), want) << tl::dtype_name(t) << tl::dtype_name(it);
    }
  }
}

TEST(IndexingIndexAdd, LargeAndCastUpdates) {
  const std::int64_t n = 50, m = 3000, inner = 64;
  std::vector<std::int64_t> iv(static_cast<std::size_t>(m));
  for (std::size_t i = 0; i < iv.size(); ++i) iv[i] = std::int64_t((i * 17) % std::size_t(n));
  const auto u = seq({m, inner}, tl::DType::f32);
  const auto y = tl::index_add(tl::zeros({n, inner}), ints(iv, {m}, tl::DType::i32), u, 0);
  std::vector<double> want(std::size_t(n * inner), 0.0);
  const auto vu = vals(u);
  for (std::size_t j = 0; j < std::size_t(m); ++j)
    for (std::size_t b = 0; b < std::size_t(inner); ++b)
      want[std::size_t(iv[j]) * std::size_t(inner) + b] += vu[j * std::size_t(inner) + b];
  EXPECT_EQ(vals(y), want);
  // Updates take the operand's dtype.
  const auto yi = tl::index_add(tl::zeros({2}, tl::DType::i32), ints({1}, {1}), tl::tensor({2.5f}, {1}), 0);
  EXPECT_EQ(yi.dtype(), tl::DType::i32);
  EXPECT_EQ(vals(yi), (std::vector<double>{0, 2}));
}

TEST(IndexingIndexAdd, EmptyAndBadInputs) {
  const auto x = tl::zeros({3, 2});
  EXPECT_EQ(vals(tl::index_add(x, ints({}, {0}), tl::zeros({0, 2}), 0)), std::vector<double>(6, 0.0));
  expect_error<tl::AxisError>(
      [&] {
        tl::index_add(x, ints({-4}, {1}), tl::zeros({1, 2}), 0);
      },
      "index_add", "index -4");
  expect_error<tl::ShapeError>(
      [&] {
        tl::index_add(x, ints({0, 1}, {2}), tl::zeros({1, 2}), 0);
      },
      "index_add");
  expect_error<tl::DTypeError>(
      [&] {
        tl::index_add(x, tl::tensor({0.0}, {1}), tl::zeros({1, 2}), 0);
      },
      "index_add");
  expect_error<tl::AxisError>([&] { tl::index_add(x, ints({0}, {1}), tl::zeros({1, 2}), -3); }, "index_add");
}

}  // namespace
