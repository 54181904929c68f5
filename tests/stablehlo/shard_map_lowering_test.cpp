// A shard_map lowered to StableHLO as XLA's SPMD programs write it (docs/DISTRIBUTED.md,
// "Lowering"): the text carries the grid and the shardings XLA reads, and read back it
// runs on its devices to the same bits as the shard_map itself.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "interp/interpreter.hpp"
#include "ir/builder.hpp"
#include "stablehlo/stablehlo.hpp"
#include "support/expect_error.hpp"
#include "tlaloc/tlaloc.hpp"

namespace {

namespace tl = tlaloc;
namespace sh = tlaloc::stablehlo;
using tl::Tensor;

Tensor data(std::uint64_t seed, tl::Shape shape) {
  return tl::random::normal(tl::random::key(seed), shape).astype(tl::DType::f64);
}

using Fn = std::function<std::vector<Tensor>(std::span<const Tensor>)>;

// `fn` traced on the arguments' types, lowered, printed and read back.
std::string lowered_text(const Fn& fn, const std::vector<Tensor>& args) {
  std::vector<tl::ir::TensorType> types;
  for (const Tensor& a : args) types.push_back({a.dtype(), a.shape()});
  return sh::to_text(tl::ir::trace("main", types, fn));
}

void expect_same_bits(const std::vector<Tensor>& got, const std::vector<Tensor>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].shape(), want[i].shape()) << i;
    EXPECT_EQ(got[i].to_vector<double>(), want[i].to_vector<double>()) << i;
  }
}

bool has(const std::string& text, const std::string& piece) { return text.find(piece) != std::string::npos; }

Tensor local_loss(const Tensor& x, const Tensor& w, const Tensor& y) {
  const Tensor e = tl::tanh(tl::matmul(x, w)) - y;
  return tl::sum(e * e);
}

const auto kLoss = tl::shard_map(
    [](const Tensor& x, const Tensor& w, const Tensor& y) { return tl::psum(local_loss(x, w, y), "data"); },
    tl::Mesh({{"data", 2}}), {tl::P("data"), tl::P(), tl::P("data")}, tl::P());

TEST(ShardMapLowering, TheTextCarriesTheGridAndTheShardingsXlaReads) {
  const std::vector<Tensor> args = {data(1, {8, 3}), data(2, {3, 2}), data(3, {8, 2})};
  const std::string text =
      lowered_text([](auto a) { return std::vector<Tensor>{kLoss(a[0], a[1], a[2])}; }, args);
  EXPECT_TRUE(has(text, "module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32}"))
      << text;
  // x and y: rows over the two devices; w: on both.
  EXPECT_TRUE(has(text, R"(stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{devices=[2,1]0,1}"})"))
      << text;
  EXPECT_TRUE(has(text, R"(@Sharding(%arg1) {mhlo.sharding = "{replicated}"})")) << text;
  EXPECT_TRUE(has(text, R"({mhlo.sharding = "{manual}"} : (tensor<8x3xf64>) -> tensor<4x3xf64>)")) << text;
  EXPECT_TRUE(has(text, "@SPMDFullToShardShape")) << text;
  EXPECT_TRUE(has(text, "stablehlo.all_reduce")) << text;
  EXPECT_TRUE(has(text, R"(@SPMDShardToFullShape(%)")) << text;
  EXPECT_FALSE(has(text, "operand_sharding")) << text;
}

TEST(ShardMapLowering, ReadBackItRunsOnItsDevicesToTheSameBits) {
  const std::vector<Tensor> args = {data(1, {8, 3}), data(2, {3, 2}), data(3, {8, 2})};
  const Fn fn = [](std::span<const Tensor> a) {
    return std::vector<Tensor>{kLoss(a[0], a[1], a[2]),
                               tl::grad([&](const Tensor& w) { return kLoss(a[0], w, a[2]); })(a[1])};
  };
  const tl::interp::Program lowered(sh::parse(lowered_text(fn, args)));
  const std::vector<Tensor> got = lowered.run(args);
  expect_same_bits(got, fn(args));
  const Tensor want = tl::grad([&](const Tensor& w) { return local_loss(args[0], w, args[2]); })(args[1]);
  EXPECT_TRUE(tl::allclose(got[1], want, 1e-12, 1e-12));
}

