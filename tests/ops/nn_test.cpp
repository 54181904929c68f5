// softmax, log_softmax, one_hot and embedding against hand formulas and loops.
#include <gtest/gtest.h>

#include <tlaloc/tlaloc.hpp>

#include "support/expect_error.hpp"

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace tl = tlaloc;

namespace {

using tltest::expect_error;

const double inf = std::numeric_limits<double>::infinity();


void expect_all_near(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

// ---- softmax / log_softmax ------------------------------------------------------

TEST(Softmax, HandFormula) {
  const double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  const tl::Tensor x = tl::tensor({1.0, 2.0, 3.0}, {3});
  expect_all_near(tl::softmax(x).to_vector<double>(),
                  {std::exp(1.0) / z, std::exp(2.0) / z, std::exp(3.0) / z}, 1e-15);
  expect_all_near(tl::log_softmax(x).to_vector<double>(), {1 - std::log(z), 2 - std::log(z), 3 - std::log(z)},
                  1e-15);
}

TEST(Softmax, RowsSumToOneAlongEachAxis) {
  std::vector<float> v(24);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = float(std::sin(double(i)) * 4);
  const tl::Tensor x = tl::tensor(v, {2, 3, 4});
  for (std::int64_t axis : {0, 1, 2, -1, -3}) {
    const tl::Tensor s = tl::softmax(x, axis);
    EXPECT_EQ(s.shape(), x.shape());
    EXPECT_EQ(s.dtype(), tl::DType::f32);
    const std::int64_t a = axis < 0 ? axis + 3 : axis;
    const tl::Shape& sh = x.shape();
    const auto sv = s.to_vector<double>();
    const auto ls = tl::log_softmax(x, axis).to_vector<double>();
    // Walk every row along `a` and compare with exp(x_i) / sum_j exp(x_j).
    const std::int64_t inner = a == 2 ? 1 : a == 1 ? 4 : 12, len = sh[std::size_t(a)];
    for (std::int64_t start = 0; start < 24; ++start) {
      if ((start / inner) % len != 0) continue;  // first element of a row
      double z = 0, sum = 0;
      for (std::int64_t k = 0; k < len; ++k) z += std::exp(double(v[std::size_t(start + k * inner)]));
      for (std::int64_t k = 0; k < len; ++k) {
        const std::size_t i = std::size_t(start + k * inner);
        EXPECT_NEAR(sv[i], std::exp(double(v[i])) / z, 1e-6);
        EXPECT_NEAR(ls[i], double(v[i]) - std::log(z), 1e-5);
        sum += sv[i];
      }
      EXPECT_NEAR(sum, 1.0, 1e-6);
    }
  }
}

TEST(Softmax, LargeValuesDoNotOverflow) {
  const tl::Tensor x = tl::tensor({1000.f, 1001.f, 1002.f, -1000.f}, {4});
  const double z = std::exp(0.0) + std::exp(1.0) + std::exp(2.0);  // exp(-2002) vanishes
  expect_all_near(tl::softmax(x).to_vector<double>(), {1 / z, std::exp(1.0) / z, std::exp(2.0) / z, 0.0},
                  1e-6);
  expect_all_near(tl::log_softmax(x).to_vector<double>(),
                  {-2 - std::log(z / std::exp(2.0)) + 0, 1 - 2 - std::log(z / std::exp(2.0)),
                   -std::log(z / std::exp(2.0)), -2002 - std::log(z / std::exp(2.0))},
                  1e-4);
  // A value that exp alone would turn into 0: log_softmax keeps it finite.
  const tl::Tensor y = tl::tensor({0.0, -800.0}, {2});
  expect_all_near(tl::log_softmax(y).to_vector<double>(), {0.0, -800.0}, 1e-12);
}

TEST(Softmax, InfinitiesFollowPyTorch) {
  const tl::Tensor x = tl::tensor({-inf, 0.0, -inf, -inf, 1.0, inf}, {3, 2});
  const auto s = tl::softmax(x, 1).to_vector<double>();
  EXPECT_EQ(s[0], 0.0);  // -inf next to a finite value
  EXPECT_EQ(s[1], 1.0);
  EXPECT_TRUE(std::isnan(s[2]) && std::isnan(s[3]));  // a row of -inf is 0/0
  EXPECT_TRUE(std::isnan(s[4]) && std::isnan(s[5]));  // +inf gives inf - inf
  const auto l = tl::log_softmax(x, 1).to_vector<double>();
  EXPECT_EQ(l[0], -inf);
  EXPECT_EQ(l[1], 0.0);
  EXPECT_TRUE(std::isnan(l[2]) && std::isnan(l[3]));
}

TEST(Softmax, DTypes) {
  const tl::Tensor i = tl::tensor(std::vector<std::int32_t>{0, 1}, {2});
  const tl::Tensor s = tl::softmax(i);
  EXPECT_EQ(s.dtype(), tl::DType::f32);
  const double e = std::exp(1.0);
  expect_all_near(s.to_vector<double>(), {1 / (1 + e), e / (1 + e)}, 1e-7);
  EXPECT_EQ(tl::log_softmax(i).dtype(), tl::DType::f32);
  EXPECT_EQ(tl::softmax(tl::tensor({0.0, 1.0}, {2})).dtype(), tl::DType::f64);
  for (tl::DType t : {tl::DType::bf16, tl::DType::f16}) {
    const tl::Tensor h = tl::softmax(i.astype(t));
    EXPECT_EQ(h.dtype(), t);
    expect_all_near(h.to_vector<double>(), {1 / (1 + e), e / (1 + e)}, 1e-2);
  }
}

TEST(Softmax, RankZeroAndEmpty) {
  EXPECT_EQ(tl::softmax(tl::scalar_tensor(3.5, tl::DType::f32)).item<float>(), 1.f);
  EXPECT_EQ(tl::log_softmax(tl::scalar_tensor(3.5, tl::DType::f32)).item<float>(), 0.f);
  EXPECT_EQ(tl::softmax(tl::scalar_tensor(3.5, tl::DType::f32)).rank(), 0);
  EXPECT_EQ(tl::softmax(tl::zeros({2, 0})).shape(), (tl::Shape{2, 0}));
  EXPECT_EQ(tl::log_softmax(tl::zeros({0, 3})).shape(), (tl::Shape{0, 3}));
}

TEST(Softmax, Errors) {
  expect_error<tl::AxisError>([] { tl::softmax(tl::zeros({2, 3}), 2); }, "softmax");
  expect_error<tl::AxisError>([] { tl::log_softmax(tl::zeros({2, 3}), -3); }, "log_softmax");
  expect_error<tl::AxisError>([] { tl::softmax(tl::scalar_tensor(1.0, tl::DType::f32), 1); }, "softmax");
}

// ---- one_hot ------------------------------------------------------------------

TEST(OneHot, RowsAndOutOfRangeZeros) {
  const tl::Tensor idx = tl::tensor(std::vector<std::int64_t>{0, 2, -1, 3, 1}, {5});
  const tl::Tensor y = tl::one_hot(idx, 3);
  EXPECT_EQ(y.dtype(), tl::DType::f32);
  EXPECT_EQ(y.shape(), (tl::Shape{5, 3}));
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0}));
}

