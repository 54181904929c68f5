// Ops with regions: a long loop through the interpreter, reductions lowered to
// stablehlo.reduce against the eager kernels, and the pretty and generic forms of
// while, if, case and reduce read back unchanged.
#include <gtest/gtest.h>

#include "interp/interpreter.hpp"
#include "ir/builder.hpp"
#include "stablehlo/stablehlo.hpp"
#include "tlaloc/tlaloc.hpp"

namespace tl = tlaloc;
namespace shlo = tlaloc::stablehlo;
using tl::ir::TensorType;

namespace {

// Each iteration makes a new 4 KiB tensor; if the interpreter kept the values of
// earlier iterations, 100000 of them would hold 400 MB.
TEST(ControlFlow, LongWhileLoopReleasesIterationValues) {
  const char* text = R"(
func.func @main(%x: tensor<1024xf32>) -> (tensor<i64>, tensor<1024xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %n = stablehlo.constant dense<100000> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %0:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i64>, tensor<1024xf32>
   cond {
    %1 = stablehlo.compare  LT, %i, %n,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  } do {
    %1 = stablehlo.add %i, %one : tensor<i64>
    %2 = stablehlo.add %v, %x : tensor<1024xf32>
    stablehlo.return %1, %2 : tensor<i64>, tensor<1024xf32>
  }
  return %0#0, %0#1 : tensor<i64>, tensor<1024xf32>
})";
  const tl::interp::Program prog(shlo::parse(text));
  const tl::Tensor x = tl::full({1024}, 0.25, tl::DType::f32);
  const std::vector<tl::Tensor> out = prog.run({x});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].item<std::int64_t>(), 100000);
  // Multiples of 0.25 up to 25000.25 are exact in f32.
  const std::vector<float> v = out[1].to_vector<float>();
  EXPECT_EQ(v.front(), 25000.25f);
  EXPECT_EQ(v.back(), 25000.25f);
  EXPECT_EQ(x.to_vector<float>().front(), 0.25f);  // the argument is not written to
}

TEST(ControlFlow, LoweredReductionsEqualEagerBitForBit) {
  const tl::Tensor x = tl::random::normal(tl::random::key(7), {37, 129});
  const auto fn = [](std::span<const tl::Tensor> a) {
    return std::vector<tl::Tensor>{tl::sum(a[0], 1), tl::sum(a[0]), tl::max(a[0], 0), tl::min(a[0], 1),
                                   tl::prod(a[0], 0)};
  };
  const tl::ir::Function f = tl::ir::trace("main", std::vector<TensorType>{{tl::DType::f32, {37, 129}}}, fn);
  const std::string text = shlo::to_text(f);
  EXPECT_NE(text.find("stablehlo.reduce("), std::string::npos) << text;
  const tl::interp::Program prog(shlo::parse(text));
  const std::vector<tl::Tensor> got = prog.run({x});
  const std::vector<tl::Tensor> want = fn(std::span<const tl::Tensor>(&x, 1));
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].shape(), want[i].shape()) << i;
    EXPECT_EQ(got[i].to_vector<float>(), want[i].to_vector<float>()) << i;
  }
}

const char* kRoundTrip = R"(
func.func @main(%x: tensor<2x3xf32>, %p: tensor<i1>, %k: tensor<i32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<f32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %c = stablehlo.constant dense<3> : tensor<i32>
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  %1 = stablehlo.reduce(%x init: %z) across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
   reducer(%a: tensor<f32>, %b: tensor<f32>) {
    %2 = stablehlo.subtract %b, %a : tensor<f32>
    stablehlo.return %2 : tensor<f32>
  }
  %3:2 = stablehlo.while(%i = %k, %s = %z) : tensor<i32>, tensor<f32>
   cond {
    %4 = stablehlo.compare  LT, %i, %c,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %4 : tensor<i1>
  } do {
    %4 = stablehlo.add %s, %s : tensor<f32>
    stablehlo.return %i, %4 : tensor<i32>, tensor<f32>
  }
  %5 = "stablehlo.if"(%p) ({
    stablehlo.return %3#1 : tensor<f32>
  }, {
    stablehlo.return %z : tensor<f32>
  }) : (tensor<i1>) -> tensor<f32>
  %6 = "stablehlo.case"(%k) ({
    stablehlo.return %5 : tensor<f32>
  }) : (tensor<i32>) -> tensor<f32>
  return %0, %1, %6 : tensor<2xf32>, tensor<2xf32>, tensor<f32>
})";

TEST(ControlFlow, PrettyAndGenericFormsRoundTrip) {
  for (const bool generic : {false, true}) {
    const shlo::EmitOptions opt{generic, ""};
    const std::string once = shlo::emit(shlo::parse(kRoundTrip), opt);
    const std::string twice = shlo::emit(shlo::parse(once), opt);
    EXPECT_EQ(once, twice) << once;
  }
  const std::string pretty = shlo::emit(shlo::parse(kRoundTrip));
  EXPECT_NE(pretty.find("applies stablehlo.add across dimensions = [1]"), std::string::npos) << pretty;
  EXPECT_NE(pretty.find(" reducer("), std::string::npos) << pretty;
  EXPECT_NE(pretty.find(" cond {"), std::string::npos) << pretty;
  EXPECT_NE(pretty.find("} do {"), std::string::npos) << pretty;
}

}  // namespace
