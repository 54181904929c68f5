// Tokens and point-to-point messages in the interpreter (src/ops/tokens.cpp): a recv
// that nothing answers, a message of the wrong type and a token where no token goes
// fail with the op and the channel named, never a hang. The working programs are
// tests/stablehlo/send_recv.mlir.
#include <gtest/gtest.h>

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

std::string channel(int id) {
  return "{channel_handle = #stablehlo.channel_handle<handle = " + std::to_string(id) + ", type = 1>}";
}

// @send sends x (f32[2]) on channel 1; @recv_TYPE receives a TYPE on channel `id`.
const std::string kSend =
    "func.func @send(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
    "  %t = stablehlo.after_all : !stablehlo.token\n"
    "  %t1 = \"stablehlo.send\"(%x, %t) " +
    channel(1) +
    " : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token\n"
    "  return %x : tensor<2xf32>\n}\n";
std::string recv(const std::string& type, int id) {
  return "func.func @recv(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
         "  %t = stablehlo.after_all : !stablehlo.token\n"
         "  %r, %t1 = \"stablehlo.recv\"(%t) " +
         channel(id) + " : (!stablehlo.token) -> (" + type +
         ", !stablehlo.token)\n"
         "  return %x : tensor<2xf32>\n}\n";
}
const std::string kMain =
    "func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {\n"
    "  %r:2 = \"interpreter.run_parallel\"(%a, %b) {programs = [[@send], [@recv]]} : "
    "(tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)\n"
    "  return %r#0, %r#1 : tensor<2xf32>, tensor<2xf32>\n}\n";

TEST(SendRecv, ARecvThatNothingAnswersTimesOutNamingTheChannel) {
  const tl::interp::Program p = program(kSend + recv("tensor<2xf32>", 3) + kMain);
  ::setenv("TLALOC_COLLECTIVE_TIMEOUT", "0.3", 1);
  tltest::expect_error_with<tl::Error>(
      [&] {
        p.run({tl::ones({2}), tl::ones({2})});
      },
      {"tl::stablehlo.recv:", "process 1 (replica 1, partition 0) waited 0.3 s",
       "a message on channel 3 that no process sent"});
  ::unsetenv("TLALOC_COLLECTIVE_TIMEOUT");
}

TEST(SendRecv, WhatArrivesMustHaveTheDeclaredType) {
  const tl::interp::Program p = program(kSend + recv("tensor<2xi32>", 1) + kMain);
  tltest::expect_error<tl::ShapeError>(
      [&] {
        p.run({tl::ones({2}), tl::ones({2})});
      },
      "stablehlo.recv", "value 0 received on channel 1 is f32[2], where the program declares i32[2]");
}

// What one run sends and nobody receives is gone when the run ends.
TEST(SendRecv, MessagesDoNotOutliveTheirRun) {
  const std::string send_main = kSend +
                                "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
                                "  %0 = call @send(%a) : (tensor<2xf32>) -> tensor<2xf32>\n"
                                "  return %0 : tensor<2xf32>\n}\n";
  const std::string recv_main = recv("tensor<2xf32>", 1) +
                                "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
                                "  %0 = call @recv(%a) : (tensor<2xf32>) -> tensor<2xf32>\n"
                                "  return %0 : tensor<2xf32>\n}\n";
  EXPECT_EQ(program(send_main).run({tl::ones({2})}).size(), 1u);
  tltest::expect_error<tl::Error>([&] { program(recv_main).run({tl::ones({2})}); }, "stablehlo.recv",
                                  "waits on channel 1, where this process (the only one) has sent nothing");
}

TEST(SendRecv, OnlyTheTokenOpsTakeTokens) {
  tltest::expect_error_with<tl::Error>(
      [&] {
        program(
            "func.func @main() {\n  %t = stablehlo.after_all : !stablehlo.token\n"
            "  %0 = stablehlo.add %t, %t : !stablehlo.token\n  return\n}\n");
      },
      {"op 'add'", "operand 0 is a token"});
  tltest::expect_error_with<tl::Error>(
      [&] {
        program(
            "func.func @main(%x: tensor<2xf32>) {\n  %t = stablehlo.after_all : !stablehlo.token\n"
            "  %t1 = \"stablehlo.send\"(%t, %x) " +
            channel(1) + " : (!stablehlo.token, tensor<2xf32>) -> !stablehlo.token\n  return\n}\n");
      },
      {"stablehlo.send", "takes a token as its last operand"});
}

}  // namespace
