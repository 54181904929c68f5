// Tests for reshape, transpose, permute, squeeze, expand_dims and broadcast_to.
// Expected values are literals worked out by hand or naive index loops written here.
#include <gtest/gtest.h>

#include <tlaloc/derivatives.hpp>
#include <tlaloc/tlaloc.hpp>

#include "support/expect_error.hpp"
#include "support/index_math.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace tl = tlaloc;

namespace {

using tltest::expect_error_with;
using tltest::count;
using tltest::ravel;
using tltest::unravel;

using Ints = std::vector<std::int64_t>;
using Doubles = std::vector<double>;


// Distinct small integers (0/1 alternating for bool), exact in every dtype.
tl::Tensor seq(const tl::Shape& shape, tl::DType t) {
  Doubles v(std::size_t(count(shape)));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = t == tl::DType::boolean ? double(i % 2) : double(i % 100);
  return tl::tensor(v, shape).astype(t);
}


// out[i_0, ..., i_k] = x[j] with j[perm[d]] = i_d.
Doubles ref_transpose(const Doubles& x, const tl::Shape& s, const Ints& perm) {
  tl::Shape out_shape;
  for (auto p : perm) out_shape.push_back(s[std::size_t(p)]);
  Doubles out(x.size());
  for (std::int64_t o = 0; o < count(out_shape); ++o) {
    const Ints oi = unravel(o, out_shape);
    Ints xi(s.size());
    for (std::size_t d = 0; d < perm.size(); ++d) xi[std::size_t(perm[d])] = oi[d];
    out[std::size_t(o)] = x[std::size_t(ravel(xi, s))];
  }
  return out;
}

// NumPy broadcasting by hand: align right, size-1 axes repeat.
Doubles ref_broadcast(const Doubles& x, const tl::Shape& s, const tl::Shape& to) {
  Doubles out(std::size_t(count(to)));
  const std::size_t lead = to.size() - s.size();
  for (std::int64_t o = 0; o < count(to); ++o) {
    const Ints oi = unravel(o, to);
    Ints xi(s.size());
    for (std::size_t d = 0; d < s.size(); ++d) xi[d] = s[d] == 1 ? 0 : oi[d + lead];
    out[std::size_t(o)] = x[std::size_t(ravel(xi, s))];
  }
  return out;
}


Doubles vals(const tl::Tensor& t) { return t.to_vector<double>(); }

// ---- reshape ---------------------------------------------------------------------------------

TEST(ShapeReshape, Literal) {
  const auto x = tl::arange(6);
  const auto y = tl::reshape(x, {2, 3});
  EXPECT_EQ(y.shape(), (tl::Shape{2, 3}));
  EXPECT_EQ(vals(y), (Doubles{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(tl::reshape(x, {-1, 2}).shape(), (tl::Shape{3, 2}));
  EXPECT_EQ(tl::reshape(x, {3, -1}).shape(), (tl::Shape{3, 2}));
  EXPECT_EQ(tl::reshape(y, {-1}).shape(), (tl::Shape{6}));
  EXPECT_EQ(tl::reshape(x, {1, -1, 1}).shape(), (tl::Shape{1, 6, 1}));
  EXPECT_EQ(tl::reshape(x, {1, 2, 1, 3}).shape(), (tl::Shape{1, 2, 1, 3}));
  EXPECT_EQ(vals(tl::reshape(y, {3, 2})), (Doubles{0, 1, 2, 3, 4, 5}));
}

// A reshape is a view: same buffer, input untouched.
TEST(ShapeReshape, ViewSharesDataAndLeavesTheInput) {
  for (tl::DType t : tl::all_dtypes) {
    const auto x = seq({4, 6}, t);
    const Doubles before = vals(x);
    const auto y = tl::reshape(x, {2, -1, 3});
    EXPECT_EQ(y.shape(), (tl::Shape{2, 4, 3})) << tl::dtype_name(t);
    EXPECT_EQ(y.dtype(), t);
    EXPECT_EQ(y.raw_data(), x.raw_data()) << tl::dtype_name(t);
    EXPECT_EQ(tl::reshape(y, {24}).raw_data(), x.raw_data()) << tl::dtype_name(t);
    EXPECT_EQ(vals(y), before) << tl::dtype_name(t);
    EXPECT_EQ(x.shape(), (tl::Shape{4, 6}));
    EXPECT_EQ(vals(x), before);
  }
  const auto x = tl::arange(6);
  EXPECT_EQ(tl::reshape(x, {6}).raw_data(), x.raw_data());
}

TEST(ShapeReshape, RankZeroAndEmpty) {
  const auto s = tl::scalar_tensor(7, tl::DType::i32);
  EXPECT_EQ(tl::reshape(s, {1}).shape(), (tl::Shape{1}));
  EXPECT_EQ(tl::reshape(s, {1, 1}).shape(), (tl::Shape{1, 1}));
  EXPECT_EQ(tl::reshape(s, {-1}).shape(), (tl::Shape{1}));
  EXPECT_EQ(tl::reshape(s, {}).shape(), tl::Shape{});
  EXPECT_EQ(tl::reshape(tl::reshape(s, {1, 1}), {}).item<std::int64_t>(), 7);
  EXPECT_EQ(tl::reshape(s, {1, -1}).shape(), (tl::Shape{1, 1}));
  const auto e = tl::zeros({0, 3});
  EXPECT_EQ(tl::reshape(e, {3, 0}).shape(), (tl::Shape{3, 0}));
  EXPECT_EQ(tl::reshape(e, {-1, 3}).shape(), (tl::Shape{0, 3}));
  EXPECT_EQ(tl::reshape(e, {-1}).shape(), (tl::Shape{0}));
  EXPECT_EQ(tl::reshape(e, {2, 0, 5}).shape(), (tl::Shape{2, 0, 5}));
}

TEST(ShapeReshape, Errors) {
  const auto x = tl::zeros({2, 3});
  expect_error_with<tl::ShapeError>([&] { tl::reshape(x, {4}); }, {"tl::reshape", "[2, 3]", "[4]"});
  expect_error_with<tl::ShapeError>([&] { tl::reshape(x, {7, 1}); }, {"tl::reshape", "[2, 3]", "[7, 1]"});
  expect_error_with<tl::ShapeError>([&] { tl::reshape(x, {-1, -1}); }, {"tl::reshape", "[-1, -1]"});
  expect_error_with<tl::ShapeError>([&] { tl::reshape(x, {4, -1}); }, {"tl::reshape", "[2, 3]", "[4, -1]"});
  // -1 next to a zero size is ambiguous: NumPy refuses it too.
  expect_error_with<tl::ShapeError>([&] { tl::reshape(tl::zeros({0, 3}), {0, -1}); }, {"tl::reshape", "[0, 3]"});
  expect_error_with<tl::ShapeError>([&] { tl::reshape(tl::scalar_tensor(1, tl::DType::f32), {2}); },
                               {"tl::reshape", "[]", "[2]"});
}

// Sizes below -1 are not a valid request; the message should name the op.
TEST(ShapeReshape, NegativeSizesOtherThanMinusOne) {
  const auto x = tl::zeros({2, 3});
  expect_error_with<tl::Error>([&] { tl::reshape(x, {-2, -3}); }, {"tl::reshape", "[-2, -3]"});
  expect_error_with<tl::Error>([&] { tl::reshape(x, {-1, -3}); }, {"tl::reshape"});
}

// ---- transpose / permute ---------------------------------------------------------------------

TEST(ShapeTranspose, Literal) {
  const auto x = tl::tensor({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {2, 3});
  const auto y = tl::transpose(x);
  EXPECT_EQ(y.shape(), (tl::Shape{3, 2}));
  EXPECT_EQ(vals(y), (Doubles{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(vals(tl::transpose(x, {1, 0})), (Doubles{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(vals(tl::transpose(x, {-1, -2})), (Doubles{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(vals(tl::transpose(x, {0, 1})), (Doubles{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(vals(x), (Doubles{1, 2, 3, 4, 5, 6}));  // the input is unchanged
}

// All six permutations of a rank-3 tensor, every dtype, negative entries too.
TEST(ShapeTranspose, EveryPermutationEveryDType) {
  const tl::Shape s{2, 3, 4};
  for (tl::DType t : tl::all_dtypes) {
    const auto x = seq(s, t);
    const Doubles xv = vals(x);
    Ints perm{0, 1, 2};
    do {
      const auto y = tl::transpose(x, perm);
      EXPECT_EQ(y.shape(), (tl::Shape{s[std::size_t(perm[0])], s[std::size_t(perm[1])], s[std::size_t(perm[2])]}));
      EXPECT_EQ(y.dtype(), t);
      EXPECT_EQ(vals(y), ref_transpose(xv, s, perm)) << tl::dtype_name(t) << " " << tl::shape_string(perm);
      const Ints negative{perm[0] - 3, perm[1] - 3, perm[2] - 3};
      EXPECT_EQ(vals(tl::transpose(x, negative)), ref_transpose(xv, s, perm)) << tl::dtype_name(t);
      EXPECT_EQ(vals(tl::permute(x, perm)), ref_transpose(xv, s, perm)) << tl::dtype_name(t);
      // The transpose's own transpose undoes it, for either spelling of the axes.
      EXPECT_EQ(vals(tl::derivatives::transpose_backward(y, perm)), xv) << tl::dtype_name(t);
      EXPECT_EQ(vals(tl::derivatives::transpose_backward(y, negative)), xv) << tl::dtype_name(t);
      EXPECT_EQ(tl::derivatives::transpose_backward(y, perm).shape(), s);
    } while (std::next_permutation(perm.begin(), perm.end()));
    const auto d = tl::transpose(x);
    EXPECT_EQ(d.shape(), (tl::Shape{4, 3, 2}));
    EXPECT_EQ(vals(d), ref_transpose(xv, s, {2, 1, 0})) << tl::dtype_name(t);
    EXPECT_EQ(vals(x), xv);
  }
}

TEST(ShapeTranspose, RankFourPermute) {
  const tl::Shape s{2, 3, 4, 5};
  const auto x = seq(s, tl::DType::i64);
  const Ints perm{2, 0, 3, 1};
  const auto y = tl::permute(x, perm);
  EXPECT_EQ(y.shape(), (tl::Shape{4, 2, 5, 3}));
  EXPECT_EQ(vals(y), ref_transpose(vals(x), s, perm));
  EXPECT_EQ(vals(tl::transpose(x)), ref_transpose(vals(x), s, {3, 2, 1, 0}));
}

TEST(ShapeTranspose, RankZeroOneAndEmpty) {
  const auto s = tl::scalar_tensor(2.5, tl::DType::f64);
  EXPECT_EQ(tl::transpose(s).shape(), tl::Shape{});
  EXPECT_EQ(tl::transpose(s).item<double>(), 2.5);
  EXPECT_EQ(tl::transpose(s, {}).item<double>(), 2.5);
  const auto v = tl::arange(5);
  EXPECT_EQ(vals(tl::transpose(v)), (Doubles{0, 1, 2, 3, 4}));
  EXPECT_EQ(vals(tl::transpose(v, {0})), (Doubles{0, 1, 2, 3, 4}));
  EXPECT_EQ(vals(tl::transpose(v, {-1})), (Doubles{0, 1, 2, 3, 4}));
  EXPECT_EQ(tl::transpose(tl::zeros({0, 3})).shape(), (tl::Shape{3, 0}));
  EXPECT_EQ(tl::transpose(tl::zeros({2, 0, 3}), {2, 0, 1}).shape(), (tl::Shape{3, 2, 0}));
  EXPECT_EQ(tl::transpose(tl::zeros({2, 0, 3}, tl::DType::bf16)).dtype(), tl::DType::bf16);
}

// Big enough to be split across threads; each element size takes its own copy loop.
TEST(ShapeTranspose, LargeMatchesNaiveLoop) {
  const std::int64_t rows = 1000, cols = 3000;
  std::vector<float> v(std::size_t(rows * cols));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = float(i);
  const auto x = tl::tensor(v, {rows, cols});
  const auto y = tl::transpose(x);
  ASSERT_EQ(y.shape(), (tl::Shape{cols, rows}));
  const float* p = y.data<float>();
  std::int64_t bad = 0;
  for (std::int64_t c = 0; c < cols; ++c)
    for (std::int64_t r = 0; r < rows; ++r) bad += p[c * rows + r] != v[std::size_t(r * cols + c)];
  EXPECT_EQ(bad, 0);
  for (tl::DType t : {tl::DType::f64, tl::DType::bf16, tl::DType::i8, tl::DType::boolean}) {
    const tl::Shape s{300, 200};
    const auto xs = seq(s, t);
    EXPECT_EQ(vals(tl::transpose(xs)), ref_transpose(vals(xs), s, {1, 0})) << tl::dtype_name(t);
  }
}

TEST(ShapeTranspose, Errors) {
  const auto x = tl::zeros({2, 3});
  expect_error_with<tl::AxisError>([&] { tl::transpose(x, {0}); }, {"tl::transpose"});
  expect_error_with<tl::AxisError>([&] { tl::transpose(x, {0, 1, 2}); }, {"tl::transpose"});
  expect_error_with<tl::AxisError>([&] { tl::transpose(x, {0, 0}); }, {"tl::transpose"});
  expect_error_with<tl::AxisError>([&] { tl::transpose(x, {0, 2}); }, {"tl::transpose"});
  expect_error_with<tl::AxisError>([&] { tl::transpose(x, {-3, 0}); }, {"tl::transpose"});
  expect_error_with<tl::AxisError>([&] { tl::transpose(tl::scalar_tensor(1, tl::DType::f32), {0}); },
                              {"tl::transpose"});
  // permute is transpose under another name; its errors say "transpose".
  expect_error_with<tl::AxisError>([&] { tl::permute(x, {1, 1}); }, {"transpose"});
  expect_error_with<tl::AxisError>([&] { tl::derivatives::transpose_backward(x, {1, 1}); }, {"tl::transpose_backward"});
  expect_error_with<tl::AxisError>([&] { tl::derivatives::transpose_backward(x, {0, 1, 2}); }, {"tl::transpose_backward"});
}

// ---- squeeze ---------------------------------------------------------------------------------

TEST(ShapeSqueeze, AllAndSpecificAxes) {
  const auto x = seq({1, 3, 1, 2}, tl::DType::f32);
  const Doubles xv = vals(x);
  EXPECT_EQ(tl::squeeze(x).shape(), (tl::Shape{3, 2}));
  EXPECT_EQ(tl::squeeze(x, {}).shape(), (tl::Shape{3, 2}));
  EXPECT_EQ(tl::squeeze(x, 0).shape(), (tl::Shape{3, 1, 2}));
  EXPECT_EQ(tl::squeeze(x, 2).shape(), (tl::Shape{1, 3, 2}));
  EXPECT_EQ(tl::squeeze(x, -2).shape(), (tl::Shape{1, 3, 2}));
  EXPECT_EQ(tl::squeeze(x, -4).shape(), (tl::Shape{3, 1, 2}));
  EXPECT_EQ(tl::squeeze(x, tl::Axes{0, 2}).shape(), (tl::Shape{3, 2}));
  EXPECT_EQ(tl::squeeze(x, tl::Axes{-2, 0}).shape(), (tl::Shape{3, 2}));
  EXPECT_EQ(tl::squeeze(x, tl::Axes(Ints{})).shape(), (tl::Shape{1, 3, 1, 2}));
  EXPECT_EQ(vals(tl::squeeze(x)), xv);
  EXPECT_EQ(tl::squeeze(x).raw_data(), x.raw_data());
  EXPECT_EQ(tl::squeeze(seq({2, 3}, tl::DType::i8)).shape(), (tl::Shape{2, 3}));
}

TEST(ShapeSqueeze, EveryDTypeRankZeroAndEmpty) {
  for (tl::DType t : tl::all_dtypes) {
    const auto x = seq({1, 4, 1}, t);
    const auto y = tl::squeeze(x);
    EXPECT_EQ(y.shape(), (tl::Shape{4}));
    EXPECT_EQ(y.dtype(), t);
    EXPECT_EQ(vals(y), vals(x)) << tl::dtype_name(t);
  }
  const auto s = tl::scalar_tensor(3, tl::DType::i64);
  EXPECT_EQ(tl::squeeze(s).shape(), tl::Shape{});
  EXPECT_EQ(tl::squeeze(s).item<std::int64_t>(), 3);
  EXPECT_EQ(tl::squeeze(tl::ones({1})).shape(), tl::Shape{});
  EXPECT_EQ(tl::squeeze(tl::ones({1, 1}), 1).shape(), (tl::Shape{1}));
  EXPECT_EQ(tl::squeeze(tl::zeros({0, 1})).shape(), (tl::Shape{0}));
  EXPECT_EQ(tl::squeeze(tl::zeros({1, 0, 1}), -1).shape(), (tl::Shape{1, 0}));
}

TEST(ShapeSqueeze, Errors) {
  const auto x = tl::zeros({1, 3, 1, 2});
  expect_error_with<tl::ShapeError>([&] { tl::squeeze(x, 1); }, {"tl::squeeze", "[1, 3, 1, 2]"});
  expect_error_with<tl::ShapeError>([&] { tl::squeeze(x, tl::Axes{0, -1}); }, {"tl::squeeze", "[1, 3, 1, 2]"});
  expect_error_with<tl::ShapeError>([&] { tl::squeeze(tl::zeros({0, 1}), 0); }, {"tl::squeeze", "[0, 1]"});
  expect_error_with<tl::AxisError>([&] { tl::squeeze(x, 4); }, {"tl::squeeze"});
  expect_error_with<tl::AxisError>([&] { tl::squeeze(x, -5); }, {"tl::squeeze"});
  expect_error_with<tl::AxisError>([&] { tl::squeeze(x, tl::Axes{0, 0}); }, {"tl::squeeze"});
  expect_error_with<tl::AxisError>([&] { tl::squeeze(x, tl::Axes{2, -2}); }, {"tl::squeeze"});
  expect_error_with<tl::AxisError>([&] { tl::squeeze(tl::scalar_tensor(1, tl::DType::f32), 0); }, {"tl::squeeze"});
}

// ---- expand_dims -----------------------------------------------------------------------------

TEST(ShapeExpandDims, EveryPositionBothSigns) {
  const auto x = seq({2, 3}, tl::DType::u8);
  const Doubles xv = vals(x);
  const std::vector<tl::Shape> want{{1, 2, 3}, {2, 1, 3}, {2, 3, 1}};
  for (std::int64_t a = 0; a <= 2; ++a) {
    EXPECT_EQ(tl::expand_dims(x, a).shape(), want[std::size_t(a)]) << a;
    EXPECT_EQ(tl::expand_dims(x, a - 3).shape(), want[std::size_t(a)]) << a - 3;
    EXPECT_EQ(vals(tl::expand_dims(x, a)), xv);
    EXPECT_EQ(tl::expand_dims(x, a).raw_data(), x.raw_data());
  }
  EXPECT_EQ(tl::expand_dims(tl::scalar_tensor(1, tl::DType::f32), 0).shape(), (tl::Shape{1}));
  EXPECT_EQ(tl::expand_dims(tl::scalar_tensor(1, tl::DType::f32), -1).shape(), (tl::Shape{1}));
  EXPECT_EQ(tl::expand_dims(tl::zeros({0}), 1).shape(), (tl::Shape{0, 1}));
  for (tl::DType t : tl::all_dtypes) {
    const auto y = tl::expand_dims(seq({4}, t), -1);
    EXPECT_EQ(y.shape(), (tl::Shape{4, 1}));
    EXPECT_EQ(y.dtype(), t);
    EXPECT_EQ(vals(y), vals(seq({4}, t)));
  }
}

TEST(ShapeExpandDims, Errors) {
  const auto x = tl::zeros({2, 3});
  expect_error_with<tl::AxisError>([&] { tl::expand_dims(x, 3); }, {"tl::expand_dims"});
  expect_error_with<tl::AxisError>([&] { tl::expand_dims(x, -4); }, {"tl::expand_dims"});
  expect_error_with<tl::AxisError>([&] { tl::expand_dims(tl::scalar_tensor(1, tl::DType::f32), 1); },
                              {"tl::expand_dims"});
}

// ---- broadcast_to ----------------------------------------------------------------------------

TEST(ShapeBroadcastTo, Literal) {
  const auto row = tl::tensor({1.f, 2.f, 3.f}, {3});
  EXPECT_EQ(vals(tl::broadcast_to(row, {2, 3})), (Doubles{1, 2, 3, 1, 2, 3}));
  const auto col = tl::tensor({1.f, 2.f}, {2, 1});
  EXPECT_EQ(vals(tl::broadcast_to(col, {2, 3})), (Doubles{1, 1, 1, 2, 2, 2}));
  EXPECT_EQ(vals(tl::broadcast_to(col, {2, 2, 2})), (Doubles{1, 1, 2, 2, 1, 1, 2, 2}));
  EXPECT_EQ(vals(tl::broadcast_to(tl::scalar_tensor(4, tl::DType::i32), {2, 2})), (Doubles{4, 4, 4, 4}));
  EXPECT_EQ(vals(tl::broadcast_to(row, {3})), (Doubles{1, 2, 3}));
  EXPECT_EQ(vals(row), (Doubles{1, 2, 3}));
}

TEST(ShapeBroadcastTo, EveryDTypeMatchesNaiveLoop) {
  const std::vector<std::pair<tl::Shape, tl::Shape>> cases{
      {{3}, {4, 3}},       {{2, 1}, {2, 5}},       {{1, 3}, {4, 1, 3}}, {{2, 1, 4}, {3, 2, 5, 4}},
      {{}, {3, 2}},        {{1}, {7}},             {{1, 1}, {2, 3}},    {{2, 3}, {1, 2, 3}},
      {{4, 1, 1}, {4, 3, 2}}};
  for (tl::DType t : tl::all_dtypes)
    for (const auto& [from, to] : cases) {
      const auto x = seq(from, t);
      const auto y = tl::broadcast_to(x, to);
      EXPECT_EQ(y.shape(), to);
      EXPECT_EQ(y.dtype(), t);
      EXPECT_EQ(vals(y), ref_broadcast(vals(x), from, to))
          << tl::dtype_name(t) << " " << tl::shape_string(from) << " to " << tl::shape_string(to);
    }
}

TEST(ShapeBroadcastTo, EmptyShapes) {
  EXPECT_EQ(tl::broadcast_to(tl::ones({1}), {0}).shape(), (tl::Shape{0}));
  EXPECT_EQ(tl::broadcast_to(tl::ones({3}), {0, 3}).shape(), (tl::Shape{0, 3}));
  EXPECT_EQ(tl::broadcast_to(tl::zeros({0}), {2, 0}).shape(), (tl::Shape{2, 0}));
  EXPECT_EQ(tl::broadcast_to(tl::scalar_tensor(1, tl::DType::u8), {0}).shape(), (tl::Shape{0}));
}

TEST(ShapeBroadcastTo, Errors) {
  expect_error_with<tl::ShapeError>([&] { tl::broadcast_to(tl::zeros({3}), {4}); }, {"tl::broadcast_to", "[3]", "[4]"});
  expect_error_with<tl::ShapeError>([&] { tl::broadcast_to(tl::zeros({2, 3}), {3}); },
                               {"tl::broadcast_to", "[2, 3]", "[3]"});
  expect_error_with<tl::ShapeError>([&] { tl::broadcast_to(tl::zeros({2, 1}), {3, 1}); },
                               {"tl::broadcast_to", "[2, 1]", "[3, 1]"});
  expect_error_with<tl::ShapeError>([&] { tl::broadcast_to(tl::zeros({3, 1}), {3}); },
                               {"tl::broadcast_to", "[3, 1]", "[3]"});
  expect_error_with<tl::ShapeError>([&] { tl::broadcast_to(tl::zeros({0}), {1}); }, {"tl::broadcast_to", "[0]", "[1]"});
  expect_error_with<tl::ShapeError>([&] { tl::broadcast_to(tl::zeros({2}), {}); }, {"tl::broadcast_to", "[2]", "[]"});
}

// A negative target size is bad input; the message should name the op.
TEST(ShapeBroadcastTo, NegativeTargetSize) {
  expect_error_with<tl::Error>([&] { tl::broadcast_to(tl::zeros({3}), {-1, 3}); }, {"tl::broadcast_to", "[-1, 3]"});
}

}  // namespace
