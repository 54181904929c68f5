// Tests for slice, pad, reverse, dynamic_slice, dynamic_update_slice and iota.
// Expected values are literals worked out by hand or naive index loops written here.
#include <gtest/gtest.h>

#include "support/expect_error.hpp"
#include "support/index_math.hpp"

#include <algorithm>
#include <bit>
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

tl::Tensor seq(const tl::Shape& shape, tl::DType t, double offset = 0) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = t == tl::DType::boolean ? double((i + std::size_t(offset)) % 2) : double(i % 50) + offset;
  return tl::tensor(v, shape).astype(t);
}



std::vector<double> vals(const tl::Tensor& t) { return t.to_vector<double>(); }

// ---- slice ---------------------------------------------------------------------------------

TEST(ShapeSliceSlice, Literal) {
  const auto x = tl::reshape(tl::arange(20), {4, 5});
  const auto y = tl::slice(x, {1, 0}, {3, 5}, {1, 2});
  EXPECT_EQ(y.shape(), (tl::Shape{2, 3}));
  EXPECT_EQ(vals(y), (std::vector<double>{5, 7, 9, 10, 12, 14}));
  EXPECT_EQ(vals(tl::slice(x, {2, 3}, {100, 100})), (std::vector<double>{13, 14, 18, 19}));
  EXPECT_EQ(tl::slice(x, {5, 0}, {9, 5}).shape(), (tl::Shape{0, 5}));
  EXPECT_EQ(tl::slice(x, {3, 0}, {1, 5}).shape(), (tl::Shape{0, 5}));
}

// Strided slices of every dtype, including slices of slices (views at an offset).
TEST(ShapeSliceSlice, MatchesNaiveLoopEveryDType) {
  const tl::Shape s{5, 4, 6};
  const Ints start{1, 0, 2}, stop{5, 3, 6}, step{2, 1, 3};
  const tl::Shape out{2, 3, 2};
  for (tl::DType t : tl::all_dtypes) {
    const auto x = seq(s, t);
    const auto y = tl::slice(x, start, stop, step);
    ASSERT_EQ(y.shape(), out);
    ASSERT_EQ(y.dtype(), t);
    const auto vx = vals(x), vy = vals(y);
    for (std::int64_t f = 0; f < count(out); ++f) {
      Ints idx = unravel(f, out);
      for (std::size_t d = 0; d < 3; ++d) idx[d] = start[d] + idx[d] * step[d];
      EXPECT_EQ(vy[std::size_t(f)], vx[std::size_t(ravel(idx, s))]) << tl::dtype_name(t);
    }
    // Rows 1..3 then columns 1..2 of those: x[1 + i, 1 + j, :].
    const auto rows = tl::slice(x, {1, 0, 0}, {4, 4, 6});
    const auto z = tl::slice(rows, {0, 1, 0}, {3, 3, 6});
    const auto vz = vals(z);
    ASSERT_EQ(z.shape(), (tl::Shape{3, 2, 6}));
    for (std::int64_t f = 0; f < 36; ++f) {
      Ints idx = unravel(f, {3, 2, 6});
      idx[0] += 1;
      idx[1] += 1;
      EXPECT_EQ(vz[std::size_t(f)], vx[std::size_t(ravel(idx, s))]);
    }
  }
}

TEST(ShapeSliceSlice, RankZeroWholeAndEmpty) {
  const auto x = tl::scalar_tensor(3.5, tl::DType::f64);
  EXPECT_EQ(tl::slice(x, {}, {}).item<double>(), 3.5);
  const auto e = tl::zeros({0, 3});
  EXPECT_EQ(tl::slice(e, {0, 1}, {0, 3}).shape(), (tl::Shape{0, 2}));
  const auto w = tl::ones({2, 2});
  EXPECT_EQ(vals(tl::slice(w, {0, 0}, {2, 2})), std::vector<double>(4, 1.0));
}

