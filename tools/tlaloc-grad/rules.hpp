// The build-time rule table: for each public function or operator that records one
// registry op alone (OpDef::called_as), how the call is spelled and the op it records.
// Its derivatives are that op's own rules, run by the AD engine at build time on
// values of unknown type (engine_rules.cpp, engine_sweep.cpp), so a build-time
// gradient gives the traced gradient's bits (tests/grad_tool).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "program.hpp"

namespace tlaloc::detail {
class OpDef;
}

namespace tlaloc_grad {

// The names a rule writes with: the operands as spelled in the generated function
// (a tensor's variable, or a scalar's C++ text), which of them are tensors, the
// result, and the namespace of the function called.
struct Names {
  std::vector<std::string> args;
  std::vector<bool> tensor;
  std::string y;
  std::string space = "tl::";
};

struct Rule {
  std::string name;
  // The call.
  std::string (*spell)(const Rule& r, const Names& n) = nullptr;
  // The registry op the function records alone, whose own rules give its shares and
  // tangent; its arguments after the tensors are its attributes (but an elementwise
  // op's: scalar operands).
  const tlaloc::detail::OpDef* op = nullptr;
};

// Whether r's function records an elementwise registry op, whose rules the engine runs
// on its operands as written, a scalar beside a tensor taking its dtype
// (engine_rules.cpp).
bool engine_elementwise(const Rule& r);

// The rule for a public function (`tanh`, `sum`), or for an operator under its op's
// name (`add` for `+`), or null.
const Rule* find_rule(std::string_view name);

// The rule of the C++ operator `symbol` (`+`, `-`) with that many operands, or null
// (OpDef::PublicCall::symbol).
const Rule* find_operator(std::string_view symbol, std::size_t operands);

// The names find_rule knows, in order (`tlaloc-grad --list-rules`).
std::vector<std::string> rule_names();

// Whether fn's result moves with its operand i, of a call with arguments `args`: not
// where fn reads only that tensor's shape and dtype (tl::sum_to_shape_of(g, x), or the
// operand whose share tl::derivatives::matmul_backward(g, a, b, 0) gives). For a
// function that records one op, the op's own forward rule says so; such an operand
// leaves the result inactive and without a tangent.
bool moves_with(std::string_view fn, const std::vector<Arg>& args, std::size_t i);

// Whether the public function of op node s may return its tensor argument itself,
// where it would not change it (tl::reshape to its own shape, an astype to its own
// dtype, tl::transpose by the identity, a whole slice, a pad of no widths, ...): the
// engine sees no op there. For a function that records one op, the op says it
// (OpDef::PublicCall::passes_on).
bool may_pass_on(const Node& s);

// Whether the public function `name` records one op alone whose result does not
// change with its operands' values (zeros_like, floor) or is held constant by
// derivatives (stop_gradient): its derivative is zero (OpDef::no_derivative). Other
// functions say so in their declaration (no_derivative in lowerer.hpp).
bool zero_derivative(std::string_view name);

}  // namespace tlaloc_grad
