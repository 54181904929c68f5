// Malformed StableHLO text: each case gives a ParseError (or a verifier error)
// with the line and column of the problem, never a crash.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "stablehlo/stablehlo.hpp"
#include "tlaloc/tlaloc.hpp"

namespace tl = tlaloc;
namespace sh = tlaloc::stablehlo;

namespace {

// Parses `text` and expects a ParseError at line:col whose message contains `what`.
void expect_parse_error(const std::string& text, int line, int col, const std::string& what) {
  try {
    (void)sh::parse(text, "t.mlir");
    ADD_FAILURE() << "no error for:\n" << text;
  } catch (const sh::ParseError& e) {
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_EQ(e.col(), col) << e.what();
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("t.mlir:", 0), 0u) << e.what();
  }
}

TEST(ParserErrors, TruncatedFile) {
  expect_parse_error("func.func @main() {\n  %0 = stablehlo.constant dense<1.0> : tensor<f32>\n", 3, 1,
                     "ended inside a region");
  expect_parse_error("func.func @main() {\n  %0 = stablehlo.constant dense<[1.0, 2.0", 2, 33,
                     "unterminated '<'");
  expect_parse_error("func.func @main(", 1, 17, "expected a value name");
}

TEST(ParserErrors, UnknownAndUnsupportedOps) {
  expect_parse_error("func.func @main() {\n  %0 = stablehlo.frobnicate : tensor<f32>\n  return\n}", 2, 8,
                     "unknown op 'stablehlo.frobnicate'");
  expect_parse_error(
      "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %0 = \"stablehlo.uniform_quantize\"(%a) : "
      "(tensor<f32>) -> tensor<f32>\n  return %0 : tensor<f32>\n}",
      2, 8, "quantized types are not supported");
  expect_parse_error("func.func @main() {\n  %0 = stablehlo.create_token : !stablehlo.token\n  return\n}", 2,
                     8, "deprecated: write stablehlo.after_all");
  expect_parse_error("func.func @main(%a: tensor<complex<f16>>) {\n  return\n}", 1, 28,
                     "unknown element type 'complex<f16>'");
  expect_parse_error("func.func @main(%a: tensor<tf32>) {\n  return\n}", 1, 28,
                     "element type tf32 is not supported");
  expect_parse_error("func.func @main() {\n  %0 = stablehlo.constant dense<16> : tensor<i4>\n  return\n}", 2,
                     33, "16 does not fit in i4");
  expect_parse_error(
      "func.func @main() {\n  %0 = stablehlo.constant dense<[0x1F]> : tensor<1xf4E2M1FN>\n  return\n}", 2, 34,
      "hex value 0x1F is too wide for f4E2M1FN");
  expect_parse_error(
      "func.func @main() {\n  %0 = stablehlo.constant dense<1.0> : tensor<complex<f32>>\n  return\n}", 2, 33,
      "a complex<f32> element is written (real, imaginary)");
}

TEST(ParserErrors, TypeMismatches) {
  expect_parse_error(
      "func.func @main(%a: tensor<2xf32>) {\n  check.expect_eq %a, %a : tensor<3xf32>\n  return\n}", 2, 28,
      "operand 0");
  expect_parse_error("func.func @main(%a: tensor<2xf32>) -> tensor<2xi32> {\n  return %a : tensor<2xf32>\n}",
                     2, 3, "types differ from its signature");
  expect_parse_error("func.func @main() {\n  %0 = stablehlo.constant dense<300> : tensor<i8>\n  return\n}", 2,
                     33, "300 does not fit in i8");
  expect_parse_error(
      "func.func @main() {\n  %0 = stablehlo.constant dense<[1, 2]> : tensor<3xi32>\n  return\n}", 2, 27,
      "dense literal of shape [2] for tensor<3xi32>");
}

TEST(ParserErrors, WrongOperandCountsAreVerifierErrorsWithLocations) {
  try {
    (void)sh::parse("func.func @main(%a: tensor<f32>) {\n  check.expect_eq %a : tensor<f32>\n  return\n}",
                    "t.mlir");
    ADD_FAILURE() << "no error";
  } catch (const tl::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("line 2:3"), std::string::npos) << msg;
    EXPECT_NE(msg.find("takes 2 operands, got 1"), std::string::npos) << msg;
  }
}