TEST(OneHot, ShapesAndDTypes) {
  const tl::Tensor idx = tl::tensor(std::vector<std::int32_t>{1, 0, 3, 2}, {2, 2});
  const tl::Tensor y = tl::one_hot(idx, 4, tl::DType::i32);
  EXPECT_EQ(y.shape(), (tl::Shape{2, 2, 4}));
  EXPECT_EQ(y.dtype(), tl::DType::i32);
  EXPECT_EQ(y.to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0}));
  // u8 and i8 indices; more classes than an i8 can name.
  const tl::Tensor u = tl::tensor(std::vector<std::uint8_t>{200}, {1});
  EXPECT_EQ(tl::one_hot(u, 300, tl::DType::boolean).to_vector<bool>()[200], true);
  const tl::Tensor s = tl::tensor(std::vector<std::int8_t>{-1, 1}, {2});
  EXPECT_EQ(tl::one_hot(s, 200, tl::DType::f64).to_vector<double>()[200 + 1], 1.0);
  EXPECT_EQ(tl::sum(tl::one_hot(s, 200, tl::DType::f64)).item<double>(), 1.0);
  // Rank 0 gives one row; zero classes and empty indices give empty results.
  EXPECT_EQ(tl::one_hot(tl::scalar_tensor(2, tl::DType::i64), 3).to_vector<float>(),
            (std::vector<float>{0, 0, 1}));
  EXPECT_EQ(tl::one_hot(idx, 0).shape(), (tl::Shape{2, 2, 0}));
  EXPECT_EQ(tl::one_hot(tl::zeros({0}, tl::DType::i64), 5).shape(), (tl::Shape{0, 5}));
}