// A 2 x 2 mesh: a result split over one axis and whole over the other, an operand
// split over the second axis, and the collectives over each.
TEST(ShardMapLowering, SplitsOverEitherAxisOfATwoByTwoMesh) {
  const tl::Mesh mesh({{"data", 2}, {"model", 2}});
  const auto f = tl::shard_map(
      [](const Tensor& x, const Tensor& w) {
        const Tensor h = tl::matmul(x, w);                 // rows over data, columns over model
        const Tensor all = tl::all_gather(h, "model", 1);  // whole columns
        return std::vector<Tensor>{tl::psum(h, "data"), all * tl::pmax(tl::sum(h), "model")};
      },
      mesh, {tl::P("data"), tl::P(nullptr, "model")}, {tl::P(nullptr, "model"), tl::P("data")});
  const std::vector<Tensor> args = {data(4, {4, 3}), data(5, {3, 6})};
  const Fn fn = [&](std::span<const Tensor> a) { return f(a[0], a[1]); };
  const std::string text = lowered_text(fn, args);
  EXPECT_TRUE(has(text, "mhlo.num_partitions = 4 : i32")) << text;
  // Columns over "model": devices 0 and 2 hold the first half, copied over "data".
  EXPECT_TRUE(has(text, R"("{devices=[1,2,2]0,2,1,3 last_tile_dim_replicate}")")) << text;
  expect_same_bits(tl::interp::Program(sh::parse(text)).run(args), fn(args));
}

TEST(ShardMapLowering, ShardingsThatCannotWorkAreNamed) {
  const auto program = [](const std::string& sharding, const std::string& shape) {
    return "module attributes {mhlo.num_partitions = 2 : i32} {\n"
           "  func.func @main(%x: tensor<4xf32>) -> tensor<" +
           shape +
           "xf32> {\n"
           "    %0 = stablehlo.custom_call @Sharding(%x) {mhlo.sharding = \"" +
           sharding +
           "\"} : (tensor<4xf32>) -> tensor<4xf32>\n"
           "    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = \"{manual}\"} : "
           "(tensor<4xf32>) -> tensor<" +
           shape +
           "xf32>\n"
           "    return %1 : tensor<" +
           shape + "xf32>\n  }\n}\n";
  };
  const Tensor x = tl::arange(4).astype(tl::DType::f32);
  const auto run = [&](const std::string& sharding, const std::string& shape) {
    (void)tl::interp::Program(sh::parse(program(sharding, shape))).run({x});
  };
  tltest::expect_error_with<tl::ValueError>(
      [&] { run("{maximal device=0}", "2"); },
      {"@SPMDFullToShardShape", "maximal", "only replicated, manual and tiled"});
  tltest::expect_error_with<tl::ValueError>([&] { run("{devices=[2]0,0}", "2"); },
                                            {"a device is listed twice"});
  tltest::expect_error_with<tl::ValueError>([&] { run("{devices=[2]1,2}", "2"); },
                                            {"gives device 0 no tile"});
  tltest::expect_error_with<tl::ShapeError>([&] { run("{devices=[2]0,1}", "4"); },
                                            {"gives [2]", "declares [4]"});
  tltest::expect_error_with<tl::ShapeError>([&] { run("{devices=[3]0,1,2}", "1"); }, {"do not divide"});
}

TEST(ShardMapLowering, MeshesOfTwoSizesInOneProgramAreRefused) {
  const auto two = tl::shard_map([](const Tensor& v) { return tl::psum(v, "a"); }, tl::Mesh({{"a", 2}}),
                                 {tl::P()}, tl::P());
  const auto four = tl::shard_map([](const Tensor& v) { return tl::psum(v, "a"); }, tl::Mesh({{"a", 4}}),
                                  {tl::P()}, tl::P());
  const Fn fn = [&](std::span<const Tensor> a) { return std::vector<Tensor>{two(a[0]) + four(a[0])}; };
  tltest::expect_error_with<tl::Error>(
      [&] { (void)lowered_text(fn, {data(1, {3})}); },
      {"tl::shard_map", "devices in a program that runs on", "an SPMD program has one number of partitions"});
}

}  // namespace
