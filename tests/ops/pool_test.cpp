// max_pool2d and avg_pool2d against window loops written here in double.
#include <gtest/gtest.h>

#include <tlaloc/derivatives.hpp>
#include <tlaloc/tlaloc.hpp>

#include "support/expect_error.hpp"

#include "ir/op.hpp"

#include <climits>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace tl = tlaloc;

namespace {

using tltest::expect_error;

std::vector<double> noise(std::size_t n, std::uint32_t seed) {
  std::vector<double> v(n);
  std::uint32_t s = seed * 2654435761u + 1;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = double(s >> 8) / double(1 << 23) * 10 - 5;
  }
  return v;
}

// Padding is -inf for max and 0 for the average, whose divisor is always kH * kW.
std::vector<double> pool_ref(const std::vector<double>& x, const tl::Shape& s, const tl::Pool2dOptions& o,
                             bool is_max, std::int64_t oh, std::int64_t ow) {
  const std::int64_t sh = o.stride[0] ? o.stride[0] : o.kernel[0],
                     sw = o.stride[1] ? o.stride[1] : o.kernel[1];
  const std::int64_t h = s[2], w = s[3];
  std::vector<double> out;
  for (std::int64_t p = 0; p < s[0] * s[1]; ++p)
    for (std::int64_t y = 0; y < oh; ++y)
      for (std::int64_t xo = 0; xo < ow; ++xo) {
        double acc = is_max ? -INFINITY : 0.0;
        for (std::int64_t i = 0; i < o.kernel[0]; ++i)
          for (std::int64_t j = 0; j < o.kernel[1]; ++j) {
            const std::int64_t iy = y * sh - o.padding[0] + i, ix = xo * sw - o.padding[1] + j;
            const bool inside = iy >= 0 && iy < h && ix >= 0 && ix < w;
            const double v = inside ? x[std::size_t((p * h + iy) * w + ix)] : (is_max ? -INFINITY : 0.0);
            acc = is_max ? std::max(acc, v) : acc + v;
          }
        out.push_back(is_max ? acc : acc / double(o.kernel[0] * o.kernel[1]));
      }
  return out;
}

void check_pool(const tl::Shape& s, const tl::Pool2dOptions& o, tl::DType t, double tol) {
  std::size_t n = 1;
  for (auto d : s) n *= std::size_t(d);
  const tl::Tensor x = tl::tensor(noise(n, 3), s).astype(t);
  const auto xv = x.to_vector<double>();
  const std::int64_t sh = o.stride[0] ? o.stride[0] : o.kernel[0],
                     sw = o.stride[1] ? o.stride[1] : o.kernel[1];
  const std::int64_t oh = (s[2] + 2 * o.padding[0] - o.kernel[0]) / sh + 1;
  const std::int64_t ow = (s[3] + 2 * o.padding[1] - o.kernel[1]) / sw + 1;
  for (bool is_max : {true, false}) {
    const tl::Tensor y = is_max ? tl::max_pool2d(x, o) : tl::avg_pool2d(x, o);
    ASSERT_EQ(y.shape(), (tl::Shape{s[0], s[1], oh, ow}));
    EXPECT_EQ(y.dtype(), t);
    const auto got = y.to_vector<double>(), want = pool_ref(xv, s, o, is_max, oh, ow);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << (is_max ? "max " : "avg ") << i;
  }
}

std::vector<std::pair<tl::Shape, tl::Pool2dOptions>> pool_cases() {
  return {
      {{1, 1, 4, 4}, {{2, 2}, {0, 0}, {0, 0}}},
      {{2, 3, 7, 6}, {{3, 2}, {0, 0}, {0, 0}}},  // stride = kernel, leftover rows dropped
      {{2, 3, 7, 8}, {{3, 3}, {1, 2}, {1, 1}}},  // stride 1 and 2, padding
      {{1, 2, 5, 5}, {{2, 4}, {2, 1}, {1, 2}}},  // padding = kernel / 2
      {{2, 2, 6, 6}, {{1, 1}, {2, 2}, {0, 0}}},  // 1x1 window: strided subsampling
      {{1, 1, 3, 3}, {{3, 3}, {1, 1}, {0, 0}}},  // window as large as the input
      {{3, 4, 33, 30}, {{3, 3}, {2, 2}, {1, 1}}},
  };
}