// dot_general's algorithm: one asking for more precision than the kernel computes in
// is refused where it is written, as is a malformed one.
TEST(ParserErrors, DotAlgorithmsBeyondTheKernelAreRefused) {
  const std::string head =
      "func.func @main(%a: tensor<2x2xf32>) {\n  %0 = stablehlo.dot_general %a, %a, contracting_dims = [1] x "
      "[0], "
      "algorithm = <lhs_precision_type = ";
  const std::string tail =
      ", rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = "
      "1, "
      "num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<2x2xf32>, "
      "tensor<2x2xf32>) "
      "-> tensor<2x2xf32>\n  return\n}";
  try {
    (void)sh::parse(head + "f64" + tail, "t.mlir");
    ADD_FAILURE() << "no error";
  } catch (const tl::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("line 2:3"), std::string::npos) << msg;
    EXPECT_NE(msg.find("lhs_precision_type = f64, more precise than the f32"), std::string::npos) << msg;
  }
  EXPECT_NO_THROW((void)sh::parse(head + "bf16" + tail, "t.mlir"));
  expect_parse_error(
      head + "f32, lhs_component_count = 1>" + " : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>", 2,
      81, "needs all seven of its fields");
}

// chlo ops: their types are checked against the operands, top_k's k against the
// shape, and a chlo op Tlaloc does not know is refused by name.
TEST(ParserErrors, ChloOpsCheckTheirTypesAndAttributes) {
  const auto fails = [](const std::string& body, const std::string& what) {
    const std::string text = "func.func @main(%x: tensor<4xf32>) {\n  " + body + "\n  return\n}";
    try {
      (void)sh::parse(text, "t.mlir");
      ADD_FAILURE() << "no error: " << body;
    } catch (const tl::Error& e) {
      const std::string msg = e.what();
      // Located: by the parser (t.mlir:2:col) or the verifier (line 2:col).
      EXPECT_TRUE(msg.find("t.mlir:2:") != std::string::npos || msg.find("line 2:") != std::string::npos)
          << msg;
      EXPECT_NE(msg.find(what), std::string::npos) << msg;
    }
  };
  fails("%0 = chlo.lgamma %x : tensor<3xf32> -> tensor<4xf32>",
        "operand 0 of chlo.lgamma is tensor<4xf32> but the type says tensor<3xf32>");
  fails("%0 = chlo.zeta %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>",
        "chlo.zeta has 1 operands but its type lists 2");
  fails("%0:2 = chlo.top_k(%x, k = 5) : tensor<4xf32> -> (tensor<5xf32>, tensor<5xi32>)",
        "k = 5 is outside [0, 4]");
  fails("%0:2 = chlo.top_k(%x, n = 2) : tensor<4xf32> -> (tensor<2xf32>, tensor<2xi32>)",
        "chlo.top_k expects k = <integer>");
  fails("%0:2 = chlo.top_k(%x, k = 2) {smallest = true} : tensor<4xf32> -> (tensor<2xf32>, tensor<2xi32>)",
        "chlo.top_k has no attribute 'smallest'");
  fails("%0 = chlo.broadcast_add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>",
        "unknown op 'chlo.broadcast_add'");
}

TEST(ParserErrors, HugeAndNegativeDimensions) {
  expect_parse_error("func.func @main(%a: tensor<99999999999999999999xf32>) {\n  return\n}", 1, 28,
                     "too large");
  expect_parse_error("func.func @main(%a: tensor<-1xf32>) {\n  return\n}", 1, 28, "cannot be negative");
}

TEST(ParserErrors, DeepNestingIsRefusedNotAStackOverflow) {
  const std::string deep = "func.func @main() {\n  %0 = stablehlo.constant dense<" +
                           std::string(100000, '[') + std::string(100000, ']') +
                           "> : tensor<f32>\n  return\n}";
  expect_parse_error(deep, 2, 232, "nesting deeper than");
}

TEST(ParserErrors, NamesAndScopes) {
  expect_parse_error("func.func @main() {\n  check.expect_eq %x, %x : tensor<f32>\n  return\n}", 2, 19,
                     "undefined value %x");
  expect_parse_error(
      "func.func @main() {\n  %0 = stablehlo.constant dense<1> : tensor<i32>\n  %0 = stablehlo.constant "
      "dense<2> : tensor<i32>\n  return\n}",
      3, 3, "%0 is defined twice");
  expect_parse_error("func.func @f() {\n  return\n}\nfunc.func @f() {\n  return\n}", 4, 11,
                     "@f is defined twice");
}

