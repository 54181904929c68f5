// The reference interpreter's test instruments: interpreter.probe keeps each value it
// sees under its id, one per iteration; check.expect_serialized_eq compares a value
// with the one kept at an iteration; interpreter.print writes its operand. They run,
// read back from both forms, and refuse what does not hold by name. (Not a file of
// tests/stablehlo: printed C++ has no spelling for them, and every file there prints.)
// reduce_precision's pretty form refuses a format word it cannot read.
#include <gtest/gtest.h>

#include <string>

#include "interp/interpreter.hpp"
#include "ops/check.hpp"
#include "stablehlo/stablehlo.hpp"

namespace {

namespace tl = tlaloc;
namespace sh = tlaloc::stablehlo;

std::string failure_of(const std::string& text) {
  const tl::ir::Module m = sh::parse(text);
  tl::detail::clear_probes();
  try {
    tl::interp::Program(m, "main").run(std::vector<tl::Tensor>{});
  } catch (const tl::Error& e) {
    return e.what();
  }
  return "";
}

const char* const kInstruments = R"(
func.func @probe_in_a_loop() {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %three = stablehlo.constant dense<3> : tensor<i64>
  %i, %sum = stablehlo.while(%arg0 = %zero, %arg1 = %zero) : tensor<i64>, tensor<i64>
  cond {
    %c = stablehlo.compare LT, %arg0, %three : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %next = stablehlo.add %arg0, %one : tensor<i64>
    %s = stablehlo.add %arg1, %next : tensor<i64>
    %kept = interpreter.probe %s, probe_id = "loop_sum" : tensor<i64>
    stablehlo.return %next, %kept : tensor<i64>, tensor<i64>
  }
  %two = stablehlo.constant dense<3> : tensor<i64>
  %six = stablehlo.constant dense<6> : tensor<i64>
  check.expect_serialized_eq %one, probe_id = "loop_sum", iter = 0 : tensor<i64>
  check.expect_serialized_eq %two, probe_id = "loop_sum", iter = 1 : tensor<i64>
  check.expect_serialized_eq %six, probe_id = "loop_sum", iter = 2 : tensor<i64>
  check.expect_eq_const %sum, dense<6> : tensor<i64>
  return
}

func.func @probe_and_print() {
  %0 = stablehlo.constant dense<[[1.5, -2.0], [0.0, 4.25]]> : tensor<2x2xf32>
  %1 = interpreter.probe %0, probe_id = "matrix" : tensor<2x2xf32>
  check.expect_serialized_eq %1, probe_id = "matrix" : tensor<2x2xf32>
  interpreter.print %1 : tensor<2x2xf32>
  return
}
)";

TEST(Instruments, ProbesKeepEachIterationAndPrintWrites) {
  const tl::ir::Module m = sh::parse(kInstruments);
  for (const char* f : {"probe_in_a_loop", "probe_and_print"}) {
    tl::detail::clear_probes();
    EXPECT_NO_THROW(tl::interp::Program(m, f).run(std::vector<tl::Tensor>{})) << f;
  }
  const std::string pretty = sh::emit(m);
  EXPECT_NE(pretty.find("check.expect_serialized_eq %1, probe_id = \"loop_sum\", iter = 0 : tensor<i64>"),
            std::string::npos)
      << pretty;
  EXPECT_EQ(sh::emit(sh::parse(pretty)), pretty);
  EXPECT_EQ(sh::emit(sh::parse(sh::emit(m, {.generic = true, .module_name = {}}))), pretty);
}

const char* const kProgram = R"(
func.func @main() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %1 = interpreter.probe %0, probe_id = "p" : tensor<2xi32>
  %2 = stablehlo.constant dense<[1, 3]> : tensor<2xi32>
  check.expect_serialized_eq %2, probe_id = "p"ITER : tensor<2xi32>
  return
}
)";

std::string program(const std::string& iter) {
  std::string text = kProgram;
  text.replace(text.find("ITER"), 4, iter);
  return text;
}

TEST(Instruments, ASerializedValueThatDiffersIsACheckFailure) {
  const std::string msg = failure_of(program(""));
  EXPECT_NE(msg.find("check.expect_eq"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[1]"), std::string::npos) << msg;
}

TEST(Instruments, AnIterationTheProbeNeverSawIsNamed) {
  const std::string msg = failure_of(program(", iter = 1"));
  EXPECT_NE(msg.find("probe \"p\" kept 1 values, none at iteration 1"), std::string::npos) << msg;
}

TEST(Instruments, ReducePrecisionNeedsAFormatWord) {
  const std::string bad = R"(
func.func @main() {
  %0 = stablehlo.constant dense<[1.0]> : tensor<1xf32>
  %1 = stablehlo.reduce_precision %0, format = e5x10 : tensor<1xf32>
  return
}
)";
  try {
    (void)sh::parse(bad);
    ADD_FAILURE() << "parsed";
  } catch (const tl::Error& e) {
    EXPECT_NE(std::string(e.what()).find("format 'e5x10' is not e<exponent bits>m<mantissa bits>"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