TEST(Pool2d, HandExample) {
  const tl::Tensor x =
      tl::tensor(std::vector<float>{1.f, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, {1, 1, 4, 4});
  EXPECT_EQ(tl::max_pool2d(x, {}).to_vector<float>(), (std::vector<float>{6, 8, 14, 16}));
  EXPECT_EQ(tl::avg_pool2d(x, {}).to_vector<float>(), (std::vector<float>{3.5, 5.5, 11.5, 13.5}));
  // Padding 1, window 2, stride 2: the corner window holds x[0][0] and three padding cells.
  const tl::Pool2dOptions pad{{2, 2}, {2, 2}, {1, 1}};
  const auto avg = tl::avg_pool2d(x, pad).to_vector<float>();
  ASSERT_EQ(avg.size(), 9u);
  EXPECT_EQ(avg[0], 0.25f);
  EXPECT_EQ(avg[4], (6 + 7 + 10 + 11) / 4.f);
  EXPECT_EQ(tl::max_pool2d(-x, pad).to_vector<float>()[0], -1.f);  // padding never wins a max
}

TEST(Pool2d, MatchesWindowLoop) {
  for (const auto& [s, o] : pool_cases()) {
    check_pool(s, o, tl::DType::f32, 1e-6);
    check_pool(s, o, tl::DType::f64, 1e-14);
  }
}

TEST(Pool2d, HalfPrecision) {
  check_pool({2, 3, 7, 8}, {{3, 3}, {1, 2}, {1, 1}}, tl::DType::bf16, 1e-2);
  check_pool({2, 3, 7, 8}, {{3, 3}, {1, 2}, {1, 1}}, tl::DType::f16, 1e-3);
}

TEST(Pool2d, IntegerAndBoolInputs) {
  const tl::Tensor x = tl::tensor(std::vector<std::int32_t>{-3, 7, 1, -9, 4, 4, 0, 2, -1}, {1, 1, 3, 3});
  const tl::Pool2dOptions o{{2, 2}, {1, 1}, {0, 0}};
  const tl::Tensor m = tl::max_pool2d(x, o);
  EXPECT_EQ(m.dtype(), tl::DType::i32);
  EXPECT_EQ(m.to_vector<std::int32_t>(), (std::vector<std::int32_t>{7, 7, 4, 4}));
  // The average of integers is f32.
  const tl::Tensor a = tl::avg_pool2d(x, o);
  EXPECT_EQ(a.dtype(), tl::DType::f32);
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{-0.25f, 4.f, -0.75f, 2.25f}));
  // Padding with the smallest value keeps u8's max right.
  const tl::Tensor u = tl::tensor(std::vector<std::uint8_t>{0, 200, 3, 255}, {1, 1, 2, 2});
  EXPECT_EQ(tl::max_pool2d(u, {{2, 2}, {1, 1}, {1, 1}}).to_vector<std::uint8_t>(),
            (std::vector<std::uint8_t>{0, 200, 200, 3, 255, 255, 3, 255, 255}));
  const tl::Tensor b = tl::tensor(std::vector<bool>{false, false, true, false}, {1, 1, 2, 2});
  EXPECT_EQ(tl::max_pool2d(b, {{1, 2}, {1, 1}, {0, 0}}).to_vector<bool>(), (std::vector<bool>{false, true}));
  const tl::Tensor i8 = tl::tensor(std::vector<std::int8_t>{-128, 5, 127, -1}, {1, 1, 2, 2});
  EXPECT_EQ(tl::max_pool2d(i8, {}).item<std::int8_t>(), 127);
  EXPECT_EQ(tl::max_pool2d(i8.astype(tl::DType::i64), {}).item<std::int64_t>(), 127);
}

TEST(Pool2d, NaNPropagatesThroughMax) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const tl::Tensor x = tl::tensor(std::vector<float>{1.f, nan, 3, 4, 5, 6, 7, 8}, {1, 1, 2, 4});
  const auto m = tl::max_pool2d(x, {}).to_vector<float>();
  EXPECT_TRUE(std::isnan(m[0]));
  EXPECT_EQ(m[1], 8.f);
}

TEST(Pool2d, EmptyTensors) {
  EXPECT_EQ(tl::max_pool2d(tl::zeros({0, 3, 4, 4}), {}).shape(), (tl::Shape{0, 3, 2, 2}));
  EXPECT_EQ(tl::avg_pool2d(tl::zeros({2, 0, 4, 4}), {}).shape(), (tl::Shape{2, 0, 2, 2}));
}

