// Tests for concat, stack, split, tile and repeat. Expected values are literals
// worked out by hand or naive index loops written here.
#include <gtest/gtest.h>

#include "support/expect_error.hpp"
#include "support/index_math.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "tlaloc/derivatives.hpp"
#include "tlaloc/ops.hpp"
#include "tlaloc/transforms.hpp"

namespace tl = tlaloc;

namespace {

using tltest::expect_error;
using tltest::count;
using tltest::ravel;
using tltest::unravel;

using Ints = std::vector<std::int64_t>;

// A tensor of dtype t whose flat element i is f(i) (values small enough for every dtype).
tl::Tensor seq(const tl::Shape& shape, tl::DType t, double offset = 0) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = t == tl::DType::boolean ? double((i + std::size_t(offset)) % 2) : double(i % 50) + offset;
  return tl::tensor(v, shape).astype(t);
}



std::vector<double> vals(const tl::Tensor& t) { return t.to_vector<double>(); }

// ---- concat -------------------------------------------------------------------------

TEST(ShapeJoinConcat, TwoMatricesBothAxes) {
  const auto a = tl::tensor({1.f, 2.f, 3.f, 4.f}, {2, 2});
  const auto b = tl::tensor({5.f, 6.f}, {1, 2});
  const auto c = tl::tensor({7.f, 8.f}, {2, 1});
  const auto r0 = tl::concat({a, b}, 0);
  EXPECT_EQ(r0.shape(), (tl::Shape{3, 2}));
  EXPECT_EQ(vals(r0), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  const auto r1 = tl::concat({a, c}, -1);
  EXPECT_EQ(r1.shape(), (tl::Shape{2, 3}));
  EXPECT_EQ(vals(r1), (std::vector<double>{1, 2, 7, 3, 4, 8}));
}

TEST(ShapeJoinConcat, MatchesNaiveLoopEveryDTypeAndAxis) {
  for (tl::DType t : tl::all_dtypes) {
    for (std::int64_t axis = 0; axis < 3; ++axis) {
      std::vector<tl::Shape> shapes(3, tl::Shape{2, 3, 4});
      for (std::size_t k = 0; k < 3; ++k) shapes[k][std::size_t(axis)] = std::int64_t(k) + 1;
      std::vector<tl::Tensor> xs;
      for (std::size_t k = 0; k < 3; ++k) xs.push_back(seq(shapes[k], t, double(k * 7)));
      const auto y = tl::concat(xs, axis);
      ASSERT_EQ(y.dtype(), t);
      tl::Shape out = shapes[0];
      out[std::size_t(axis)] = 6;
      ASSERT_EQ(y.shape(), out);
      std::vector<std::vector<double>> in;
      for (const auto& x : xs) in.push_back(vals(x));
      const auto got = vals(y);
      for (std::int64_t f = 0; f < count(out); ++f) {
        Ints idx = unravel(f, out);
        std::size_t k = 0;
        while (idx[std::size_t(axis)] >= shapes[k][std::size_t(axis)])
          idx[std::size_t(axis)] -= shapes[k++][std::size_t(axis)];
        EXPECT_EQ(got[std::size_t(f)], in[k][std::size_t(ravel(idx, shapes[k]))])
            << tl::dtype_name(t) << " axis " << axis;
      }
    }
  }
}

TEST(ShapeJoinConcat, PromotesDTypes) {
  const auto y = tl::concat({tl::tensor(std::vector<std::int32_t>{1, 2}), tl::tensor({0.5f}, {1})});
  EXPECT_EQ(y.dtype(), tl::DType::f32);
  EXPECT_EQ(vals(y), (std::vector<double>{1, 2, 0.5}));
}

TEST(ShapeJoinConcat, EmptyTensorsAndSingleInput) {
  const auto a = tl::zeros({0, 3});
  const auto b = tl::ones({2, 3});
  EXPECT_EQ(tl::concat({a, b, a}, 0).shape(), (tl::Shape{2, 3}));
  EXPECT_EQ(vals(tl::concat({a, b}, 0)), std::vector<double>(6, 1.0));
  EXPECT_EQ(tl::concat({tl::zeros({2, 0}), tl::zeros({2, 0})}, 0).shape(), (tl::Shape{4, 0}));
  EXPECT_EQ(tl::concat({tl::zeros({2, 0}), tl::ones({2, 1})}, 1).shape(), (tl::Shape{2, 1}));
  EXPECT_EQ(vals(tl::concat({b}, 1)), std::vector<double>(6, 1.0));
}

TEST(ShapeJoinConcat, LargeInputsSplitAcrossThreads) {
  const auto a = seq({300, 257}, tl::DType::f32), b = seq({300, 3}, tl::DType::f32, 1);
  const auto y = tl::concat({a, b}, 1);
  const auto va = vals(a), vb = vals(b), vy = vals(y);
  for (std::size_t i = 0; i < 300; ++i) {
    for (std::size_t j = 0; j < 260; ++j) {
      const double want = j < 257 ? va[i * 257 + j] : vb[i * 3 + j - 257];
      ASSERT_EQ(vy[i * 260 + j], want);
    }
  }
}

TEST(ShapeJoinConcat, BadInputs) {
  expect_error<tl::ValueError>([] { tl::concat({}, 0); }, "concat");
  expect_error<tl::ShapeError>([] { tl::concat({tl::zeros({2, 3}), tl::zeros({3})}, 0); }, "concat");
  expect_error<tl::ShapeError>([] { tl::concat({tl::zeros({2, 3}), tl::zeros({2, 4})}, 0); }, "concat");
  expect_error<tl::ShapeError>([] { tl::concat({tl::zeros({}), tl::zeros({})}, 0); }, "concat");
  expect_error<tl::AxisError>([] { tl::concat({tl::zeros({2}), tl::zeros({2})}, 1); }, "concat");
  expect_error<tl::ValueError>([] { tl::concat({tl::zeros({2}), tl::Tensor()}, 0); }, "concat");
}

// ---- stack ----------------------------------------------------------------------------

TEST(ShapeJoinStack, EveryAxis) {
  const auto a = tl::tensor({1.f, 2.f, 3.f}, {3});
  const auto b = tl::tensor({4.f, 5.f, 6.f}, {3});
  const auto s0 = tl::stack({a, b});
  EXPECT_EQ(s0.shape(), (tl::Shape{2, 3}));
  EXPECT_EQ(vals(s0), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  const auto s1 = tl::stack({a, b}, -1);
  EXPECT_EQ(s1.shape(), (tl::Shape{3, 2}));
  EXPECT_EQ(vals(s1), (std::vector<double>{1, 4, 2, 5, 3, 6}));
}

TEST(ShapeJoinStack, RankZeroAndEmptyAndDTypes) {
  const auto s = tl::stack({tl::scalar_tensor(1, tl::DType::i8), tl::scalar_tensor(2, tl::DType::i8)});
  EXPECT_EQ(s.shape(), (tl::Shape{2}));
  EXPECT_EQ(s.dtype(), tl::DType::i8);
  EXPECT_EQ(vals(s), (std::vector<double>{1, 2}));
  EXPECT_EQ(tl::stack({tl::zeros({0, 2}), tl::zeros({0, 2})}, 1).shape(), (tl::Shape{0, 2, 2}));
  for (tl::DType t : tl::all_dtypes) {
    const auto a = seq({2, 2}, t), b = seq({2, 2}, t, 1);
    const auto y = tl::stack({a, b}, 1);
    ASSERT_EQ(y.shape(), (tl::Shape{2, 2, 2}));
    const auto va = vals(a), vb = vals(b), vy = vals(y);
    for (std::size_t i = 0; i < 2; ++i)
      for (std::size_t j = 0; j < 2; ++j) {
        EXPECT_EQ(vy[i * 4 + j], va[i * 2 + j]);
        EXPECT_EQ(vy[i * 4 + 2 + j], vb[i * 2 + j]);
      }
  }
}

TEST(ShapeJoinStack, BadInputs) {
  expect_error<tl::ValueError>([] { tl::stack({}); }, "stack");
  expect_error<tl::ShapeError>([] { tl::stack({tl::zeros({2}), tl::zeros({3})}); }, "stack");
  expect_error<tl::AxisError>([] { tl::stack({tl::zeros({2}), tl::zeros({2})}, 2); }, "stack");
}

// ---- split ------------------------------------------------------------------------------

TEST(ShapeJoinSplit, EqualSections) {
  const auto x = tl::arange(12).astype(tl::DType::f64);
  const auto x2 = tl::reshape(x, {3, 4});
  const auto rows = tl::split(x2, 3, 0);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(vals(rows[1]), (std::vector<double>{4, 5, 6, 7}));
  EXPECT_EQ(rows[2].shape(), (tl::Shape{1, 4}));
  const auto cols = tl::split(x2, 2, -1);
  ASSERT_EQ(cols.size(), 2u);
  EXPECT_EQ(cols[0].shape(), (tl::Shape{3, 2}));
  EXPECT_EQ(vals(cols[0]), (std::vector<double>{0, 1, 4, 5, 8, 9}));
  EXPECT_EQ(vals(cols[1]), (std::vector<double>{2, 3, 6, 7, 10, 11}));
}

TEST(ShapeJoinSplit, SizesIncludingZeroAndOutlivingTheInput) {
  std::vector<tl::Tensor> parts;
  {
    const auto x = tl::reshape(tl::arange(10), {5, 2});
    parts = tl::split(x, Ints{2, 0, 3}, 0);
  }
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].dtype(), tl::DType::i64);
  EXPECT_EQ(vals(parts[0]), (std::vector<double>{0, 1, 2, 3}));
  EXPECT_EQ(parts[1].shape(), (tl::Shape{0, 2}));
  EXPECT_EQ(vals(parts[2]), (std::vector<double>{4, 5, 6, 7, 8, 9}));
  for (tl::DType t : tl::all_dtypes) {
    const auto x = seq({2, 5}, t);
    const auto p = tl::split(x, Ints{1, 4}, 1);
    const auto vx = vals(x);
    EXPECT_EQ(vals(p[0]), (std::vector<double>{vx[0], vx[5]})) << tl::dtype_name(t);
    EXPECT_EQ(vals(p[1]), (std::vector<double>{vx[1], vx[2], vx[3], vx[4], vx[6], vx[7], vx[8], vx[9]}));
  }
}

