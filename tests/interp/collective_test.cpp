// Several processes of one program in the interpreter (src/interp/parallel.hpp) and
// the collectives they meet in (src/ops/collective.cpp): the same bits on every run,
// and failures that name the op and the processes instead of hanging.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>

#include "interp/interpreter.hpp"
#include "stablehlo/stablehlo.hpp"
#include "support/expect_error.hpp"
#include "tlaloc/tlaloc.hpp"

namespace tl = tlaloc;

namespace {

tl::interp::Program program(const std::string& text) {
  return tl::interp::Program(tl::stablehlo::parse(text));
}

// @name(x) sums x over the groups (rows of `groups`, a `shape` i64 matrix).
std::string all_reduce(const std::string& name, const std::string& type, const std::string& groups,
                       const std::string& shape) {
  return "func.func @" + name + "(%x: " + type + ") -> " + type +
         " {\n  %0 = \"stablehlo.all_reduce\"(%x) ({\n" +
         "    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n      %s = stablehlo.add %a, %b : tensor<f32>\n" +
         "      stablehlo.return %s : tensor<f32>\n  }) {replica_groups = dense<" + groups + "> : tensor<" +
         shape + "xi64>} : (" + type + ") -> " + type + "\n  return %0 : " + type + "\n}\n";
}

// @main(a, b, ...) runs `programs` (one row per replica) on its arguments.
std::string parallel_main(const std::string& programs, const std::string& type, int n_args, int n_results) {
  std::string args, arg_types, operands, results;
  for (int i = 0; i < n_args; ++i) {
    args += (i ? ", %" : "%") + std::string(1, char('a' + i)) + ": " + type;
    operands += (i ? ", %" : "%") + std::string(1, char('a' + i));
    arg_types += (i ? ", " : "") + type;
  }
  for (int i = 0; i < n_results; ++i) results += (i ? ", " : "") + type;
  return "func.func @main(" + args + ") -> (" + results + ") {\n  %r:" + std::to_string(n_results) +
         " = \"interpreter.run_parallel\"(" + operands + ") {programs = " + programs + "} : (" + arg_types +
         ") -> (" + results + ")\n  return %r#0" +
         [&] {
           std::string rest;
           for (int i = 1; i < n_results; ++i) rest += ", %r#" + std::to_string(i);
           return rest;
         }() +
         " : " + results + "\n}\n";
}

TEST(Collectives, ASumIsTheSameBitsOnEveryRunInTheGroupsOrder) {
  const std::string type = "tensor<256xf32>";
  const tl::interp::Program p = program(all_reduce("sum", type, "[[0, 1, 2, 3]]", "1x4") +
                                        parallel_main("[[@sum], [@sum], [@sum], [@sum]]", type, 4, 4));
  std::vector<tl::Tensor> in;
  for (int k = 0; k < 4; ++k)  // magnitudes apart, so that the order of the sum shows in the bits
    in.push_back(tl::random::normal(tl::random::key(std::uint64_t(k)), {256}) * std::pow(10.0, 3 * k));
  std::vector<float> expected(256);
  for (std::size_t i = 0; i < 256; ++i) {
    float s = in[0].to_vector<float>()[i];
    for (std::size_t k = 1; k < 4; ++k) s += in[k].to_vector<float>()[i];
    expected[i] = s;
  }
  for (int run = 0; run < 20; ++run) {
    const std::vector<tl::Tensor> out = p.run(in);
    ASSERT_EQ(out.size(), 4u);
    for (const tl::Tensor& r : out) ASSERT_EQ(r.to_vector<float>(), expected) << "run " << run;
  }
}

// A program run on its own is the one process of a 1 x 1 grid, as the spec runs it:
// a group of itself gives its own value; a group naming another process is refused.
TEST(Collectives, AProgramRunOnItsOwnIsOneProcess) {
  const tl::Tensor x = tl::tensor({1.5f, -2.f});
  const tl::interp::Program alone = program(all_reduce("main", "tensor<2xf32>", "[[0]]", "1x1"));
  EXPECT_EQ(alone.run({x}).at(0).to_vector<float>(), x.to_vector<float>());
  const tl::interp::Program two = program(all_reduce("main", "tensor<2xf32>", "[[0, 1]]", "1x2"));
  tltest::expect_error<tl::ValueError>([&] { two.run({x}); }, "stablehlo.all_reduce",
                                       "replica_groups names 1, not one of the 1 ids");
}

// Process 0 fails before the collective process 1 waits in: the run ends at once with
// process 0's error, not after the timeout.
TEST(Collectives, AFailingProcessStopsTheOthers) {
  const std::string bad =
      "func.func @bad(%x: tensor<3xf32>) -> tensor<3xf32> {\n  %0 = \"stablehlo.reduce_scatter\"(%x) ({\n"
      "    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n      %s = stablehlo.add %a, %b : tensor<f32>\n"
      "      stablehlo.return %s : tensor<f32>\n  }) {scatter_dimension = 0 : i64, replica_groups = "
      "dense<[[0, 1]]> : "
      "tensor<1x2xi64>} : (tensor<3xf32>) -> tensor<3xf32>\n  return %0 : tensor<3xf32>\n}\n";
  const tl::interp::Program p = program(bad + all_reduce("good", "tensor<3xf32>", "[[0, 1]]", "1x2") +
                                        parallel_main("[[@bad], [@good]]", "tensor<3xf32>", 2, 2));
  const auto start = std::chrono::steady_clock::now();
  tltest::expect_error<tl::ShapeError>(
      [&] {
        p.run({tl::ones({3}), tl::ones({3})});
      },
      "stablehlo.reduce_scatter", "does not split in 2 parts");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(Collectives, DifferentCollectivesAtOneMeetingAreNamed) {
  const std::string gather =
      "func.func @gather(%x: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = \"stablehlo.all_gather\"(%x) "
      "{all_gather_dim = "
      "0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<4xf32>\n"
      "  %1 = \"stablehlo.slice\"(%0) {start_indices = array<i64: 0>, limit_indices = array<i64: 2>, strides "
      "= "
      "array<i64: 1>} : (tensor<4xf32>) -> tensor<2xf32>\n  return %1 : tensor<2xf32>\n}\n";
  const tl::interp::Program p = program(gather + all_reduce("sum", "tensor<2xf32>", "[[0, 1]]", "1x2") +
                                        parallel_main("[[@sum], [@gather]]", "tensor<2xf32>", 2, 2));
  tltest::expect_error_with<tl::Error>(
      [&] {
        p.run({tl::ones({2}), tl::ones({2})});
      },
      {"stablehlo.all_gather", "stablehlo.all_reduce", "reached", "group [0, 1]"});
}

// Process 1 returns without the collective process 0 waits in.
TEST(Collectives, AProcessThatNeverComesTimesOutNamingIt) {
  const std::string idle =
      "func.func @idle(%x: tensor<2xf32>) -> tensor<2xf32> {\n  return %x : tensor<2xf32>\n}\n";
  const tl::interp::Program p = program(idle + all_reduce("sum", "tensor<2xf32>", "[[0, 1]]", "1x2") +
                                        parallel_main("[[@sum], [@idle]]", "tensor<2xf32>", 2, 2));
  ::setenv("TLALOC_COLLECTIVE_TIMEOUT", "0.3", 1);
  tltest::expect_error_with<tl::Error>(
      [&] {
        p.run({tl::ones({2}), tl::ones({2})});
      },
      {"tl::stablehlo.all_reduce:", "process 0 (replica 0, partition 0) waited 0.3 s",
       "processes [1] of its group [0, 1]"});
  ::unsetenv("TLALOC_COLLECTIVE_TIMEOUT");
}

// Checked with the program, before anything runs.
TEST(Collectives, RunParallelMustPassEachProgramItsArguments) {
  const std::string text = all_reduce("sum", "tensor<2xf32>", "[[0, 1]]", "1x2") +
                           "func.func @main(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {\n"
                           "  %r:2 = \"interpreter.run_parallel\"(%a) {programs = [[@sum], [@sum]]} : "
                           "(tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)\n"
                           "  return %r#0, %r#1 : tensor<2xf32>, tensor<2xf32>\n}\n";
  tltest::expect_error_with<tl::Error>(
      [&] { program(text); }, {"run_parallel", "passes 1 operands where its programs take 2 parameters"});
}

}  // namespace