// The primitive allows asymmetric padding; the padded cells hold the identity.
TEST(PoolPrimitive, AsymmetricPadding) {
  const tl::detail::OpDef* op = tl::detail::find_op("pool");
  ASSERT_NE(op, nullptr);
  const tl::Tensor x = tl::tensor(std::vector<float>{1, -2, 3, -4, 5, -6}, {1, 1, 2, 3});
  using V = std::vector<std::int64_t>;
  tl::detail::Attrs attrs{{"window_dimensions", V{1, 1, 2, 2}},
                          {"window_strides", V{1, 1, 1, 2}},
                          {"padding_low", V{0, 0, 0, 1}},
                          {"padding_high", V{0, 0, 1, 0}},
                          {"reduction", std::string("max")}};
  // Padded: [[p, 1, -2, 3], [p, -4, 5, -6], [p, p, p, p]]; windows start at columns 0 and 2.
  const tl::Tensor m = tl::detail::call1(*op, {x}, attrs);
  EXPECT_EQ(m.shape(), (tl::Shape{1, 1, 2, 2}));
  EXPECT_EQ(m.to_vector<float>(), (std::vector<float>{1, 5, -4, 5}));
  attrs.set("reduction", std::string("sum"));
  EXPECT_EQ(tl::detail::call1(*op, {x}, attrs).to_vector<float>(), (std::vector<float>{-3, 0, -4, -1}));
  // Integer sums wrap around instead of overflowing.
  const tl::Tensor big = tl::full({1, 1, 1, 2}, std::int64_t(INT64_MAX), tl::DType::i64);
  attrs.set("window_dimensions", V{1, 1, 1, 2});
  attrs.set("window_strides", V{1, 1, 1, 1});
  attrs.set("padding_low", V{0, 0, 0, 0});
  attrs.set("padding_high", V{0, 0, 0, 0});
  EXPECT_EQ(tl::detail::call1(*op, {big}, attrs).item<std::int64_t>(), -2);
}


TEST(Pool2d, Errors) {
  const tl::Tensor x = tl::zeros({1, 2, 5, 5});
  for (const char* name : {"max_pool2d", "avg_pool2d"}) {
    auto pool = [name](const tl::Tensor& a, tl::Pool2dOptions o) {
      return [=] { std::string(name) == "max_pool2d" ? tl::max_pool2d(a, o) : tl::avg_pool2d(a, o); };
    };
    expect_error<tl::ShapeError>(pool(tl::zeros({2, 5, 5}), {}), name);
    expect_error<tl::ValueError>(pool(x, {{0, 2}, {0, 0}, {0, 0}}), name);
    expect_error<tl::ValueError>(pool(x, {{2, 2}, {-1, 0}, {0, 0}}), name);
    expect_error<tl::ValueError>(pool(x, {{2, 2}, {0, 0}, {-1, 0}}), name);
    expect_error<tl::ValueError>(pool(x, {{3, 3}, {0, 0}, {2, 0}}), name);  // padding > kernel / 2
    expect_error<tl::ShapeError>(pool(x, {{6, 2}, {0, 0}, {0, 0}}), name);  // window larger than the input
  }
}

TEST(PoolPrimitive, RuleErrorsNameThePrimitive) {
  const tl::detail::OpDef* op = tl::detail::find_op("pool");
  ASSERT_NE(op, nullptr);
  using V = std::vector<std::int64_t>;
  tl::detail::Attrs attrs{{"window_dimensions", V{2, 1, 2, 2}},
                          {"window_strides", V{1, 1, 1, 1}},
                          {"padding_low", V{0, 0, 0, 0}},
                          {"padding_high", V{0, 0, 0, 0}},
                          {"reduction", std::string("max")}};
  const tl::Tensor x = tl::zeros({2, 1, 3, 3});
  expect_error<tl::ValueError>([&] { tl::detail::call1(*op, {x}, attrs); }, "pool");  // batch window
  attrs.set("window_dimensions", V{1, 1, 2, 2});
  attrs.set("reduction", std::string("min"));
  expect_error<tl::ValueError>([&] { tl::detail::call1(*op, {x}, attrs); }, "pool");
  attrs.set("reduction", std::string("sum"));
  expect_error<tl::ShapeError>([&] { tl::detail::call1(*op, {tl::zeros({3, 3})}, attrs); }, "pool");
}

