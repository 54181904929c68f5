// Shapes known at run time: parameters with `?` dims run on arguments of any
// size, and a shape operand that disagrees with a static result dim is refused
// by name.
#include <gtest/gtest.h>

#include "interp/interpreter.hpp"
#include "stablehlo/stablehlo.hpp"
#include "tlaloc/tlaloc.hpp"

namespace tl = tlaloc;

namespace {

// x * 2 * iota(n) for x of any size n: add and multiply see the real sizes, and
// dynamic_iota takes n from get_dimension_size.
constexpr const char* kScaled = R"(func.func @main(%arg0: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<?xf32>
  %1 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %2 = stablehlo.reshape %1 : (tensor<i32>) -> tensor<1xi32>
  %3 = stablehlo.dynamic_iota %2, dim = 0 : (tensor<1xi32>) -> tensor<?xf32>
  %4 = stablehlo.multiply %0, %3 : tensor<?xf32>
  return %4 : tensor<?xf32>
})";

std::vector<float> run_scaled(const tl::interp::Program& p, std::vector<float> x) {
  const std::int64_t n = std::int64_t(x.size());
  const std::vector<tl::Tensor> out = p.run(std::vector<tl::Tensor>{tl::tensor(x, {n})});
  EXPECT_EQ(out.at(0).shape(), tl::Shape{n});
  return out.at(0).to_vector<float>();
}

TEST(DynamicShapes, ParameterOfAnySize) {
  const tl::interp::Program p(tl::stablehlo::parse(kScaled));
  EXPECT_EQ(run_scaled(p, {1.0f, 2.0f, 3.0f}), (std::vector<float>{0.0f, 4.0f, 12.0f}));
  EXPECT_EQ(run_scaled(p, {5.0f, -1.0f, 0.5f, 2.0f, 1.0f}),
            (std::vector<float>{0.0f, -2.0f, 2.0f, 12.0f, 8.0f}));
  EXPECT_TRUE(run_scaled(p, {}).empty());
}

// A static result fed by a `?` operand: the shape rule checks the real size.
TEST(DynamicShapes, StaticResultOfDynamicOperand) {
  const tl::interp::Program p(
      tl::stablehlo::parse(R"(func.func @main(%arg0: tensor<?xf32>) -> tensor<2x2xf32> {
  %0 = stablehlo.reshape %arg0 : (tensor<?xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
})"));
  const std::vector<tl::Tensor> ok = {tl::tensor(std::vector<float>{1, 2, 3, 4}, {4})};
  EXPECT_EQ(p.run(ok).at(0).shape(), (tl::Shape{2, 2}));
  const std::vector<tl::Tensor> bad = {tl::tensor(std::vector<float>{1, 2, 3}, {3})};
  try {
    p.run(bad);
    FAIL() << "reshaped 3 elements into 2x2";
  } catch (const tl::ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("reshape"), std::string::npos) << e.what();
  }
}

TEST(DynamicShapes, ShapeOperandMustFitStaticDims) {
  const tl::interp::Program p(tl::stablehlo::parse(R"(func.func @main() -> tensor<4x?xi32> {
  %s = stablehlo.constant dense<[5, 2]> : tensor<2xi64>
  %0 = stablehlo.dynamic_iota %s, dim = 0 : (tensor<2xi64>) -> tensor<4x?xi32>
  return %0 : tensor<4x?xi32>
})"));
  try {
    p.run(std::vector<tl::Tensor>{});
    FAIL() << "dynamic_iota ran with a shape operand of [5, 2] for tensor<4x?xi32>";
  } catch (const tl::ShapeError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("dynamic_iota"), std::string::npos) << what;
    EXPECT_NE(what.find("[5, 2]"), std::string::npos) << what;
  }
}

TEST(DynamicShapes, RoundTrip) {
  constexpr const char* kText =
      R"(func.func @main(%arg0: tensor<?x1xf32>, %arg1: tensor<2xi64>) -> tensor<?x?xf32> {
  %0 = stablehlo.dynamic_broadcast_in_dim %arg0, %arg1, dims = [0, 1] {known_expanding_dimensions = array<i64: 1>} : (tensor<?x1xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %1 = stablehlo.dynamic_reshape %0, %arg1 : (tensor<?x?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
})";
  for (bool generic : {false, true}) {
    tl::stablehlo::EmitOptions options;
    options.generic = generic;
    const std::string once = tl::stablehlo::emit(tl::stablehlo::parse(kText), options);
    EXPECT_EQ(tl::stablehlo::emit(tl::stablehlo::parse(once), options), once);
    EXPECT_NE(once.find("known_expanding_dimensions"), std::string::npos) << once;
    EXPECT_NE(once.find("tensor<?x?xf32>"), std::string::npos) << once;
  }
}

}  // namespace
