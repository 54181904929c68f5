// Gradients of ops with regions beyond the table (tests/ad/cases_region.cpp): the
// bodies and forms their rules do not support are refused by name, with the
// reason; and a gradient through sort and reduce_window survives StableHLO text.
#include <gtest/gtest.h>

#include <limits>

#include <tlaloc/tlaloc.hpp>

#include "ad/region_ops.hpp"
#include "support/expect_error.hpp"
#include "support/lowering.hpp"

namespace {

namespace tl = tlaloc;
using region_ops::Attrs;
using region_ops::Ints;
using region_ops::TensorType;
using tl::Tensor;

const Tensor x34 = tl::tensor({0.5, -1.0, 2.0, 1.5, -0.3, 0.7, 1.1, -2.2, 0.9, 0.1, -0.6, 1.3}, {3, 4});

template <class F>
void expect_refused(F f, const std::string& op, const std::string& why) {
  tltest::expect_error<tl::NotDifferentiableError>(f, op, why);
}

TEST(GradRegion, ScatterNeedsAnAddRegion) {
  const Tensor idx = tl::tensor(std::vector<std::int64_t>{2, 0}, {2, 1});
  const Attrs dims{{"update_window_dims", Ints{1}},
                   {"inserted_window_dims", Ints{0}},
                   {"scatter_dims_to_operand_dims", Ints{0}},
                   {"index_vector_dim", std::int64_t(1)}};
  const Tensor u = tl::ones({2, 4}, tl::DType::f64);
  const auto f = [&](const Tensor& x) {
    return tl::sum(region_ops::with_body("scatter", {x, idx, u}, dims, "maximum"));
  };
  expect_refused([&] { (void)tl::grad(f)(x34); }, "scatter", "reverse mode needs an add update region, got 'maximum'");
  expect_refused([&] { (void)tl::jvp(f, x34, x34); }, "scatter", "forward mode needs an add update region");
}

// A variadic reduce (two inputs summed side by side) and a mul body.
TEST(GradRegion, ReduceNeedsOneInputAndAnAddMaxOrMinBody) {
  const TensorType s{tl::DType::f64, {}};
  const auto pair = [&](const Tensor& x) {
    const Tensor zero = tl::scalar_tensor(0.0, tl::DType::f64);
    const auto r = region_ops::call("reduce", {x, x * 2.0, zero, zero}, {{"dimensions", Ints{1}}}, {s, s, s, s},
                                    [](std::span<const Tensor> a) {
                                      return std::vector<Tensor>{tl::add(a[0], a[2]), tl::add(a[1], a[3])};
                                    });
    return tl::sum(r[0] * r[1]);
  };
  expect_refused([&] { (void)tl::grad(pair)(x34); }, "reduce", "needs one input and its init value, got a reduce of 2");
  const auto prod = [](const Tensor& x) {
    return tl::sum(region_ops::with_body("reduce", {x, tl::scalar_tensor(1.0, tl::DType::f64)},
                                         {{"dimensions", Ints{0}}}, "mul"));
  };
  expect_refused([&] { (void)tl::grad(prod)(x34); }, "reduce", "needs an add, maximum or minimum body, got 'mul'");
}

TEST(GradRegion, ReduceWindowNeedsAnAddMaxOrMinBody) {
  const auto f = [](const Tensor& x) {
    return tl::sum(region_ops::with_body("reduce_window", {x, tl::scalar_tensor(1.0, tl::DType::f64)},
                                         {{"window_dimensions", Ints{2, 2}}}, "mul"));
  };
  expect_refused([&] { (void)tl::grad(f)(x34); }, "reduce_window", "got 'mul'");
}

TEST(GradRegion, MapNeedsOneBinaryOp) {
  const TensorType s{tl::DType::f64, {}};
  const auto f = [&](const Tensor& x) {
    return tl::sum(region_ops::call("map", {x, x}, {{"dimensions", Ints{0, 1}}}, {s, s},
                                    [](std::span<const Tensor> a) {
                                      return std::vector<Tensor>{tl::add(tl::mul(a[0], a[1]), a[0])};
                                    })[0]);
  };
  expect_refused([&] { (void)tl::grad(f)(x34); }, "map", "needs a region that is one binary op");
}

// select_and_scatter's rules would need its select region's direction.
TEST(GradRegion, SelectAndScatterIsRefusedWithTheReason) {
  const auto f = [](const Tensor& x) {
    const TensorType s{tl::DType::f64, {}};
    const Tensor source = tl::ones({2, 3}, tl::DType::f64), init = tl::scalar_tensor(0.0, tl::DType::f64);
    const std::vector<TensorType> types{{tl::DType::f64, {3, 4}}, {tl::DType::f64, {2, 3}}, s};
    const tl::ir::Function g = tl::ir::trace("sas", types, [&](std::span<const Tensor> p) {
      tl::ir::Builder& b = *tl::ir::current_builder();
      const TensorType two[] = {s, s};
      std::vector<tl::ir::Region> regions;
      regions.push_back(b.region(two, [](std::span<const Tensor> a) { return std::vector<Tensor>{tl::ge(a[0], a[1])}; }));
      regions.push_back(b.region(two, [](std::span<const Tensor> a) { return std::vector<Tensor>{tl::add(a[0], a[1])}; }));
      const Attrs w{{"window_dimensions", Ints{2, 2}}};
      return b.record(*tl::detail::find_op("select_and_scatter"), p, w, {types[0]}, std::move(regions));
    });
    const Tensor args[] = {x, source, init};
    return tl::sum(x * tl::transforms::apply(g, args)[0]);
  };
  expect_refused([&] { (void)tl::grad(f)(x34); }, "select_and_scatter", "select region's comparison direction");
}

// The gradient of a function with a sort and a max reduce_window, lowered to
// StableHLO text, read back and run, gives the eager gradient bit for bit.
TEST(GradRegion, SortAndReduceWindowGradientsRoundTrip) {
  const auto f = [](const Tensor& x) {
    const Tensor sorted = region_ops::sort({x}, 1)[0];
    const Tensor pooled =
        region_ops::with_body("reduce_window", {x, tl::scalar_tensor(-std::numeric_limits<double>::infinity(), x.dtype())},
                              {{"window_dimensions", Ints{2, 2}}, {"padding", Ints{0, 1, 1, 0}}}, "maximum");
    return tl::sum(sorted * tl::iota(x.shape(), 1, x.dtype())) + tl::sum(tl::square(pooled));
  };
  const auto grad = [&](std::span<const Tensor> a) { return std::vector<Tensor>{tl::grad(f)(a[0])}; };
  tltest::expect_round_trip(grad, {x34}, "stablehlo.sort");
  tltest::expect_round_trip(grad, {x34}, "stablehlo.pad");
}

}  // namespace