TEST(PoolPrimitive, MaxPoolGradErrorsNameTheOpAndShapes) {
  const tl::detail::OpDef* op = tl::detail::find_op("max_pool_grad");
  ASSERT_NE(op, nullptr);
  using V = std::vector<std::int64_t>;
  tl::detail::Attrs attrs{{"window_dimensions", V{1, 1, 2, 2}},
                          {"window_strides", V{1, 1, 2, 2}},
                          {"padding_low", V{0, 0, 0, 0}},
                          {"padding_high", V{0, 0, 0, 0}},
                          {"reduction", std::string("max")}};
  const tl::Tensor x = tl::zeros({2, 1, 4, 4}), y = tl::zeros({2, 1, 2, 2});
  expect_error<tl::ShapeError>([&] { tl::detail::call1(*op, {x, y, tl::zeros({2, 1, 3, 2})}, attrs); },
                               "max_pool_grad", "[2, 1, 2, 2]", "[2, 1, 3, 2]");
  expect_error<tl::DTypeError>([&] { tl::detail::call1(*op, {x, y, tl::zeros({2, 1, 2, 2}, tl::DType::f64)}, attrs); },
                               "max_pool_grad", "f64");
  attrs.set("reduction", std::string("sum"));
  expect_error<tl::ValueError>([&] { tl::detail::call1(*op, {x, y, y}, attrs); }, "max_pool_grad", "sum");
}

// ---- the pools' derivatives as functions ---------------------------------------------

tl::Tensor wavy(const tl::Shape& s, double phase) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return tl::sin(tl::reshape(tl::arange(n).astype(tl::DType::f32), s) * 0.61f + float(phase));
}

// The same bits as the engine's pullbacks and tangents.
TEST(PoolBackward, SameBitsAsTheEngine) {
  const tl::Tensor x = wavy({2, 3, 7, 6}, 0.4);
  for (const tl::Pool2dOptions& opt :
       {tl::Pool2dOptions{}, tl::Pool2dOptions{.kernel = {3, 2}, .stride = {2, 1}, .padding = {1, 1}}}) {
    auto [y, pullback] = tl::vjp([&](const tl::Tensor& a) { return tl::max_pool2d(a, opt); }, x);
    const tl::Tensor g = wavy(y.shape(), 1.7);
    EXPECT_EQ(tl::derivatives::max_pool2d_backward(g, x, y, opt).to_vector<float>(), pullback(g).at(0).to_vector<float>());
    const tl::Tensor t = wavy(x.shape(), 2.9);
    auto [y2, tangent] = tl::jvp([&](const tl::Tensor& a) { return tl::max_pool2d(a, opt); }, x, t);
    EXPECT_EQ(tl::derivatives::max_pool2d_jvp(t, x, y, opt).to_vector<float>(), tangent.to_vector<float>());
    auto [z, avg_pullback] = tl::vjp([&](const tl::Tensor& a) { return tl::avg_pool2d(a, opt); }, x);
    const tl::Tensor h = wavy(z.shape(), 0.8);
    EXPECT_EQ(tl::derivatives::avg_pool2d_backward(h, x.shape(), opt).to_vector<float>(),
              avg_pullback(h).at(0).to_vector<float>());
    // A window of 6: the pool of t divided by 6 would differ in the last place.
    auto [z2, avg_tangent] = tl::jvp([&](const tl::Tensor& a) { return tl::avg_pool2d(a, opt); }, x, t);
    EXPECT_EQ(tl::derivatives::avg_pool2d_jvp(t, opt).to_vector<float>(), avg_tangent.to_vector<float>());
  }
  expect_error<tl::ShapeError>([&] { tl::derivatives::max_pool2d_backward(x, x, x, {}); }, "max_pool2d_backward");
  expect_error<tl::ShapeError>([&] { tl::derivatives::avg_pool2d_backward(x, x.shape(), {}); }, "avg_pool2d_backward");
  const tl::Tensor flat = tl::zeros({7, 6});
  expect_error<tl::ShapeError>([&] { tl::derivatives::avg_pool2d_jvp(flat, {}); }, "avg_pool2d_jvp", "[7, 6]");
}

// By hand: each window's derivative goes to its maximum; the average spreads a quarter.
TEST(PoolBackward, ByHand) {
  const tl::Tensor x = tl::tensor({1.f, 5.f, 2.f, 0.f, 3.f, 4.f, 7.f, 1.f}, {1, 1, 2, 4});
  const tl::Tensor y = tl::max_pool2d(x, {});
  const tl::Tensor g = tl::tensor({10.f, 20.f}, {1, 1, 1, 2});
  EXPECT_EQ(tl::derivatives::max_pool2d_backward(g, x, y, {}).to_vector<float>(),
            (std::vector<float>{0, 10, 0, 0, 0, 0, 20, 0}));
  EXPECT_EQ(tl::derivatives::avg_pool2d_backward(g, x.shape(), {}).to_vector<float>(),
            (std::vector<float>{2.5f, 2.5f, 5, 5, 2.5f, 2.5f, 5, 5}));
}

}  // namespace
