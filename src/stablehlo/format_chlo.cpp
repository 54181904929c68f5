// Pretty formats of chlo ops, as MLIR prints them for JAX:
//   %0 = chlo.lgamma %a : tensor<3xf32> -> tensor<3xf32>
//   %0 = chlo.zeta %x, %q : tensor<f32>, tensor<f32> -> tensor<f32>
//   %v, %i = chlo.top_k(%a, k = 2) : tensor<5x3xf32> -> (tensor<5x2xf32>, tensor<5x2xi32>)
// The operand types may also be given in parentheses, a function type.
#include <fmt/format.h>

#include "stablehlo/syntax.hpp"
#include "stablehlo/types.hpp"

namespace tlaloc::stablehlo {
namespace {

using detail::Attrs;
using ir::Op;

std::string result_text(OpPrinter& p, const Op& op) {
  if (op.results.size() == 1) return p.type(op.results[0]);
  return fmt::format("({})", p.types(op.results));
}

// `: t1, t2 -> r` or `: (t1, t2) -> r`, checked against the operands.
void arrow_types(OpParser& p, ParsedOp& op) {
  Cursor& c = p.cursor();
  c.expect(":");
  const std::size_t at = c.pos();
  std::vector<TensorType> in;
  if (c.peek() == '(') {
    in = parse_type_list(c);
  } else {
    do in.push_back(parse_type(c));
    while (c.eat(","));
  }
  c.expect("->");
  op.result_types = parse_type_list(c);
  if (in.size() != op.operands.size())
    c.fail_at(at, fmt::format("{} has {} operands but its type lists {}", op.spelling->name,
                              op.operands.size(), in.size()));
  for (std::size_t i = 0; i < in.size(); ++i)
    if (in[i] != p.type_of(op.operands[i]))
      c.fail_at(at, fmt::format("operand {} of {} is {} but the type says {}", i, op.spelling->name,
                                type_text(p.type_of(op.operands[i])), type_text(in[i])));
}

const Format elementwise(
    "chlo",
    [](OpPrinter& p, const Op& op, const StableHloSpelling& s, std::string& out) {
      out += s.name + " " + p.uses(op.operands) + " : " + p.types(op.operands) + " -> " + result_text(p, op);
    },
    [](OpParser& p, ParsedOp& op) {
      op.operands = p.operand_list();
      arrow_types(p, op);
    });

const StableHloAttr& attr_named(const StableHloSpelling& s, std::string_view name) {
  for (const StableHloAttr& a : s.attrs)
    if (a.name == name) return a;
  throw Error(fmt::format("{} has no attribute '{}'", s.name, name));
}

// `chlo.top_k(%a, k = 2) {largest = false} : t -> (t1, t2)`
const Format top_k(
    "top_k",
    [](OpPrinter& p, const Op& op, const StableHloSpelling& s, std::string& out) {
      out += fmt::format("{}({}, k = {})", s.name, p.use(op.operands.at(0)), op.attrs.get<std::int64_t>("k"));
      if (op.attrs.has("largest")) out += " {" + attr_entry(attr_named(s, "largest"), op.attrs) + "}";
      out += " : " + p.type(op.operands[0]) + " -> " + result_text(p, op);
    },
    [](OpParser& p, ParsedOp& op) {
      Cursor& c = p.cursor();
      c.expect("(");
      op.operands.push_back(p.operand());
      c.expect(",");
      c.skip_space();
      const std::size_t at = c.pos();
      if (c.identifier() != "k") c.fail_at(at, fmt::format("{} expects k = <integer>", op.spelling->name));
      c.expect("=");
      c.skip_space();
      op.attrs.set("k", c.integer());
      c.expect(")");
      if (c.peek() == '{')
        for (const auto& [name, node] : parse_attr_dict(c)) {
          if (name != "largest") c.fail(fmt::format("{} has no attribute '{}'", op.spelling->name, name));
          decode_attr(attr_named(*op.spelling, "largest"), node, op.attrs, c);
        }
      arrow_types(p, op);
    });

}  // namespace
}  // namespace tlaloc::stablehlo
