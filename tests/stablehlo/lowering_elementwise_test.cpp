// Library elementwise ops traced, lowered to StableHLO text, parsed back and
// interpreted: the results must equal eager calls bit for bit.
#include <gtest/gtest.h>

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

}  // namespace
