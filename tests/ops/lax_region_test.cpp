// tl::lax's ops with a region (reduce, sort, map) on host tensors against values
// derived by hand, inside a trace (tl::grad, whose result is known in closed
// form), and refusing bad arguments before the region is called.
#include <gtest/gtest.h>

#include <tlaloc/tlaloc.hpp>

#include "support/expect_error.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace tl = tlaloc;

namespace {

using tl::Tensor;
using Ts = std::vector<Tensor>;

TEST(LaxRegion, ReduceWithACustomBody) {
  // Sums of squares of each row: 1 + 4 + 9 = 14, 16 + 25 + 36 = 77.
  const Tensor x = tl::tensor({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, {2, 3});
  const Ts r = tl::lax::reduce({x}, {tl::scalar_tensor(0.0, tl::DType::f64)}, {1},
                               [](std::span<const Tensor> a) { return Ts{a[0] + a[1] * a[1]}; });
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].shape(), (tl::Shape{2}));
  EXPECT_EQ(r[0].to_vector<double>(), (std::vector<double>{14, 77}));
}

TEST(LaxRegion, ReduceOfTwoInputsIsAnArgmax) {
  // (max, index of the max) of 3, 9, 4, 9: the first 9 wins the tie.
  const Tensor v = tl::tensor(std::vector<float>{3, 9, 4, 9});
  const Tensor i = tl::tensor(std::vector<std::int32_t>{0, 1, 2, 3});
  const Ts r = tl::lax::reduce(
      {v, i}, {tl::scalar_tensor(-1000.0, tl::DType::f32), tl::scalar_tensor(0, tl::DType::i32)}, {0},
      [](std::span<const Tensor> a) {
        const Tensor take = (a[2] > a[0]) | ((a[2] == a[0]) & (a[3] < a[1]));
        return Ts{tl::where(take, a[2], a[0]), tl::where(take, a[3], a[1])};
      });
  EXPECT_EQ(r[0].to_vector<float>(), (std::vector<float>{9}));
  EXPECT_EQ(r[1].to_vector<std::int32_t>(), (std::vector<std::int32_t>{1}));
}

TEST(LaxRegion, SortCarriesTheSecondInputAlong) {
  const Tensor k = tl::tensor(std::vector<float>{2, 5, 1, 5});
  const Tensor p = tl::tensor(std::vector<std::int32_t>{0, 1, 2, 3});
  const Ts r = tl::lax::sort({k, p}, 0, [](std::span<const Tensor> a) { return Ts{a[0] > a[1]}; });
  EXPECT_EQ(r[0].to_vector<float>(), (std::vector<float>{5, 5, 2, 1}));
  EXPECT_EQ(r[1].to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, 3, 0, 2}));  // stable
}

TEST(LaxRegion, MapTakesItsDtypeFromTheRegion) {
  const Tensor a = tl::tensor({1.0f, 5.0f, 3.0f}, {3});
  const Tensor b = tl::tensor({2.0f, 4.0f, 3.0f}, {3});
  const Tensor r = tl::lax::map({a, b}, [](std::span<const Tensor> s) { return Ts{s[0] < s[1]}; });
  EXPECT_EQ(r.dtype(), tl::DType::boolean);
  EXPECT_EQ(r.to_vector<bool>(), (std::vector<bool>{true, false, false}));
}

TEST(LaxRegion, RecordedInsideATrace) {
  // d/dx of the sum of x * x (map's region multiplies, reduce's adds) = 2 x.
  const Tensor x = tl::tensor({1.0, -2.0, 0.5, 3.0}, {2, 2});
  const auto loss = [](const Tensor& t) {
    const Tensor sq = tl::lax::map({t, t}, [](std::span<const Tensor> s) { return Ts{s[0] * s[1]}; });
    return tl::sum(tl::lax::reduce({sq}, {tl::scalar_tensor(0.0, tl::DType::f64)}, {1},
                                   [](std::span<const Tensor> a) { return Ts{a[0] + a[1]}; })[0]);
  };
  EXPECT_DOUBLE_EQ(loss(x).to_vector<double>()[0], 1 + 4 + 0.25 + 9);
  EXPECT_EQ(tl::grad(loss)(x).to_vector<double>(), (std::vector<double>{2, -4, 1, 6}));
}

TEST(LaxRegion, BadArgumentsFailBeforeTheRegionRuns) {
  const Tensor x = tl::tensor({1.0, 2.0, 3.0, 4.0}, {2, 2});
  int calls = 0;
  const tl::lax::Region body = [&calls](std::span<const Tensor> a) {
    ++calls;
    return Ts{a[0] + a[1]};
  };
  const Tensor zero = tl::scalar_tensor(0.0, tl::DType::f64);
  tltest::expect_error_with<tl::ValueError>([&] { tl::lax::reduce({x}, {zero}, {2}, body); },
                                            {"stablehlo.reduce", "[2]", "[2, 2]"});
  tltest::expect_error_with<tl::ShapeError>(
      [&] { tl::lax::map({x, tl::tensor({1.0, 2.0}, {2})}, body); }, {"stablehlo.map", "[2, 2]", "[2]"});
  tltest::expect_error_with<tl::ShapeError>(
      [&] { tl::lax::sort({x, tl::tensor({1.0, 2.0}, {2})}, 0, body); }, {"stablehlo.sort"});
  EXPECT_EQ(calls, 0);
}

}  // namespace