TEST(ShapeJoinSplit, BadInputs) {
  const auto x = tl::zeros({4, 3});
  expect_error<tl::ShapeError>([&] { tl::split(x, 3, 0); }, "split");
  expect_error<tl::ValueError>([&] { tl::split(x, 0, 0); }, "split");
  expect_error<tl::ShapeError>([&] { tl::split(x, Ints{1, 2}, 0); }, "split");
  expect_error<tl::ValueError>([&] { tl::split(x, Ints{5, -1}, 0); }, "split");
  expect_error<tl::AxisError>([&] { tl::split(x, 2, 2); }, "split");
  expect_error<tl::AxisError>([] { tl::split(tl::zeros({}), 1, 0); }, "split");
}

// ---- tile ----------------------------------------------------------------------------------

// out[i] = x[i mod shape], with x aligned to the right of the result.
void expect_tile(const tl::Tensor& x, const Ints& reps) {
  const auto y = tl::tile(x, reps);
  const std::size_t r = std::max(reps.size(), x.shape().size());
  tl::Shape xs(r, 1), rs(r, 1), out(r);
  std::copy(x.shape().begin(), x.shape().end(), xs.end() - std::ptrdiff_t(x.shape().size()));
  std::copy(reps.begin(), reps.end(), rs.end() - std::ptrdiff_t(reps.size()));
  for (std::size_t d = 0; d < r; ++d) out[d] = xs[d] * rs[d];
  ASSERT_EQ(y.shape(), out);
  ASSERT_EQ(y.dtype(), x.dtype());
  const auto vx = vals(x), vy = vals(y);
  for (std::int64_t f = 0; f < count(out); ++f) {
    Ints idx = unravel(f, out);
    for (std::size_t d = 0; d < r; ++d) idx[d] %= xs[d];
    EXPECT_EQ(vy[std::size_t(f)], vx[std::size_t(ravel(idx, xs))]);
  }
}

