// The pretty form of stablehlo.composite, as JAX prints it:
//   stablehlo.composite "my.op" %a, %b {composite_attributes = {k = 1 : i64},
//       decomposition = @my.op.impl, version = 1 : i32} : (t, t) -> t
// (on one line). The name comes first; the other attributes go in the dictionary.
#include <fmt/format.h>

#include "stablehlo/syntax.hpp"

namespace tlaloc::stablehlo {
namespace {

using ir::Op;

const Format composite(
    "composite",
    [](OpPrinter& p, const Op& op, const StableHloSpelling& s, std::string& out) {
      const StableHloAttr name("name", StableHloAttr::Kind::string);
      out += fmt::format("{} {} {}", s.name, attr_text(name, op.attrs), p.uses(op.operands));
      if (!op.operands.empty()) out += ' ';
      std::string dict;
      for (const StableHloAttr& a : s.attrs) {
        if (a.name == "name" || !attr_present(a, op.attrs)) continue;
        dict += fmt::format("{}{} = {}", dict.empty() ? "" : ", ", a.name, attr_text(a, op.attrs));
      }
      out += "{" + dict + "} : " + p.functional_type(op);
    },
    [](OpParser& p, ParsedOp& op) {
      Cursor& c = p.cursor();
      c.skip_space();
      op.attrs.set("name", c.string_literal());
      op.operands = p.operand_list();
      for (const auto& [key, node] : parse_attr_dict(c)) {
        const StableHloAttr* found = nullptr;
        for (const StableHloAttr& a : op.spelling->attrs)
          if (a.name == key && key != "name") found = &a;
        if (found == nullptr)
          c.fail_at(node.pos, fmt::format("stablehlo.composite has no attribute '{}'", key));
        decode_attr(*found, node, op.attrs, c);
      }
      if (!op.attrs.has("decomposition")) c.fail("stablehlo.composite needs 'decomposition = @function'");
      c.expect(":");
      const std::size_t at = c.pos();
      auto [in, out] = p.functional_type();
      if (in.size() != op.operands.size()) c.fail_at(at, "the composite's type does not match its operands");
      for (std::size_t i = 0; i < in.size(); ++i)
        if (in[i] != p.type_of(op.operands[i]))
          c.fail_at(at, fmt::format("operand {} of the composite has another type", i));
      op.result_types = std::move(out);
    });

}  // namespace
}  // namespace tlaloc::stablehlo
