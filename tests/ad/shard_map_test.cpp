// tl::shard_map and the collectives over named axes (include/tlaloc/sharding.hpp):
// mapped functions against the same computation written without a mesh, their
// gradients against the unsharded function's and against central differences, and
// the errors for specs and collectives that cannot work.
#include <gtest/gtest.h>

#include "support/expect_error.hpp"
#include "tlaloc/nn.hpp"
#include "tlaloc/tlaloc.hpp"

namespace {

namespace tl = tlaloc;
using tl::Tensor;

Tensor data(std::uint64_t seed, tl::Shape shape) {
  return tl::random::normal(tl::random::key(seed), shape).astype(tl::DType::f64);
}

void expect_close(const Tensor& got, const Tensor& want, double tol = 1e-12) {
  ASSERT_EQ(got.shape(), want.shape());
  EXPECT_TRUE(tl::allclose(got, want, tol, tol)) << "got\n" << got << "\nwant\n" << want;
}

// The loss of a small model, data-parallel: each device's rows of x through the
// shared weights, the squared errors summed over the devices.
Tensor local_loss(const Tensor& x, const Tensor& w, const Tensor& y) {
  const Tensor e = tl::tanh(tl::matmul(x, w)) - y;
  return tl::sum(e * e);
}

const tl::Mesh kData({{"data", 4}});

auto data_parallel_loss() {
  return tl::shard_map(
      [](const Tensor& x, const Tensor& w, const Tensor& y) { return tl::psum(local_loss(x, w, y), "data"); },
      kData, {tl::P("data"), tl::P(), tl::P("data")}, tl::P());
}

TEST(ShardMap, AMappedFunctionMatchesTheUnshardedOne) {
  const Tensor x = data(1, {8, 3}), w = data(2, {3, 5}), y = data(3, {8, 5});
  const auto loss = data_parallel_loss();
  expect_close(loss(x, w, y), local_loss(x, w, y));
  // Split results are put together in the devices' order.
  const auto rows = tl::shard_map([](const Tensor& a, const Tensor& b) { return tl::tanh(tl::matmul(a, b)); },
                                  kData, {tl::P("data"), tl::P()}, tl::P("data"));
  expect_close(rows(x, w), tl::tanh(tl::matmul(x, w)));
  EXPECT_EQ(loss.traces(), 1u);
  (void)loss(x, w, y);
  EXPECT_EQ(loss.traces(), 1u);
}

TEST(ShardMap, TheSameBitsOnEveryRun) {
  const Tensor x = data(4, {64, 16}), w = data(5, {16, 8}), y = data(6, {64, 8});
  const auto loss = data_parallel_loss();
  const double first = loss(x, w, y).item<double>();
  for (int k = 0; k < 5; ++k) EXPECT_EQ(loss(x, w, y).item<double>(), first);
}

// On a 2 x 2 mesh, each collective against the same values computed from slices.
TEST(ShardMap, CollectivesOverNamedAxes) {
  const tl::Mesh mesh({{"data", 2}, {"model", 2}});
  const Tensor x = data(7, {4, 6});  // each device: a 2 x 3 block
  const auto block = [&](std::int64_t i, std::int64_t j) {
    return tl::slice(x, {2 * i, 3 * j}, {2 * i + 2, 3 * j + 3});
  };
  const std::vector<tl::P> split = {tl::P("data", "model")};

  const auto sum_data = tl::shard_map([](const Tensor& a) { return tl::psum(a, "data"); }, mesh, split,
                                      tl::P(nullptr, "model"));
  expect_close(sum_data(x), tl::concat({block(0, 0) + block(1, 0), block(0, 1) + block(1, 1)}, 1));

  const auto mean_all = tl::shard_map(
      [](const Tensor& a) {
        return tl::pmean(a, {"data", "model"});
      },
      mesh, split, tl::P());
  expect_close(mean_all(x), (block(0, 0) + block(0, 1) + block(1, 0) + block(1, 1)) / 4.0, 1e-15);

  const auto max_model =
      tl::shard_map([](const Tensor& a) { return tl::pmax(a, "model"); }, mesh, split, tl::P("data"));
  expect_close(max_model(x),
               tl::concat({tl::maximum(block(0, 0), block(0, 1)), tl::maximum(block(1, 0), block(1, 1))}, 0));

  const auto gather = tl::shard_map([](const Tensor& a) { return tl::all_gather(a, "model", 1); }, mesh,
                                    split, tl::P("data"));
  expect_close(gather(x), x);

  const auto scatter = tl::shard_map([](const Tensor& a) { return tl::psum_scatter(a, "data", 0); }, mesh,
                                     split, tl::P("data", "model"));
  const Tensor summed = tl::concat({block(0, 0) + block(1, 0), block(0, 1) + block(1, 1)}, 1);
  expect_close(scatter(x), tl::concat({tl::slice(summed, 0, 0, 1), tl::slice(summed, 0, 1, 2)}, 0));

  // Swap the two rows of devices along "data".
  const auto swap = tl::shard_map(
      [](const Tensor& a) {
        return tl::ppermute(a, "data", {{0, 1}, {1, 0}});
      },
      mesh, split, tl::P("data", "model"));
  expect_close(swap(x), tl::concat({tl::slice(x, 0, 2, 4), tl::slice(x, 0, 0, 2)}, 0));

  // Device (i, j) holds a 2 x 3 block; all_to_all over "model" splitting columns
  // (3 do not split in 2), so split the rows and gather the columns.
  const auto transpose_blocks = tl::shard_map(
      [](const Tensor& a) { return tl::all_to_all(a, "model", 0, 1); }, mesh, split, tl::P("data", "model"));
  // Device (i, j) gets row j of each block (i, k), k = 0, 1, side by side.
  std::vector<Tensor> rows;
  for (std::int64_t i = 0; i < 2; ++i) {
    std::vector<Tensor> row;
    for (std::int64_t j = 0; j < 2; ++j)
      row.push_back(
          tl::concat({tl::slice(block(i, 0), 0, j, j + 1), tl::slice(block(i, 1), 0, j, j + 1)}, 1));
    rows.push_back(tl::concat(row, 1));
  }
  expect_close(transpose_blocks(x), tl::concat(rows, 0));

  const auto where = tl::shard_map(
      [](const Tensor& a) {
        const Tensor i = tl::axis_index("data"), j = tl::axis_index("model");
        return tl::reshape(i * 10 + j, {1, 1}) +
               tl::zeros_like(tl::slice(a, {0, 0}, {1, 1})).astype(tl::DType::i32);
      },
      mesh, split, tl::P("data", "model"));
  EXPECT_EQ(where(x).to_vector<std::int32_t>(), (std::vector<std::int32_t>{0, 1, 10, 11}));
}

// d/dx and d/dw of the data-parallel loss: the unsharded function's gradient, and
// central differences.
TEST(ShardMap, GradientsMatchTheUnshardedFunctionAndDifferences) {
  const Tensor x = data(8, {8, 3}), w = data(9, {3, 2}), y = data(10, {8, 2});
  const auto loss = data_parallel_loss();
  const auto g =
      tl::grad([&](const Tensor& a, const Tensor& b) { return loss(a, b, y); }, tl::argnums{0, 1})(x, w);
  const auto want = tl::grad([&](const Tensor& a, const Tensor& b) { return local_loss(a, b, y); },
                             tl::argnums{0, 1})(x, w);
  expect_close(g[0], want[0]);
  expect_close(g[1], want[1]);
  const double h = 1e-6;
  const std::vector<double> wv = w.to_vector<double>(), gw = g[1].to_vector<double>();
  for (std::size_t k = 0; k < wv.size(); ++k) {
    std::vector<double> up = wv, down = wv;
    up[k] += h;
    down[k] -= h;
    const double d = (loss(x, tl::tensor(up, w.shape()), y).item<double>() -
                      loss(x, tl::tensor(down, w.shape()), y).item<double>()) /
                     (2 * h);
    EXPECT_NEAR(gw[k], d, 1e-6 * std::max(1.0, std::abs(d))) << "w[" << k << "]";
  }
}

// A result whole on every device (P()) that each device computes from a replicated
// argument: its cotangent reaches the argument once, not once per device.
TEST(ShardMap, AReplicatedResultIsDifferentiatedOnce) {
  const Tensor w = data(11, {3});
  const auto f =
      tl::shard_map([](const Tensor& v) { return tl::sum(tl::sin(v)); }, kData, {tl::P()}, tl::P());
  expect_close(tl::grad(f)(w), tl::cos(w));
}

TEST(ShardMap, ForwardModeAndJitCompose) {
  const Tensor x = data(12, {8, 3}), w = data(13, {3, 2}), y = data(14, {8, 2}), t = data(15, {3, 2});
  const auto loss = data_parallel_loss();
  const auto [v, dv] = tl::jvp([&](const Tensor& b) { return loss(x, b, y); }, w, t);
  const auto [u, du] = tl::jvp([&](const Tensor& b) { return local_loss(x, b, y); }, w, t);
  expect_close(v, u);
  expect_close(dv, du);
  const auto jitted = tl::jit([&](const Tensor& a, const Tensor& b) { return loss(a, b, y); });
  expect_close(jitted(x, w), local_loss(x, w, y));
  // Second order: the Hessian-vector product through the mapped function.
  const auto hvp = tl::jvp(
      [&](const Tensor& b) { return tl::grad([&](const Tensor& c) { return loss(x, c, y); })(b); }, w, t);
  const auto hvp_want = tl::jvp(
      [&](const Tensor& b) { return tl::grad([&](const Tensor& c) { return local_loss(x, c, y); })(b); }, w,
      t);
  expect_close(hvp.second, hvp_want.second, 1e-10);
}

TEST(ShardMap, SpecsThatCannotWorkAreNamed) {
  const Tensor x = data(16, {6, 3});
  const auto psum_rows = [](const Tensor& a) { return tl::psum(a, "data"); };
  tltest::expect_error<tl::ShapeError>([&] { tl::shard_map(psum_rows, kData, {tl::P("data")}, tl::P())(x); },
                                       "shard_map", "argument 0 has shape [6, 3]",
                                       "dimension 0 (6) does not divide over axis 'data' of size 4");
  tltest::expect_error<tl::ValueError>([&] { tl::shard_map(psum_rows, kData, {tl::P("rows")}, tl::P())(x); },
                                       "shard_map", "argument 0", "no axis 'rows'");
  tltest::expect_error<tl::ValueError>(
      [&] {
        tl::shard_map(psum_rows, kData, {tl::P(), tl::P()}, tl::P())(x);
      },
      "shard_map", "takes 2 in_specs for 1 arguments");
  tltest::expect_error<tl::ValueError>([&] { tl::shard_map(psum_rows, kData, {tl::P()}, tl::P("model"))(x); },
                                       "shard_map", "result 0", "no axis 'model'");
  tltest::expect_error<tl::ValueError>(
      [&] {
        tl::shard_map([](const Tensor& a) { return tl::psum(a, "model"); }, kData, {tl::P()}, tl::P())(x);
      },
      "psum", "no axis 'model'");
  tltest::expect_error<tl::ValueError>([&] { (void)tl::psum(x, "data"); }, "psum",
                                       "call it inside the function of a tl::shard_map");
  tltest::expect_error<tl::ValueError>([&] { (void)tl::axis_index("data"); }, "axis_index", "tl::shard_map");
  tltest::expect_error_with<tl::ValueError>(
      [&] {
        tl::Mesh({{"data", 2}, {"data", 2}});
      },
      {"tl::Mesh", "'data' is named twice"});
  // More devices than the host runs as threads, or than any machine has.
  tltest::expect_error_with<tl::ValueError>(
      [&] {
        tl::shard_map(psum_rows, tl::Mesh({{"data", 3000}}), {tl::P()}, tl::P())(x);
      },
      {"shard_map", "a process grid of 1 x 3000", "at most 1024 processes"});
  tltest::expect_error_with<tl::ValueError>(
      [&] {
        tl::Mesh({{"a", std::int64_t(1) << 20}, {"b", std::int64_t(1) << 20}});
      },
      {"tl::Mesh", "more than 2^31 devices"});
}

// A traced value the mapped function uses without taking it as an argument runs,
// and its derivative is refused by name.
TEST(ShardMap, DerivativesOfCapturedValuesAreRefused) {
  const Tensor x = data(17, {4, 3});
  const auto f = [&](const Tensor& w) {
    return tl::shard_map([&](const Tensor& a) { return tl::psum(tl::sum(a * w), "data"); }, kData,
                         {tl::P("data")}, tl::P())(x);
  };
  expect_close(f(tl::ones({3}, tl::DType::f64)), tl::sum(x));
  tltest::expect_error_with<tl::Error>([&] { (void)tl::grad(f)(tl::ones({3}, tl::DType::f64)); },
                                       {"shard_map", "pass it to the shard_map as an argument"});
}

}  // namespace