TEST(ShapeSliceSlice, LargeStridedCopy) {
  const auto x = seq({400, 300}, tl::DType::f32);
  const auto y = tl::slice(x, {3, 1}, {400, 300}, {1, 2});
  ASSERT_EQ(y.shape(), (tl::Shape{397, 150}));
  const auto vx = vals(x), vy = vals(y);
  for (std::size_t i = 0; i < 397; ++i)
    for (std::size_t j = 0; j < 150; ++j) ASSERT_EQ(vy[i * 150 + j], vx[(i + 3) * 300 + 1 + 2 * j]);
}

TEST(ShapeSliceSlice, PythonStyleOneAxis) {
  const auto x = tl::reshape(tl::arange(12), {3, 4});
  EXPECT_EQ(vals(tl::slice(x, 1, -3, -1)), (std::vector<double>{1, 2, 5, 6, 9, 10}));
  EXPECT_EQ(vals(tl::slice(x, 0, -100, 100)), vals(x));
  EXPECT_EQ(vals(tl::slice(x, -1, 0, 4, 2)), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(vals(tl::slice(x, 0, 2, 3)), (std::vector<double>{8, 9, 10, 11}));
  EXPECT_EQ(tl::slice(x, 0, 2, 1).shape(), (tl::Shape{0, 4}));
  EXPECT_EQ(tl::slice(x, 0, -1, -2).shape(), (tl::Shape{0, 4}));
}

TEST(ShapeSliceSlice, BadInputs) {
  const auto x = tl::zeros({3, 4});
  expect_error<tl::ValueError>([&] { tl::slice(x, {0}, {1}); }, "slice");
  expect_error<tl::ValueError>([&] { tl::slice(x, {0, 0}, {1, 1}, {1}); }, "slice");
  expect_error<tl::ValueError>([&] { tl::slice(x, {-1, 0}, {1, 1}); }, "slice");
  expect_error<tl::ValueError>([&] { tl::slice(x, {0, 0}, {1, 1}, {1, 0}); }, "slice");
  expect_error<tl::ValueError>([&] { tl::slice(x, 0, 0, 2, 0); }, "slice");
  expect_error<tl::ValueError>([&] { tl::slice(x, 0, 2, 0, -1); }, "slice");
  expect_error<tl::AxisError>([&] { tl::slice(x, 2, 0, 1); }, "slice");
  expect_error<tl::AxisError>([] { tl::slice(tl::zeros({}), 0, 0, 1); }, "slice");
}

TEST(ShapeSliceSlice, BackwardPutsTheSliceBack) {
  const auto x = tl::reshape(tl::arange(12).astype(tl::DType::f64), {3, 4});
  const tl::Shape s{3, 4};
  EXPECT_EQ(vals(tl::derivatives::slice_backward(tl::slice(x, 1, -3, -1), s, 1, -3, -1)),
            (std::vector<double>{0, 1, 2, 0, 0, 5, 6, 0, 0, 9, 10, 0}));
  EXPECT_EQ(vals(tl::derivatives::slice_backward(tl::slice(x, -1, 0, 4, 2), s, -1, 0, 4, 2)),
            (std::vector<double>{0, 0, 2, 0, 4, 0, 6, 0, 8, 0, 10, 0}));
  EXPECT_EQ(vals(tl::derivatives::slice_backward(tl::slice(x, 0, 2, 3), s, 0, 2, 3)),
            (std::vector<double>{0, 0, 0, 0, 0, 0, 0, 0, 8, 9, 10, 11}));
  EXPECT_EQ(vals(tl::derivatives::slice_backward(x, s, 0, -100, 100)), vals(x));
  const tl::Tensor none = tl::derivatives::slice_backward(tl::zeros({0, 4}, tl::DType::f64), s, 0, 2, 1);
  EXPECT_EQ(none.shape(), s);
  EXPECT_EQ(vals(none), std::vector<double>(12, 0.0));
  // The engine's pullback of the slice is the same function.
  auto [y, pullback] = tl::vjp([](const tl::Tensor& a) { return tl::slice(a, 1, 1, 4, 2); }, x);
  const tl::Tensor g = tl::reshape(tl::arange(6).astype(tl::DType::f64), {3, 2}) + 0.5;
  EXPECT_EQ(vals(pullback(g).at(0)), vals(tl::derivatives::slice_backward(g, s, 1, 1, 4, 2)));
}

// The box form: starts, stops and steps per axis, as tl::slice takes them.
TEST(ShapeSliceSlice, BackwardOfABox) {
  const auto x = tl::reshape(tl::arange(12).astype(tl::DType::f64), {3, 4});
  const tl::Shape s{3, 4};
  EXPECT_EQ(vals(tl::derivatives::slice_backward(tl::slice(x, {1, 0}, {3, 4}, {1, 2}), s, {1, 0}, {3, 4}, {1, 2})),
            (std::vector<double>{0, 0, 0, 0, 4, 0, 6, 0, 8, 0, 10, 0}));
  EXPECT_EQ(vals(tl::derivatives::slice_backward(tl::slice(x, {0, 1}, {2, 9}), s, {0, 1}, {2, 9})),
            (std::vector<double>{0, 1, 2, 3, 0, 5, 6, 7, 0, 0, 0, 0}));
  EXPECT_EQ(vals(tl::derivatives::slice_backward(x, s, {0, 0}, {3, 4})), vals(x));
  auto [y, pullback] = tl::vjp([](const tl::Tensor& a) { return tl::slice(a, {0, 1}, {3, 4}, {2, 2}); }, x);
  const tl::Tensor g = tl::reshape(tl::arange(4).astype(tl::DType::f64), {2, 2}) + 0.5;
  EXPECT_EQ(vals(pullback(g).at(0)), vals(tl::derivatives::slice_backward(g, s, {0, 1}, {3, 4}, {2, 2})));
}

TEST(ShapeSliceSlice, BackwardBadInputs) {
  expect_error<tl::ShapeError>([] { tl::derivatives::slice_backward(tl::zeros({3, 3}), {3, 4}, 1, -3, -1); }, "slice_backward");
  expect_error<tl::AxisError>([] { tl::derivatives::slice_backward(tl::zeros({}), {}, 0, 0, 1); }, "slice_backward");
  expect_error<tl::ValueError>([] { tl::derivatives::slice_backward(tl::zeros({3, 2}), {3, 4}, 1, 0, 4, 0); }, "slice_backward");
  const tl::Tensor g = tl::zeros({2, 2});
  const tl::Shape s{3, 4};
  expect_error<tl::ShapeError>([&] { tl::derivatives::slice_backward(g, s, {0, 0}, {3, 2}); }, "slice_backward");
  expect_error<tl::ValueError>([&] { tl::derivatives::slice_backward(g, s, {0}, {2, 2}); }, "slice_backward");
  expect_error<tl::ValueError>([&] { tl::derivatives::slice_backward(g, s, {0, 0}, {2, 2}, {1, 0}); }, "slice_backward");
}

// ---- pad ---------------------------------------------------------------------------------------

TEST(ShapeSlicePad, ConstantLiteral) {
  const auto x = tl::tensor({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {2, 3});
  const auto y = tl::pad(x, {{1, 0}, {2, 1}}, tl::PadMode::constant, 9);
  EXPECT_EQ(y.shape(), (tl::Shape{3, 6}));
  EXPECT_EQ(vals(y), (std::vector<double>{9, 9, 9, 9, 9, 9,  //
                                          9, 9, 1, 2, 3, 9,  //
                                          9, 9, 4, 5, 6, 9}));
  EXPECT_EQ(vals(tl::pad(tl::tensor({1.f}, {1}), {{1, 1}})), (std::vector<double>{0, 1, 0}));
}

TEST(ShapeSlicePad, ConstantMatchesNaiveLoopEveryDType) {
  const tl::Shape s{2, 3, 2};
  const std::vector<std::pair<std::int64_t, std::int64_t>> w{{0, 2}, {1, 1}, {3, 0}};
  const tl::Shape out{4, 5, 5};
  for (tl::DType t : tl::all_dtypes) {
    const auto x = seq(s, t, 1);
    const auto y = tl::pad(x, w, tl::PadMode::constant, true);
    ASSERT_EQ(y.shape(), out);
    ASSERT_EQ(y.dtype(), t);
    const auto vx = vals(x), vy = vals(y);
    for (std::int64_t f = 0; f < count(out); ++f) {
      Ints idx = unravel(f, out);
      bool inside = true;
      for (std::size_t d = 0; d < 3; ++d) {
        idx[d] -= w[d].first;
        inside = inside && idx[d] >= 0 && idx[d] < s[d];
      }
      EXPECT_EQ(vy[std::size_t(f)], inside ? vx[std::size_t(ravel(idx, s))] : 1.0) << tl::dtype_name(t);
    }
  }
}

TEST(ShapeSlicePad, ConstantValueConvertsAndEdgeCases) {
  const auto xi = tl::tensor(std::vector<std::int32_t>{1, 2});
  EXPECT_EQ(vals(tl::pad(xi, {{1, 0}}, tl::PadMode::constant, 2.75)), (std::vector<double>{2, 1, 2}));
  const auto xb =
      tl::pad(tl::tensor({0.f}, {1}).astype(tl::DType::bf16), {{0, 1}}, tl::PadMode::constant, -1.5);
  EXPECT_EQ(xb.dtype(), tl::DType::bf16);
  EXPECT_EQ(vals(xb), (std::vector<double>{0, -1.5}));
  const auto e = tl::pad(tl::zeros({0, 2}), {{1, 1}, {0, 0}}, tl::PadMode::constant, 4);
  EXPECT_EQ(e.shape(), (tl::Shape{2, 2}));
  EXPECT_EQ(vals(e), std::vector<double>(4, 4.0));
  const auto r0 = tl::scalar_tensor(7, tl::DType::i64);
  EXPECT_EQ(tl::pad(r0, {}).item<std::int64_t>(), 7);
  EXPECT_EQ(vals(tl::pad(xi, {{0, 0}})), (std::vector<double>{1, 2}));
}

TEST(ShapeSlicePad, EdgeLiteral) {
  const auto x = tl::tensor({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {2, 3});
  const auto y = tl::pad(x, {{1, 2}, {1, 1}}, tl::PadMode::edge);
  EXPECT_EQ(y.shape(), (tl::Shape{5, 5}));
  EXPECT_EQ(vals(y), (std::vector<double>{1, 1, 2, 3, 3,  //
                                          1, 1, 2, 3, 3,  //
                                          4, 4, 5, 6, 6,  //
                                          4, 4, 5, 6, 6,  //
                                          4, 4, 5, 6, 6}));
}

TEST(ShapeSlicePad, EdgeMatchesNaiveLoopEveryDType) {
  const tl::Shape s{2, 3, 2};
  const std::vector<std::pair<std::int64_t, std::int64_t>> w{{2, 0}, {0, 3}, {1, 1}};
  const tl::Shape out{4, 6, 4};
  for (tl::DType t : tl::all_dtypes) {
    const auto x = seq(s, t);
    const auto y = tl::pad(x, w, tl::PadMode::edge);
    ASSERT_EQ(y.shape(), out);
    ASSERT_EQ(y.dtype(), t);
    const auto vx = vals(x), vy = vals(y);
    for (std::int64_t f = 0; f < count(out); ++f) {
      Ints idx = unravel(f, out);
      for (std::size_t d = 0; d < 3; ++d) idx[d] = std::clamp<std::int64_t>(idx[d] - w[d].first, 0, s[d] - 1);
      EXPECT_EQ(vy[std::size_t(f)], vx[std::size_t(ravel(idx, s))]) << tl::dtype_name(t);
    }
  }
}

TEST(ShapeSlicePad, BadInputs) {
  const auto x = tl::zeros({2, 3});
  expect_error<tl::ValueError>([&] { tl::pad(x, {{1, 1}}); }, "pad");
  expect_error<tl::ValueError>([&] { tl::pad(x, {{1, 1}, {-1, 0}}); }, "pad");
  expect_error<tl::ValueError>([&] { tl::pad(x, {{0, 0}, {0, -2}}, tl::PadMode::edge); }, "pad");
  expect_error<tl::ValueError>(
      [] {
        tl::pad(tl::zeros({0, 2}), {{1, 0}, {0, 0}}, tl::PadMode::edge);
      },
      "pad");
}

// ---- pad_backward -----------------------------------------------------------------------------

using Widths = std::vector<std::pair<std::int64_t, std::int64_t>>;

// The f64 bits of t's elements (an f32 element widened exactly): -0 and +0 differ.
std::vector<std::uint64_t> bits(const tl::Tensor& t) {
  std::vector<std::uint64_t> b;
  for (const double v : t.to_vector<double>()) b.push_back(std::bit_cast<std::uint64_t>(v));
  return b;
}

// Edge mode: each element of g is added to the element of x it repeats (a naive loop
// over g, whole numbers so that the order of the sums does not matter); constant mode:
// only the elements where x was.
TEST(PadBackward, SumsEachBorderIntoTheElementItRepeats) {
  const std::vector<std::pair<tl::Shape, Widths>> cases{{{2, 3}, {{1, 2}, {1, 1}}},
                                                        {{3, 1}, {{0, 2}, {1, 3}}},
                                                        {{1, 1, 2}, {{1, 1}, {0, 0}, {2, 0}}},
                                                        {{4}, {{0, 0}}}};
  for (const auto& [s, w] : cases) {
    tl::Shape out = s;
    for (std::size_t d = 0; d < s.size(); ++d) out[d] += w[d].first + w[d].second;
    const tl::Tensor g = seq(out, tl::DType::f64, 1);
    const std::vector<double> vg = vals(g);
    std::vector<double> edge(std::size_t(count(s)), 0.0), constant(edge.size(), 0.0);
    for (std::int64_t f = 0; f < count(out); ++f) {
      Ints idx = unravel(f, out), clamped(idx.size());
      bool inside = true;
      for (std::size_t d = 0; d < s.size(); ++d) {
        idx[d] -= w[d].first;
        clamped[d] = std::clamp<std::int64_t>(idx[d], 0, s[d] - 1);
        inside = inside && idx[d] == clamped[d];
      }
      edge[std::size_t(ravel(clamped, s))] += vg[std::size_t(f)];
      if (inside) constant[std::size_t(ravel(clamped, s))] += vg[std::size_t(f)];
    }
    const tl::Tensor by_edge = tl::derivatives::pad_backward(g, s, w, tl::PadMode::edge);
    EXPECT_EQ(by_edge.shape(), s);
    EXPECT_EQ(vals(by_edge), edge) << tl::shape_string(s);
    EXPECT_EQ(vals(tl::derivatives::pad_backward(g, s, w)), constant) << tl::shape_string(s);
  }
}

// tl::vjp of a pad gives pad_backward's bits, signed zeros included, in both modes and
// for borders of width 0, 1 and more, on axes of size 1 and more.
TEST(PadBackward, IsTheEnginesPullback) {
  const std::vector<std::pair<tl::Shape, Widths>> cases{
      {{2, 3}, {{1, 2}, {1, 1}}}, {{2, 3}, {{0, 2}, {3, 0}}}, {{3, 1}, {{1, 1}, {1, 1}}},
      {{3, 1}, {{1, 0}, {1, 3}}}, {{1, 2}, {{0, 1}, {0, 0}}}, {{2, 2}, {{0, 0}, {2, 0}}}};
  for (const tl::DType t : {tl::DType::f32, tl::DType::f64})
    for (const auto& [s, w] : cases)
      for (const tl::PadMode mode : {tl::PadMode::edge, tl::PadMode::constant}) {
        const tl::Tensor x = seq(s, t);
        auto [y, pullback] =
            tl::vjp([&, &w = w](const tl::Tensor& a) { return tl::pad(a, w, mode, 2.5); }, x);
        // Irrational cotangents, so the order of the sums shows, and a -0.0.
        const tl::Tensor n = tl::reshape(tl::arange(count(y.shape())).astype(t), y.shape());
        const tl::Tensor g = tl::where(tl::eq(n, 1.0), -0.0, tl::sin(n * 1.7) * 3.1);
        EXPECT_EQ(bits(pullback(g).at(0)), bits(tl::derivatives::pad_backward(g, s, w, mode)))
            << tl::dtype_name(t) << " " << tl::shape_string(s) << " mode " << int(mode);
      }
}

// With so_far, the cotangent x has from a use after the pad, pad_backward gives the
// engine's bits for x's whole cotangent: an edge pad's shares join it one at a time.
TEST(PadBackward, AddsToTheCotangentSoFarInTheEnginesOrder) {
  const std::vector<std::pair<tl::Shape, Widths>> cases{
      {{2, 3}, {{1, 2}, {1, 1}}}, {{2, 3}, {{0, 0}, {3, 2}}}, {{3, 1}, {{1, 1}, {1, 1}}},
      {{1, 1}, {{1, 1}, {0, 1}}}, {{1, 2}, {{0, 1}, {0, 0}}}, {{2, 2}, {{0, 0}, {0, 0}}}};
  const auto flat = [](const tl::Tensor& t) { return tl::reshape(t, {count(t.shape())}); };
  for (const tl::DType t : {tl::DType::f32, tl::DType::f64})
    for (const auto& [s, w] : cases)
      for (const tl::PadMode mode : {tl::PadMode::edge, tl::PadMode::constant}) {
        const tl::Tensor x = seq(s, t) * 0.3;
        // The pad first, then a use of x whose share the sweep gives x first.
        auto [y, pullback] = tl::vjp(
            [&, &w = w](const tl::Tensor& a) {
              const tl::Tensor padded = flat(tl::pad(a, w, mode));
              return tl::concat({padded, flat(tl::sin(a))}, 0);
            },
            x);
        const tl::Tensor n = tl::arange(count(y.shape())).astype(t);
        const tl::Tensor g = tl::where(tl::eq(n, 1.0), -0.0, tl::sin(n * 1.7) * 3.1);
        const std::int64_t head = count(y.shape()) - count(s);
        auto [later, later_pullback] = tl::vjp([&](const tl::Tensor& a) { return flat(tl::sin(a)); }, x);
        const tl::Tensor so_far = later_pullback(tl::slice(g, 0, head, count(y.shape()))).at(0);
        tl::Shape padded = s;
        for (std::size_t d = 0; d < s.size(); ++d) padded[d] += w[d].first + w[d].second;
        const tl::Tensor pad_g = tl::reshape(tl::slice(g, 0, 0, head), padded);
        EXPECT_EQ(bits(pullback(g).at(0)), bits(tl::derivatives::pad_backward(pad_g, s, w, mode, so_far)))
            << tl::dtype_name(t) << " " << tl::shape_string(s) << " mode " << int(mode);
      }
  expect_error<tl::ShapeError>(
      [] {
        tl::derivatives::pad_backward(tl::zeros({4, 5}), {2, 3}, {{1, 1}, {1, 1}}, tl::PadMode::edge, tl::zeros({3, 2}));
      },
      "pad_backward", "so_far is [3, 2]");
}

TEST(PadBackward, BadInputs) {
  const tl::Tensor g = tl::zeros({4, 5});
  expect_error<tl::ShapeError>([&] { tl::derivatives::pad_backward(g, {2, 3}, {{1, 1}, {1, 0}}); }, "pad_backward");
  expect_error<tl::ValueError>([&] { tl::derivatives::pad_backward(g, {2, 3}, {{1, 1}}); }, "pad_backward");
  expect_error<tl::ValueError>([&] { tl::derivatives::pad_backward(g, {2, 3}, {{1, 1}, {3, -1}}); }, "pad_backward");
  expect_error<tl::ValueError>(
      [] {
        tl::derivatives::pad_backward(tl::zeros({2, 2}), {0, 2}, {{1, 1}, {0, 0}}, tl::PadMode::edge);
      },
      "pad_backward");
}

// ---- reverse -------------------------------------------------------------------------------------

TEST(ShapeSliceReverse, Literal) {
  const auto x = tl::tensor({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {2, 3});
  EXPECT_EQ(vals(tl::reverse(x, 0)), (std::vector<double>{4, 5, 6, 1, 2, 3}));
  EXPECT_EQ(vals(tl::reverse(x, -1)), (std::vector<double>{3, 2, 1, 6, 5, 4}));
  EXPECT_EQ(vals(tl::reverse(x, {0, 1})), (std::vector<double>{6, 5, 4, 3, 2, 1}));
  EXPECT_EQ(vals(tl::reverse(x, tl::Axes())), (std::vector<double>{6, 5, 4, 3, 2, 1}));
  EXPECT_EQ(vals(tl::reverse(x, Ints{})), (std::vector<double>{1, 2, 3, 4, 5, 6}));
}

TEST(ShapeSliceReverse, MatchesNaiveLoopEveryDType) {
  const tl::Shape s{3, 2, 4};
  for (tl::DType t : tl::all_dtypes) {
    const auto x = seq(s, t);
    const auto y = tl::reverse(x, {2, 0});
    ASSERT_EQ(y.shape(), s);
    ASSERT_EQ(y.dtype(), t);
    const auto vx = vals(x), vy = vals(y);
    for (std::int64_t f = 0; f < count(s); ++f) {
      Ints idx = unravel(f, s);
      idx[0] = 2 - idx[0];
      idx[2] = 3 - idx[2];
      EXPECT_EQ(vy[std::size_t(f)], vx[std::size_t(ravel(idx, s))]) << tl::dtype_name(t);
    }
  }
}

TEST(ShapeSliceReverse, RankZeroAndEmpty) {
  EXPECT_EQ(tl::reverse(tl::scalar_tensor(2.0, tl::DType::f32), tl::Axes()).item<float>(), 2.0f);
  EXPECT_EQ(tl::reverse(tl::zeros({0, 3}), 0).shape(), (tl::Shape{0, 3}));
}

TEST(ShapeSliceReverse, BadInputs) {
  const auto x = tl::zeros({2, 3});
  expect_error<tl::AxisError>([&] { tl::reverse(x, 2); }, "reverse");
  expect_error<tl::AxisError>([&] { tl::reverse(x, {1, -1}); }, "reverse");
}

// ---- dynamic_slice / dynamic_update_slice -----------------------------------------------------------

TEST(ShapeSliceDynamicSlice, InRangeAndClamped) {
  const auto x = tl::reshape(tl::arange(12), {3, 4});
  EXPECT_EQ(vals(tl::dynamic_slice(x, {1, 1}, {2, 2})), (std::vector<double>{5, 6, 9, 10}));
  // Starts move back so the window fits: (5, 3) becomes (1, 2); -4 becomes 0.
  EXPECT_EQ(vals(tl::dynamic_slice(x, {5, 3}, {2, 2})), (std::vector<double>{6, 7, 10, 11}));
  EXPECT_EQ(vals(tl::dynamic_slice(x, {-4, 1}, {1, 3})), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(tl::dynamic_slice(x, {2, 2}, {0, 4}).shape(), (tl::Shape{0, 4}));
  EXPECT_EQ(tl::dynamic_slice(tl::scalar_tensor(1.5, tl::DType::f64), {}, {}).item<double>(), 1.5);
}

TEST(ShapeSliceDynamicSlice, MatchesNaiveLoopEveryDType) {
  for (tl::DType t : tl::all_dtypes) {
    const auto x = seq({4, 5}, t);
    const auto y = tl::dynamic_slice(x, {1, 4}, {3, 2});  // column start clamps to 3
    const auto vx = vals(x), vy = vals(y);
    for (std::size_t i = 0; i < 3; ++i)
      for (std::size_t j = 0; j < 2; ++j)
        EXPECT_EQ(vy[i * 2 + j], vx[(i + 1) * 5 + j + 3]) << tl::dtype_name(t);
  }
}

TEST(ShapeSliceDynamicSlice, BadInputs) {
  const auto x = tl::zeros({3, 4});
  expect_error<tl::ShapeError>([&] { tl::dynamic_slice(x, {0, 0}, {4, 1}); }, "dynamic_slice");
  expect_error<tl::ShapeError>([&] { tl::dynamic_slice(x, {0, 0}, {1, -1}); }, "dynamic_slice");
  expect_error<tl::ShapeError>([&] { tl::dynamic_slice(x, {0, 0}, {1}); }, "dynamic_slice");
  expect_error<tl::ValueError>([&] { tl::dynamic_slice(x, {0}, {1, 1}); }, "dynamic_slice");
}

TEST(ShapeSliceDynamicUpdateSlice, InRangeClampedAndCast) {
  const auto x = tl::zeros({3, 4}, tl::DType::i32);
  const auto u = tl::tensor({1.f, 2.f, 3.f, 4.f}, {2, 2});
  const auto y = tl::dynamic_update_slice(x, u, {1, 1});
  EXPECT_EQ(y.dtype(), tl::DType::i32);
  EXPECT_EQ(vals(y), (std::vector<double>{0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0}));
  EXPECT_EQ(vals(tl::dynamic_update_slice(x, u, {9, -2})),
            (std::vector<double>{0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0}));
  EXPECT_EQ(vals(x), std::vector<double>(12, 0.0));  // the operand is unchanged
  EXPECT_EQ(vals(tl::dynamic_update_slice(x, tl::zeros({0, 2}), {1, 1})), std::vector<double>(12, 0.0));
  EXPECT_EQ(
      tl::dynamic_update_slice(tl::scalar_tensor(1, tl::DType::u8), tl::scalar_tensor(9, tl::DType::u8), {})
          .item<int>(),
      9);
}

TEST(ShapeSliceDynamicUpdateSlice, MatchesNaiveLoopEveryDType) {
  for (tl::DType t : tl::all_dtypes) {
    const auto x = seq({3, 4, 2}, t), u = seq({2, 2, 2}, t, 1);
    const auto y = tl::dynamic_update_slice(x, u, {1, 2, 0});
    const auto vx = vals(x), vu = vals(u), vy = vals(y);
    for (std::int64_t f = 0; f < 24; ++f) {
      const Ints i = unravel(f, {3, 4, 2});
      const bool in = i[0] >= 1 && i[1] >= 2;
      const double want =
          in ? vu[std::size_t(ravel({i[0] - 1, i[1] - 2, i[2]}, {2, 2, 2}))] : vx[std::size_t(f)];
      EXPECT_EQ(vy[std::size_t(f)], want) << tl::dtype_name(t);
    }
  }
}

TEST(ShapeSliceDynamicUpdateSlice, BadInputs) {
  const auto x = tl::zeros({3, 4});
  expect_error<tl::ShapeError>(
      [&] {
        tl::dynamic_update_slice(x, tl::zeros({4, 1}), {0, 0});
      },
      "dynamic_update_slice");
  expect_error<tl::ShapeError>(
      [&] {
        tl::dynamic_update_slice(x, tl::zeros({1}), {0, 0});
      },
      "dynamic_update_slice");
  expect_error<tl::ValueError>(
      [&] {
        tl::dynamic_update_slice(x, tl::zeros({1, 1}), {0});
      },
      "dynamic_update_slice");
}

// ---- iota ----------------------------------------------------------------------------------------------

TEST(ShapeSliceIota, EachAxisAndDType) {
  const auto a = tl::iota({2, 3}, 0);
  EXPECT_EQ(a.dtype(), tl::DType::i64);
  EXPECT_EQ(vals(a), (std::vector<double>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(vals(tl::iota({2, 3}, -1, tl::DType::f32)), (std::vector<double>{0, 1, 2, 0, 1, 2}));
  for (tl::DType t : {tl::DType::f32, tl::DType::f64, tl::DType::bf16, tl::DType::f16, tl::DType::i8,
                      tl::DType::i32, tl::DType::i64, tl::DType::u8}) {
    const auto y = tl::iota({2, 4, 3}, 1, t);
    ASSERT_EQ(y.dtype(), t);
    const auto v = vals(y);
    for (std::int64_t f = 0; f < 24; ++f) EXPECT_EQ(v[std::size_t(f)], double(unravel(f, {2, 4, 3})[1]));
  }
  EXPECT_EQ(tl::iota({0, 3}, 1).shape(), (tl::Shape{0, 3}));
  const auto big = vals(tl::iota({70000}, 0, tl::DType::i32));
  for (std::size_t i = 0; i < big.size(); ++i) ASSERT_EQ(big[i], double(i));
}

TEST(ShapeSliceIota, BadInputs) {
  expect_error<tl::DTypeError>([] { tl::iota({3}, 0, tl::DType::boolean); }, "iota");
  expect_error<tl::AxisError>([] { tl::iota({3}, 1); }, "iota");
  expect_error<tl::AxisError>([] { tl::iota({}, 0); }, "iota");
  expect_error<tl::ValueError>([] { tl::iota({-1, 2}, 0); }, "iota");
}

}  // namespace
