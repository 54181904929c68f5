// infeed and outfeed against a host queue the caller supplies (src/ops/tokens.cpp):
// values come out in the order queued, outfeed keeps what it is given, and an empty
// queue, a value of another type or a program run without a queue fail by name.
#include <gtest/gtest.h>

#include "interp/interpreter.hpp"
#include "stablehlo/stablehlo.hpp"
#include "support/expect_error.hpp"
#include "tlaloc/tlaloc.hpp"

namespace tl = tlaloc;

namespace {

// Takes two values from the infeed, leaves their sum in the outfeed and returns it.
const std::string kFeedTwice =
    "func.func @main() -> tensor<2xf32> {\n"
    "  %t = stablehlo.after_all : !stablehlo.token\n"
    "  %a, %t1 = \"stablehlo.infeed\"(%t) {infeed_config = \"\"} : (!stablehlo.token) -> (tensor<2xf32>, "
    "!stablehlo.token)\n"
    "  %b, %t2 = \"stablehlo.infeed\"(%t1) : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)\n"
    "  %s = stablehlo.add %a, %b : tensor<2xf32>\n"
    "  %t3 = \"stablehlo.outfeed\"(%s, %a, %t2) {outfeed_config = \"\"} : (tensor<2xf32>, tensor<2xf32>, "
    "!stablehlo.token) -> !stablehlo.token\n"
    "  return %s : tensor<2xf32>\n}\n";

tl::interp::Program with_queue(const std::string& text, tl::detail::HostQueue& q) {
  return tl::interp::Program(tl::stablehlo::parse(text), {}, {.host_queue = &q});
}

}  // namespace

TEST(HostQueue, InfeedTakesValuesInOrderAndOutfeedKeepsThem) {
  tl::detail::HostQueue q;
  q.push_infeed({tl::tensor<float>({1, 2}, {2})});
  q.push_infeed({tl::tensor<float>({10, 20}, {2})});
  const std::vector<tl::Tensor> out = with_queue(kFeedTwice, q).run({});
  EXPECT_EQ(out.at(0).to_vector<float>(), (std::vector<float>{11, 22}));
  const auto fed = q.outfeed();
  ASSERT_EQ(fed.size(), 1u);
  ASSERT_EQ(fed[0].size(), 2u);
  EXPECT_EQ(fed[0][0].to_vector<float>(), (std::vector<float>{11, 22}));
  EXPECT_EQ(fed[0][1].to_vector<float>(), (std::vector<float>{1, 2}));
}

TEST(HostQueue, AnEmptyQueueIsRefusedByName) {
  tl::detail::HostQueue q;
  q.push_infeed({tl::tensor<float>({1, 2}, {2})});
  tltest::expect_error<tl::Error>([&] { with_queue(kFeedTwice, q).run({}); }, "stablehlo.infeed",
                                  "found the host queue empty");
}

TEST(HostQueue, QueuedValuesMustHaveTheDeclaredTypes) {
  tl::detail::HostQueue q;
  q.push_infeed({tl::tensor<float>({1, 2, 3}, {3})});
  tltest::expect_error<tl::ShapeError>(
      [&] { with_queue(kFeedTwice, q).run({}); }, "stablehlo.infeed",
      "value 0 from the host queue is f32[3], where the program declares f32[2]");
}

TEST(HostQueue, AProgramWithoutAQueueRefusesByName) {
  const tl::interp::Program p(tl::stablehlo::parse(kFeedTwice));
  tltest::expect_error<tl::Error>([&] { p.run({}); }, "stablehlo.infeed", "has no host queue");
}

// The reference interpreter's form: run_parallel's `infeed` names functions whose
// results feed the processes, and it reads and writes back unchanged.
TEST(HostQueue, RunParallelFeedsFromFunctions) {
  const std::string text =
      "func.func @feed(%t: !stablehlo.token) -> tensor<2xf32> {\n"
      "  %a, %t1 = \"stablehlo.infeed\"(%t) : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)\n"
      "  %b, %t2 = \"stablehlo.infeed\"(%t1) : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)\n"
      "  %s = stablehlo.subtract %a, %b : tensor<2xf32>\n"
      "  return %s : tensor<2xf32>\n}\n"
      "func.func @first() -> tensor<2xf32> {\n"
      "  %c = stablehlo.constant dense<[5.0, 7.0]> : tensor<2xf32>\n"
      "  return %c : tensor<2xf32>\n}\n"
      "func.func @second() -> tensor<2xf32> {\n"
      "  %c = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>\n"
      "  return %c : tensor<2xf32>\n}\n"
      "func.func @main() -> tensor<2xf32> {\n"
      "  %t = stablehlo.after_all : !stablehlo.token\n"
      "  %r = \"interpreter.run_parallel\"(%t) {infeed = [@first, @second], programs = [[@feed]]} : "
      "(!stablehlo.token) -> tensor<2xf32>\n"
      "  return %r : tensor<2xf32>\n}\n";
  const tl::ir::Module m = tl::stablehlo::parse(text);
  EXPECT_EQ(tl::interp::Program(m).run({}).at(0).to_vector<float>(), (std::vector<float>{4, 5}));
  const std::string emitted = tl::stablehlo::emit(m);
  EXPECT_NE(emitted.find("infeed = [@first, @second]"), std::string::npos) << emitted;
  EXPECT_EQ(tl::stablehlo::emit(tl::stablehlo::parse(emitted)), emitted);
}