// A data-parallel training step captured as one program: each device's rows of the
// batch, the parameters on every device, the mean loss over the devices. Its
// parameters after a few steps match training on the whole batch on one device.
TEST(ShardMap, ADataParallelTrainingStepIsOneCapturedProgram) {
  const tl::nn::MLP mlp{.sizes = {6, 16, 3}};
  const std::vector<tl::random::Key> k = tl::random::split(tl::random::key(3), 3);
  const tl::nn::Params init = mlp.init(k[0]);
  const tl::nn::Batch batch{tl::random::normal(k[1], {16, 6}), tl::random::randint(k[2], {16}, 0, 3)};
  const auto loss = [mlp](const tl::nn::Params& p, const Tensor& x, const Tensor& y) {
    return tl::nn::cross_entropy(mlp(p, x), y);
  };
  const auto sharded = tl::shard_map([&](const tl::nn::Params& p, const Tensor& x,
                                         const Tensor& y) { return tl::pmean(loss(p, x, y), "data"); },
                                     kData, {tl::P(), tl::P("data"), tl::P("data")}, tl::P());
  const auto train = [&](const tl::nn::LossOf& of) {
    const tl::nn::TrainStep step = tl::nn::capture(of, init, batch).train_step(tl::nn::SGD{.lr = 0.5});
    tl::nn::Params p = init;
    tl::nn::OptimizerState s = step.init(p);
    for (int i = 0; i < 5; ++i) {
      auto r = step(p, s, batch);
      p = r.params;
      s = r.state;
    }
    return p;
  };
  const tl::nn::Params parallel =
      train([&](const tl::nn::Params& p, const tl::nn::Batch& b) { return sharded(p, b.inputs, b.targets); });
  const tl::nn::Params single =
      train([&](const tl::nn::Params& p, const tl::nn::Batch& b) { return loss(p, b.inputs, b.targets); });
  // Lowered, the step is an SPMD program of the mesh's devices (docs/DISTRIBUTED.md,
  // "Lowering"; tests/stablehlo/shard_map_lowering_test.cpp runs such programs).
  const std::string text =
      tl::nn::capture(
          [&](const tl::nn::Params& p, const tl::nn::Batch& b) { return sharded(p, b.inputs, b.targets); },
          init, batch)
          .stablehlo();
  EXPECT_NE(text.find("mhlo.num_partitions = 4 : i32"), std::string::npos) << text;
  EXPECT_NE(text.find("@SPMDFullToShardShape"), std::string::npos) << text;
  for (const auto& [name, t] : single) {
    EXPECT_TRUE(tl::allclose(parallel.at(name), t, 1e-5, 1e-6)) << name;
    EXPECT_FALSE(tl::allclose(init.at(name), t, 1e-3, 1e-4)) << name << " did not train";
  }
}
