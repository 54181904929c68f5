// Library elementwise ops traced, lowered to StableHLO text, parsed back and
// interpreted: the results must equal eager calls bit for bit.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <limits>

#include "interp/interpreter.hpp"
#include "ir/builder.hpp"
#include "stablehlo/stablehlo.hpp"
#include "support/lowering.hpp"
#include "tlaloc/tlaloc.hpp"

namespace tl = tlaloc;

namespace {

using tltest::expect_round_trip;
using tltest::Fn;

tl::Tensor floats() { return tl::tensor({-2.5f, -0.0f, 0.0f, 1.5f, std::nanf(""), 3.0f}, {2, 3}); }
tl::Tensor ints() { return tl::tensor(std::vector<std::int32_t>{-3, 0, 7, 0, 2, -1}, {2, 3}); }

TEST(LoweringElementwise, AddScalarBroadcasts) {
  expect_round_trip([](std::span<const tl::Tensor> a) { return std::vector<tl::Tensor>{a[0] + 1.0f}; },
                    {floats()});
  expect_round_trip([](std::span<const tl::Tensor> a) { return std::vector<tl::Tensor>{a[0] * a[1]}; },
                    {floats(), tl::tensor({2.0f, -1.0f, 0.5f}, {3})});
}

TEST(LoweringElementwise, Relu) {
  expect_round_trip([](std::span<const tl::Tensor> a) { return std::vector<tl::Tensor>{tl::relu(a[0])}; },
                    {floats()});
  expect_round_trip([](std::span<const tl::Tensor> a) { return std::vector<tl::Tensor>{tl::relu(a[0])}; },
                    {ints()});
}

TEST(LoweringElementwise, Comparisons) {
  expect_round_trip(
      [](std::span<const tl::Tensor> a) {
        return std::vector<tl::Tensor>{tl::eq(a[0], a[1]), a[0] < a[1], a[0] >= 0.0f, a[0] != a[1]};
      },
      {floats(), tl::tensor({-2.5f, 0.0f, 1.0f, 1.5f, std::nanf(""), 3.5f}, {2, 3})});
}

TEST(LoweringElementwise, LogicalOpsOnNumbers) {
  expect_round_trip(
      [](std::span<const tl::Tensor> a) {
        return std::vector<tl::Tensor>{tl::logical_and(a[0], a[1]), tl::logical_or(a[0], a[1]),
                                       tl::logical_xor(a[0], a[1]), tl::logical_not(a[0]),
                                       tl::logical_not(a[1])};
      },
      {floats(), ints()});
  const tl::Tensor p = tl::tensor(std::vector<bool>{true, false, true, false}, {4});
  const tl::Tensor q = tl::tensor(std::vector<bool>{true, true, false, false}, {4});
  expect_round_trip(
      [](std::span<const tl::Tensor> a) {
        return std::vector<tl::Tensor>{a[0] & a[1], a[0] | a[1], a[0] ^ a[1], !a[0]};
      },
      {p, q});
}

TEST(LoweringElementwise, MixedDtypes) {
  expect_round_trip(
      [](std::span<const tl::Tensor> a) {
        return std::vector<tl::Tensor>{a[0] + a[1], a[1] / a[1], tl::maximum(a[0], a[1]),
                                       tl::where(a[0] > a[1], a[0], a[1])};
      },
      {floats(), ints()});
  expect_round_trip(
      [](std::span<const tl::Tensor> a) {
        return std::vector<tl::Tensor>{a[0] % a[1], tl::square(a[0]), tl::isnan(a[1])};
      },
      {ints(), tl::tensor(std::vector<std::int32_t>{2, -2, 3, 5, -4, 0}, {2, 3})});
}

// hypot below f64 is computed in f64 by the kernel and by the lowering alike: the same
// bits, infinities beside NaN and values whose squares overflow f32 included. In
// f64 the lowering scales by the larger operand where the kernel calls C's hypot.
TEST(LoweringElementwise, Hypot) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  const tl::Tensor a = tl::tensor({3.0f, -0.0f, inf, nan, 1e30f, 1e-30f, -2.5f, 0.0f}, {8});
  const tl::Tensor b = tl::tensor({4.0f, 0.0f, nan, -inf, 1e30f, 3e-30f, 7.0f, -1e-45f}, {8});
  const Fn hypot = [](std::span<const tl::Tensor> x) {
    return std::vector<tl::Tensor>{tl::hypot(x[0], x[1])};
  };
  expect_round_trip(hypot, {a, b}, "stablehlo.sqrt");
  expect_round_trip(hypot, {a.astype(tl::DType::bf16), b.astype(tl::DType::bf16)});
  expect_round_trip(hypot, {ints(), ints() * 2});
  const tl::Tensor a64 = tl::tensor({3.0, 1e300, 1e-300, 0.0, -0.1, 12345.678}, {6});
  const tl::Tensor b64 = tl::tensor({4.0, 1e300, 2e-300, 0.0, 0.2, -8.765}, {6});
  const tl::Tensor want = tl::hypot(a64, b64);
  for (const std::vector<tl::Tensor>& got : tltest::lowered_results(hypot, {a64, b64})) {
    const std::vector<double> g = got.at(0).to_vector<double>(), w = want.to_vector<double>();
    for (std::size_t i = 0; i < w.size(); ++i) EXPECT_NEAR(g[i], w[i], 4e-16 * w[i]) << i;
  }
}

// logaddexp's kernel and lowering are the same steps: the same bits, at infinities of
// either sign, NaN and integer operands too.
TEST(LoweringElementwise, Logaddexp) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  const tl::Tensor a = tl::tensor({0.0f, -inf, inf, inf, nan, 88.0f, -100.0f, 3.5f}, {8});
  const tl::Tensor b = tl::tensor({0.0f, -inf, inf, -inf, 1.0f, 89.0f, 2.0f, -0.5f}, {8});
  const Fn logaddexp = [](std::span<const tl::Tensor> x) {
    return std::vector<tl::Tensor>{tl::logaddexp(x[0], x[1])};
  };
  expect_round_trip(logaddexp, {a, b}, "stablehlo.log_plus_one");
  expect_round_trip(logaddexp, {a.astype(tl::DType::f64), b.astype(tl::DType::f64)});
  expect_round_trip(logaddexp, {ints(), ints() * 2});
}

}  // namespace