TEST(ShapeJoinTile, Literal) {
  const auto y = tl::tile(tl::tensor({1.f, 2.f, 3.f, 4.f}, {2, 2}), {2, 1});
  EXPECT_EQ(vals(y), (std::vector<double>{1, 2, 3, 4, 1, 2, 3, 4}));
  EXPECT_EQ(vals(tl::tile(tl::tensor({1.f, 2.f}, {2}), {2})), (std::vector<double>{1, 2, 1, 2}));
}

TEST(ShapeJoinTile, RepsShorterLongerZeroAndRankZero) {
  const auto x = seq({2, 3}, tl::DType::f32);
  expect_tile(x, {2, 3});
  expect_tile(x, {3});
  expect_tile(x, {2, 1, 2});
  expect_tile(x, {0, 2});
  expect_tile(x, {});
  expect_tile(tl::scalar_tensor(5, tl::DType::i32), {3});
  expect_tile(tl::zeros({0, 2}), {2, 2});
  for (tl::DType t : tl::all_dtypes) expect_tile(seq({3, 2}, t), {2, 2});
}

TEST(ShapeJoinTile, BadInputs) {
  expect_error<tl::ValueError>([] { tl::tile(tl::zeros({2}), {-1}); }, "tile");
}

// ---- repeat -----------------------------------------------------------------------------------