TEST(ParserErrors, EveryPrefixOfAValidModuleFailsCleanly) {
  const std::string ok =
      "module {\n  func.func public @main() {\n    %0 = stablehlo.constant dense<[1.5, 2.0]> : "
      "tensor<2xf32>\n"
      "    %1:2 = call @two(%0) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<i32>)\n"
      "    check.expect_eq_const %1#0, dense<[1.5, 2.0]> : tensor<2xf32>\n    return\n  }\n"
      "  func.func private @two(%arg0: tensor<2xf32>) -> (tensor<2xf32>, tensor<i32>) {\n"
      "    %c = stablehlo.constant dense<7> : tensor<i32>\n    return %arg0, %c : tensor<2xf32>, "
      "tensor<i32>\n  }\n}\n";
  EXPECT_NO_THROW((void)sh::parse(ok));
  // The empty text is an empty module, as MLIR reads it; every longer prefix is cut short.
  EXPECT_TRUE(sh::parse("").functions.empty());
  for (std::size_t n = 1; n + 2 < ok.size(); ++n)
    EXPECT_THROW((void)sh::parse(ok.substr(0, n)), tl::Error) << n;
}

// Inputs that once escaped as std::out_of_range / std::invalid_argument or gave a
// position inside an attribute's body instead of the file.
TEST(ParserErrors, OutOfRangeIntegersInsideAttributesAreParseErrors) {
  const auto gather = [](std::string_view offset_dim, std::string_view index_vector_dim) {
    return fmt::format(
        "func.func @main(%x: tensor<3x2xi32>, %i: tensor<3xi64>) {{\n  %r = \"stablehlo.gather\"(%x, %i) "
        "<{{dimension_numbers = #stablehlo.gather<offset_dims = [{}], collapsed_slice_dims = [0], "
        "start_index_map = [0], index_vector_dim = {}>, slice_sizes = array<i64: 1, 2>}}> : "
        "(tensor<3x2xi32>, tensor<3xi64>) -> tensor<3x2xi32>\n  return\n}}",
        offset_dim, index_vector_dim);
  };
  const std::string_view huge = "99999999999999999999";
  expect_parse_error(gather(huge, "1"), 2, 90, "integer 99999999999999999999 is out of range");
  expect_parse_error(gather("1", huge), 2, 164, "integer 99999999999999999999 is out of range");
}

TEST(ParserErrors, MalformedHexFloatsAreParseErrors) {
  expect_parse_error(
      "func.func @main() {\n  %0 = stablehlo.constant dense<0x12345678123456781> : tensor<f32>\n  return\n}",
      2, 33, "too wide for f32");
  expect_parse_error("func.func @main() {\n  %0 = stablehlo.constant dense<0x> : tensor<f64>\n  return\n}", 2,
                     33, "hex value 0x is malformed");
}

// Found by mutating the conformance files: an elementwise op whose result is not named.
TEST(ParserErrors, ElementwiseOpWithoutAResultName) {
  expect_parse_error(
      "func.func @main() {\n  %0 = stablehlo.constant dense<1.0> : tensor<3xf32>\n  stablehlo.add %0, %0 : "
      "tensor<3xf32>\n  return\n}",
      3, 3, "stablehlo.add gives one result but 0 are named");
}

TEST(ParserErrors, BadResultNumberAfterHash) {
  expect_parse_error(
      "func.func @main(%a: tensor<f32>) {\n  check.expect_eq %a#x, %a : tensor<f32>\n  return\n}", 2, 19,
      "no valid result number");
}

TEST(ParserErrors, HugeConstantsAreRefusedNotAllocated) {
  // 40 GB as a splat: refused by the constant budget before any allocation.
  expect_parse_error(
      "func.func @main() {\n  %0 = stablehlo.constant dense<0.0> : tensor<100000x100000xf32>\n  return\n}", 2,
      27, "max_constant_bytes");
  // Small constants add up against a small budget.
  const std::string two =
      "func.func @main() {\n  %0 = stablehlo.constant dense<1> : tensor<8xi64>\n"
      "  %1 = stablehlo.constant dense<2> : tensor<8xi64>\n  return\n}";
  EXPECT_NO_THROW((void)sh::parse(two, "t.mlir", 1, {.max_constant_bytes = 128}));
  EXPECT_THROW((void)sh::parse(two, "t.mlir", 1, {.max_constant_bytes = 100}), sh::ParseError);
}

}  // namespace