// Any integer dtype indexes; the largest u64 values are out of range (no class).
TEST(OneHot, NewIntegerIndexTypes) {
  const tl::Tensor u =
      tl::tensor(std::vector<std::uint64_t>{18446744073709551615ull, 9223372036854775808ull, 1});
  EXPECT_EQ(tl::one_hot(u, 3).to_vector<float>(), (std::vector<float>{0, 0, 0, 0, 0, 0, 0, 1, 0}));
  const tl::Tensor s = tl::tensor(std::vector<std::int16_t>{-1, 2});
  EXPECT_EQ(tl::one_hot(s, 3, tl::DType::u16).to_vector<int>(), (std::vector<int>{0, 0, 0, 0, 0, 1}));
  const tl::Tensor w = tl::tensor(std::vector<std::uint32_t>{4294967295u, 0});
  EXPECT_EQ(tl::one_hot(w, 2, tl::DType::u32).to_vector<int>(), (std::vector<int>{0, 0, 1, 0}));
}

TEST(OneHot, Errors) {
  expect_error<tl::DTypeError>([] { tl::one_hot(tl::zeros({2}), 3); }, "one_hot");
  expect_error<tl::DTypeError>([] { tl::one_hot(tl::zeros({2}, tl::DType::boolean), 3); }, "one_hot");
  expect_error<tl::ValueError>([] { tl::one_hot(tl::zeros({2}, tl::DType::i64), -1); }, "one_hot");
}

// ---- embedding --------------------------------------------------------------------

TEST(Embedding, RowsOfWeight) {
  const tl::Tensor w = tl::tensor(std::vector<float>{0, 1, 10, 11, 20, 21, 30, 31}, {4, 2});
  const tl::Tensor idx = tl::tensor(std::vector<std::int64_t>{3, 0, 0, 2, 1, 3}, {2, 3});
  const tl::Tensor y = tl::embedding(w, idx);
  EXPECT_EQ(y.shape(), (tl::Shape{2, 3, 2}));
  EXPECT_EQ(y.dtype(), tl::DType::f32);
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{30, 31, 0, 1, 0, 1, 20, 21, 10, 11, 30, 31}));
  // Negative indices count from the end; any integer index dtype works.
  const tl::Tensor neg = tl::tensor(std::vector<std::int32_t>{-1, -4}, {2});
  EXPECT_EQ(tl::embedding(w, neg).to_vector<float>(), (std::vector<float>{30, 31, 0, 1}));
  const tl::Tensor u = tl::tensor(std::vector<std::uint8_t>{2}, {1});
  EXPECT_EQ(tl::embedding(w.astype(tl::DType::i64), u).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{20, 21}));
}

TEST(Embedding, RankZeroAndEmpty) {
  const tl::Tensor w = tl::tensor(std::vector<double>{1, 2, 3, 4, 5, 6}, {3, 2});
  const tl::Tensor one = tl::embedding(w, tl::scalar_tensor(1, tl::DType::i64));
  EXPECT_EQ(one.shape(), (tl::Shape{2}));
  EXPECT_EQ(one.to_vector<double>(), (std::vector<double>{3, 4}));
  EXPECT_EQ(tl::embedding(w, tl::zeros({0, 4}, tl::DType::i32)).shape(), (tl::Shape{0, 4, 2}));
}

TEST(Embedding, Errors) {
  const tl::Tensor w = tl::zeros({4, 2});
  expect_error<tl::AxisError>(
      [&] {
        tl::embedding(w, tl::tensor(std::vector<std::int64_t>{1, 4}, {2}));
      },
      "embedding");
  expect_error<tl::AxisError>([&] { tl::embedding(w, tl::tensor(std::vector<std::int64_t>{-5}, {1})); },
                              "embedding");
  expect_error<tl::DTypeError>([&] { tl::embedding(w, tl::zeros({2})); }, "embedding");
  expect_error<tl::ShapeError>(
      [&] { tl::embedding(tl::scalar_tensor(1.0, tl::DType::f32), tl::zeros({2}, tl::DType::i64)); },
      "embedding");
  // The message names the bad index and the number of rows.
  try {
    tl::embedding(w, tl::tensor(std::vector<std::int64_t>{7}, {1}));
  } catch (const tl::AxisError& e) {
    EXPECT_NE(std::string(e.what()).find("7"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("size 4"), std::string::npos) << e.what();
  }
}

}  // namespace
