// tl::lax's ops with a region (reduce, sort, map, reduce_window, scatter,
// select_and_scatter) on host tensors against values
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

// ---- reduce_window, scatter, select_and_scatter -------------------------------------

TEST(LaxRegion, ReduceWindowSumsEachWindow) {
  const Tensor x = tl::tensor({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, {2, 3});
  const Ts r =
      tl::lax::reduce_window({x}, {tl::scalar_tensor(0.0, tl::DType::f64)}, {1, 2}, {1, 1}, {1, 1}, {1, 1},
                             {0, 0}, {0, 0}, [](std::span<const Tensor> a) { return Ts{a[0] + a[1]}; });
  EXPECT_EQ(r[0].shape(), (tl::Shape{2, 2}));
  EXPECT_EQ(r[0].to_vector<double>(), (std::vector<double>{3, 5, 9, 11}));
}

TEST(LaxRegion, ReduceWindowPaddingAndHolesHoldTheInit) {
  const Tensor x = tl::tensor(std::vector<double>{1, 2, 3});
  const Tensor init = tl::scalar_tensor(-100.0, tl::DType::f64);
  // Base dilation 2 reads 1 h 2 h 3, the holes -100; windows of 3, stride 2: max 2, 3.
  const Ts m = tl::lax::reduce_window({x}, {init}, {3}, {2}, {2}, {1}, {0}, {0},
                                      [](std::span<const Tensor> a) { return Ts{tl::maximum(a[0], a[1])}; });
  EXPECT_EQ(m[0].to_vector<double>(), (std::vector<double>{2, 3}));
  // A body that is no single op (a sum of squares) over p 1 | 2 3, the padding p the
  // init 0: 0 + 0 + 1 = 1 and 0 + 4 + 9 = 13.
  const Ts q = tl::lax::reduce_window({x}, {tl::scalar_tensor(0.0, tl::DType::f64)}, {2}, {2}, {1}, {1}, {1},
                                      {0}, [](std::span<const Tensor> a) { return Ts{a[0] + a[1] * a[1]}; });
  EXPECT_EQ(q[0].to_vector<double>(), (std::vector<double>{1, 13}));
  // Window dilation 2 over 1 2 3 4 5: cells i and i + 2, summed.
  const Ts d = tl::lax::reduce_window({tl::tensor(std::vector<double>{1, 2, 3, 4, 5})},
                                      {tl::scalar_tensor(0.0, tl::DType::f64)}, {2}, {1}, {1}, {2}, {0}, {0},
                                      [](std::span<const Tensor> a) { return Ts{a[0] + a[1]}; });
  EXPECT_EQ(d[0].to_vector<double>(), (std::vector<double>{4, 6, 8}));
}

TEST(LaxRegion, ReduceWindowUnderGrad) {
  // Windows of two, stride one, over four elements: the middle two are in two windows.
  const Tensor x = tl::tensor(std::vector<double>{1, -2, 0.5, 3});
  const auto loss = [](const Tensor& t) {
    return tl::sum(tl::lax::reduce_window({t}, {tl::scalar_tensor(0.0, tl::DType::f64)}, {2}, {1}, {1}, {1},
                                          {0}, {0},
                                          [](std::span<const Tensor> a) { return Ts{a[0] + a[1]}; })[0]);
  };
  EXPECT_EQ(tl::grad(loss)(x).to_vector<double>(), (std::vector<double>{1, 2, 2, 1}));
}

// Scalar indices into a vector: index_vector_dim past the indices' last axis.
const tl::lax::ScatterDimensionNumbers kIntoVector{
    .inserted_window_dims = {0}, .scatter_dims_to_operand_dims = {0}, .index_vector_dim = 1};

TEST(LaxRegion, ScatterAddsAndReplacesInOrder) {
  const Tensor x = tl::tensor(std::vector<double>{1, 1, 1, 1});
  const Tensor idx = tl::tensor(std::vector<std::int32_t>{1, 3, 1, 7}, {4, 1});
  const Tensor u = tl::tensor(std::vector<double>{10, 20, 30, 40});
  // Index 7 is outside: its update is skipped.
  const Ts add =
      tl::lax::scatter({x}, idx, {u}, kIntoVector, [](std::span<const Tensor> a) { return Ts{a[0] + a[1]}; });
  EXPECT_EQ(add[0].to_vector<double>(), (std::vector<double>{1, 41, 1, 21}));
  // Replacing: the last update to an index wins (updates apply in order).
  const Ts put =
      tl::lax::scatter({x}, idx, {u}, kIntoVector, [](std::span<const Tensor> a) { return Ts{a[1]}; });
  EXPECT_EQ(put[0].to_vector<double>(), (std::vector<double>{1, 30, 1, 20}));
  // Rows of a matrix: each update is a window of one row.
  const Tensor m = tl::zeros({3, 2}, tl::DType::f64);
  const Ts rows = tl::lax::scatter({m}, tl::tensor(std::vector<std::int32_t>{2, 0}, {2, 1}),
                                   {tl::tensor({1.0, 2.0, 3.0, 4.0}, {2, 2})},
                                   {.update_window_dims = {1},
                                    .inserted_window_dims = {0},
                                    .scatter_dims_to_operand_dims = {0},
                                    .index_vector_dim = 1},
                                   [](std::span<const Tensor> a) { return Ts{a[0] + a[1]}; });
  EXPECT_EQ(rows[0].to_vector<double>(), (std::vector<double>{3, 4, 0, 0, 1, 2}));
}

TEST(LaxRegion, ScatterUnderGrad) {
  // d/du of sum(w * scatter_add(0, idx, u)) is w at each update's index.
  const Tensor idx = tl::tensor(std::vector<std::int32_t>{1, 3, 1}, {3, 1});
  const Tensor w = tl::tensor(std::vector<double>{1, 2, 3, 4});
  const auto loss = [&](const Tensor& u) {
    const Ts s = tl::lax::scatter({tl::zeros({4}, tl::DType::f64)}, idx, {u}, kIntoVector,
                                  [](std::span<const Tensor> a) { return Ts{a[0] + a[1]}; });
    return tl::sum(w * s[0]);
  };
  EXPECT_EQ(tl::grad(loss)(tl::tensor(std::vector<double>{5, 6, 7})).to_vector<double>(),
            (std::vector<double>{2, 4, 2}));
}

TEST(LaxRegion, SelectAndScatterRoutesToEachWindowsPick) {
  // Windows of two, stride two, over 1 5 2 7 3 0: the maxima are at 1, 3 and 4.
  const Tensor x = tl::tensor(std::vector<double>{1, 5, 2, 7, 3, 0});
  const Tensor src = tl::tensor(std::vector<double>{10, 20, 30});
  const auto ge = [](std::span<const Tensor> a) { return Ts{a[0] >= a[1]}; };
  const auto add = [](std::span<const Tensor> a) { return Ts{a[0] + a[1]}; };
  const Tensor zero = tl::scalar_tensor(0.0, tl::DType::f64);
  EXPECT_EQ(tl::lax::select_and_scatter(x, src, zero, {2}, {2}, {0}, {0}, ge, add).to_vector<double>(),
            (std::vector<double>{0, 10, 0, 20, 30, 0}));
  // Overlapping windows of three, stride one, over 1 5 2 7: picks 1 and 3. With
  // padding one on the left the first window is p 1 5: padding is never picked.
  const Tensor y = tl::tensor(std::vector<double>{1, 5, 2, 7});
  EXPECT_EQ(
      tl::lax::select_and_scatter(y, tl::tensor(std::vector<double>{1, 2}), zero, {3}, {1}, {0}, {0}, ge, add)
          .to_vector<double>(),
      (std::vector<double>{0, 1, 0, 2}));
  EXPECT_EQ(tl::lax::select_and_scatter(y, tl::tensor(std::vector<double>{1, 2, 4}), zero, {3}, {1}, {1}, {0},
                                        ge, add)
                .to_vector<double>(),
            (std::vector<double>{0, 3, 0, 4}));
}

TEST(LaxRegion, WindowAndScatterOpsRefuseBadAttributesBeforeTheRegionRuns) {
  int calls = 0;
  const tl::lax::Region body = [&calls](std::span<const Tensor> a) {
    ++calls;
    return Ts{a[0] + a[1]};
  };
  const Tensor x = tl::tensor({1.0, 2.0, 3.0, 4.0}, {2, 2});
  const Tensor zero = tl::scalar_tensor(0.0, tl::DType::f64);
  tltest::expect_error_with<tl::ShapeError>(
      [&] {
        tl::lax::reduce_window({x}, {zero}, {2}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, body);
      },
      {"stablehlo.reduce_window", "rank 2", "[2]"});
  tltest::expect_error<tl::ShapeError>(
      [&] {
        tl::lax::reduce_window({x}, {zero}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0}, body);
      },
      "lax::reduce_window", "[0, 0]", "[0]");
  tltest::expect_error<tl::ShapeError>(
      [&] {
        tl::lax::scatter({x}, tl::tensor(std::vector<std::int32_t>{0}, {1, 1}),
                         {tl::tensor(std::vector<double>{1})}, kIntoVector, body);
      },
      "scatter", "[2, 2]", "[1, 1]", "[1]");
  tltest::expect_error<tl::DTypeError>(
      [&] {
        tl::lax::scatter({x}, tl::tensor({0.0}, {1, 1}), {tl::tensor(std::vector<double>{1, 2})}, kIntoVector,
                         body);
      },
      "scatter", "f64");
  tltest::expect_error_with<tl::ShapeError>(
      [&] {
        tl::lax::select_and_scatter(x, tl::tensor(std::vector<double>{1}), zero, {1, 2}, {1, 1}, {0, 0},
                                    {0, 0}, body, body);
      },
      {"stablehlo.select_and_scatter", "[1]", "[2, 2]", "[2, 1]"});
  EXPECT_EQ(calls, 0);
}

}  // namespace
