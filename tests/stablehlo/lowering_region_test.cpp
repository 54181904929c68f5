// Library ops whose lowerings record region ops (pools, arg-reductions, scans)
// traced, emitted as StableHLO text, parsed back and interpreted: the results
// must equal eager calls bit for bit, because the interpreter's reduce_window
// and reduce fast paths share the eager kernels' accumulators and order.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>

#include "interp/interpreter.hpp"
#include "ir/builder.hpp"
#include "stablehlo/stablehlo.hpp"
#include "support/lowering.hpp"
#include "tlaloc/tlaloc.hpp"

namespace tl = tlaloc;

namespace {

using tltest::expect_round_trip;
using tltest::Fn;

Fn unary(std::function<tl::Tensor(const tl::Tensor&)> f) {
  return [f](std::span<const tl::Tensor> a) { return std::vector<tl::Tensor>{f(a[0])}; };
}

// 1x2x4x5 with NaN, negative zero and ties.
tl::Tensor image() {
  std::vector<float> v(40);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = float((int(i) * 7) % 11) - 5.0f;
  v[3] = std::nanf("");
  v[12] = -0.0f;
  v[25] = 1e30f;
  return tl::tensor(v, {1, 2, 4, 5});
}

TEST(LoweringRegion, MaxPool) {
  for (const tl::Pool2dOptions& o :
       {tl::Pool2dOptions{{2, 2}, {0, 0}, {0, 0}}, tl::Pool2dOptions{{3, 2}, {1, 2}, {1, 1}}}) {
    expect_round_trip(unary([o](const tl::Tensor& x) { return tl::max_pool2d(x, o); }), {image()},
                      "reduce_window");
    expect_round_trip(unary([o](const tl::Tensor& x) { return tl::max_pool2d(x, o); }),
                      {image().astype(tl::DType::i32)}, "reduce_window");
    expect_round_trip(unary([o](const tl::Tensor& x) { return tl::max_pool2d(x, o); }),
                      {image().astype(tl::DType::f16)}, "reduce_window");
  }
}

// The divisor counts padding (the library's rule), so it is the constant kernel
// area: the lowering divides the window sums by it, as the eager op does.
TEST(LoweringRegion, AvgPool) {
  for (const tl::Pool2dOptions& o :
       {tl::Pool2dOptions{{2, 2}, {1, 1}, {1, 1}}, tl::Pool2dOptions{{3, 3}, {2, 2}, {1, 0}}}) {
    expect_round_trip(unary([o](const tl::Tensor& x) { return tl::avg_pool2d(x, o); }), {image()},
                      "reduce_window");
    expect_round_trip(unary([o](const tl::Tensor& x) { return tl::avg_pool2d(x, o); }),
                      {image().astype(tl::DType::bf16)}, "reduce_window");
    expect_round_trip(unary([o](const tl::Tensor& x) { return tl::avg_pool2d(x, o); }),
                      {image().astype(tl::DType::i64)}, "reduce_window");
  }
}

// Ties go to the first index; NaN is the extreme (its first occurrence).
TEST(LoweringRegion, ArgMaxArgMin) {
  const tl::Tensor x = tl::tensor(
      {3.0f, 7.0f, 7.0f, -1.0f, std::nanf(""), 2.0f, std::nanf(""), -1.0f, 5.0f, -0.0f, 0.0f, 5.0f}, {3, 4});
  for (std::int64_t axis : {0, 1, -1})
    for (bool keep : {false, true}) {
      expect_round_trip(unary([=](const tl::Tensor& a) { return tl::argmax(a, axis, keep); }), {x}, "reduce");
      expect_round_trip(unary([=](const tl::Tensor& a) { return tl::argmin(a, axis, keep); }), {x}, "reduce");
    }
  const tl::Tensor i = tl::tensor(std::vector<std::int32_t>{4, -2, 4, INT32_MIN, 9, 9, INT32_MIN, 0}, {2, 4});
  expect_round_trip(unary([](const tl::Tensor& a) { return tl::argmax(a, 1); }), {i}, "reduce");
  expect_round_trip(unary([](const tl::Tensor& a) { return tl::argmin(a, 1); }), {i}, "reduce");
  expect_round_trip(unary([](const tl::Tensor& a) { return tl::argmax(a); }), {i}, "reduce");
}

TEST(LoweringRegion, CumsumCumprod) {
  const tl::Tensor x = tl::tensor({0.5f, -0.0f, 3.0f, 1e-8f, std::nanf(""), 2.0f, -4.0f, 1e30f}, {2, 4});
  for (std::int64_t axis : {0, 1}) {
    expect_round_trip(unary([=](const tl::Tensor& a) { return tl::cumsum(a, axis); }), {x}, "reduce_window");
    expect_round_trip(unary([=](const tl::Tensor& a) { return tl::cumprod(a, axis); }), {x}, "reduce_window");
    expect_round_trip(unary([=](const tl::Tensor& a) { return tl::cumsum(a, axis); }),
                      {x.astype(tl::DType::f16)}, "reduce_window");
  }
  // Integers widen to i64 and wrap.
  const tl::Tensor i = tl::tensor(std::vector<std::int64_t>{INT64_MAX, 1, -3, 1 << 30, 1 << 30, 8}, {6});
  expect_round_trip(unary([](const tl::Tensor& a) { return tl::cumsum(a, 0); }), {i}, "reduce_window");
  expect_round_trip(unary([](const tl::Tensor& a) { return tl::cumprod(a, 0); }), {i}, "reduce_window");
  expect_round_trip(unary([](const tl::Tensor& a) { return tl::cumsum(a, 0); }),
                    {tl::tensor(std::vector<std::int8_t>{100, 100, 100}, {3})}, "reduce_window");
}

}  // namespace
