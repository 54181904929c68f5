// rng_bit_generator and rng: text round trips and PHILOX refused by name.
#include <gtest/gtest.h>

#include "interp/interpreter.hpp"
#include "stablehlo/stablehlo.hpp"
#include "tlaloc/tlaloc.hpp"

namespace tl = tlaloc;

namespace {

constexpr const char* kBits =
    R"(func.func @main(%arg0: tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui32>) {
  %0:2 = "stablehlo.rng_bit_generator"(%arg0) {rng_algorithm = #stablehlo<rng_algorithm ALG>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui32>)
  return %0#0, %0#1 : tensor<2xui64>, tensor<2x2xui32>
})";

std::string with(std::string text, const std::string& alg) { return text.replace(text.find("ALG"), 3, alg); }

TEST(Rng, RoundTrip) {
  for (bool generic : {false, true}) {
    tl::stablehlo::EmitOptions options;
    options.generic = generic;
    const std::string once = tl::stablehlo::emit(tl::stablehlo::parse(with(kBits, "THREE_FRY")), options);
    EXPECT_EQ(tl::stablehlo::emit(tl::stablehlo::parse(once), options), once);
    EXPECT_NE(once.find("THREE_FRY"), std::string::npos) << once;
  }
}

TEST(Rng, PhiloxIsRefusedByName) {
  try {
    const tl::ir::Module m = tl::stablehlo::parse(with(kBits, "PHILOX"));
    const std::vector<tl::Tensor> args = {tl::tensor(std::vector<std::uint64_t>{0, 0}, {2})};
    tl::interp::run(m, args);
    FAIL() << "PHILOX ran";
  } catch (const tl::Error& e) {
    EXPECT_NE(std::string(e.what()).find("PHILOX"), std::string::npos) << e.what();
  }
}

}  // namespace