TEST(ShapeJoinRepeat, Literal) {
  const auto x = tl::tensor({1.f, 2.f, 3.f, 4.f}, {2, 2});
  EXPECT_EQ(vals(tl::repeat(x, 2, 0)), (std::vector<double>{1, 2, 1, 2, 3, 4, 3, 4}));
  const auto y = tl::repeat(x, 3, -1);
  EXPECT_EQ(y.shape(), (tl::Shape{2, 6}));
  EXPECT_EQ(vals(y), (std::vector<double>{1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4}));
  EXPECT_EQ(tl::repeat(x, 0, 1).shape(), (tl::Shape{2, 0}));
  EXPECT_EQ(tl::repeat(tl::zeros({0, 2}), 3, 0).shape(), (tl::Shape{0, 2}));
}

TEST(ShapeJoinRepeat, MatchesNaiveLoopEveryDType) {
  for (tl::DType t : tl::all_dtypes) {
    const auto x = seq({2, 3, 2}, t);
    const auto y = tl::repeat(x, 2, 1);
    ASSERT_EQ(y.shape(), (tl::Shape{2, 6, 2}));
    const auto vx = vals(x), vy = vals(y);
    for (std::int64_t f = 0; f < 24; ++f) {
      Ints idx = unravel(f, {2, 6, 2});
      idx[1] /= 2;
      EXPECT_EQ(vy[std::size_t(f)], vx[std::size_t(ravel(idx, {2, 3, 2}))]) << tl::dtype_name(t);
    }
  }
}

TEST(ShapeJoinRepeat, BadInputs) {
  expect_error<tl::ValueError>([] { tl::repeat(tl::zeros({2}), -1, 0); }, "repeat");
  expect_error<tl::AxisError>([] { tl::repeat(tl::zeros({2}), 2, 1); }, "repeat");
  expect_error<tl::AxisError>([] { tl::repeat(tl::zeros({}), 2, 0); }, "repeat");
}

// ---- tile_backward and repeat_backward -----------------------------------------------

// Each element of x gets the sum of g over its copies (worked by hand).
TEST(ShapeJoinTileBackward, SumsTheCopies) {
  const tl::Tensor g = tl::reshape(tl::arange(12).astype(tl::DType::f64), {2, 6});
  // tile([2, 3], {1, 2}): column j of x is copied to columns j and j + 3.
  EXPECT_EQ(vals(tl::derivatives::tile_backward(g, {2, 3}, {1, 2})), (std::vector<double>{3, 5, 7, 15, 17, 19}));
  // repeat([2, 3], 2, 1): column j of x is copied to columns 2j and 2j + 1.
  EXPECT_EQ(vals(tl::derivatives::repeat_backward(g, {2, 3}, 2, -1)), (std::vector<double>{1, 5, 9, 13, 17, 21}));
  // tile of a [3] to [2, 2, 6]: four copies of each element, in two axes.
  const tl::Tensor big = tl::ones({2, 2, 6}, tl::DType::f64);
  EXPECT_EQ(vals(tl::derivatives::tile_backward(big, {3}, {2, 2, 2})), (std::vector<double>{8, 8, 8}));
  expect_error<tl::ShapeError>([&] { tl::derivatives::tile_backward(g, {2, 3}, {2, 2}); }, "tile_backward");
  expect_error<tl::ValueError>([&] { tl::derivatives::repeat_backward(g, {2, 3}, -1, 0); }, "repeat_backward");
}

// The same bits as the engine's pullbacks of tile and repeat, with sums that round.
TEST(ShapeJoinTileBackward, SameBitsAsTheEnginesPullback) {
  const tl::Tensor x = tl::reshape(tl::sin(tl::arange(6).astype(tl::DType::f32) * 0.7f), {2, 1, 3});
  for (const std::vector<std::int64_t>& reps : {std::vector<std::int64_t>{3, 1, 4, 2}, {5, 1}, {1, 1, 1}}) {
    auto [y, pullback] = tl::vjp([&](const tl::Tensor& a) { return tl::tile(a, reps); }, x);
    const tl::Tensor g = tl::cos(tl::reshape(tl::arange(y.numel()).astype(tl::DType::f32), y.shape()) * 1.3f);
    EXPECT_EQ(vals(pullback(g).at(0)), vals(tl::derivatives::tile_backward(g, x.shape(), reps)));
  }
  for (std::int64_t axis : {0, 1, -1}) {
    auto [y, pullback] = tl::vjp([&](const tl::Tensor& a) { return tl::repeat(a, 7, axis); }, x);
    const tl::Tensor g = tl::cos(tl::reshape(tl::arange(y.numel()).astype(tl::DType::f32), y.shape()) * 1.3f);
    EXPECT_EQ(vals(pullback(g).at(0)), vals(tl::derivatives::repeat_backward(g, x.shape(), 7, axis)));
  }
}

}  // namespace
