// Pretty forms of the check ops and of custom_call.
#include <fmt/format.h>

#include "ops/custom_call.hpp"
#include "stablehlo/syntax.hpp"

namespace tlaloc::stablehlo {
namespace {

using ir::Op;
using Kind = StableHloAttr::Kind;

// `check.expect_eq %a, %b : t`, `check.expect_eq_const %a, dense<..> : t`,
// `check.expect_close %a, %b, max_ulp_difference = 3 : t, t`.
const Format check(
    "check",
    [](OpPrinter& p, const Op& op, const StableHloSpelling& s, std::string& out) {
      out += s.name + " " + p.uses(op.operands);
      for (const StableHloAttr& a : s.attrs) {
        if (!attr_present(a, op.attrs)) continue;
        if (a.kind == Kind::elements)
          out += ", " + dense_text(op.attrs.get<Tensor>(a.key));
        else if (a.kind == Kind::i64)  // `iter = 1 : t`: the ':' starts the operands' types
          out += fmt::format(", {} = {}", a.name, op.attrs.get<std::int64_t>(a.key));
        else
          out += fmt::format(", {} = {}", a.name, attr_text(a, op.attrs));
      }
      out += " : " + p.types(op.operands);
    },
    [](OpParser& p, ParsedOp& op) {
      Cursor& c = p.cursor();
      op.operands.push_back(p.operand());
      std::size_t dense_at = 0;
      bool has_dense = false;
      while (c.eat(",")) {
        c.skip_space();
        if (c.peek_raw() == '%') {
          op.operands.push_back(p.operand());
        } else if (c.rest().rfind("dense", 0) == 0) {
          dense_at = c.pos();
          has_dense = true;
          c.expect_word("dense");
          c.expect("<");
          int depth = 1;  // skipped now, decoded once the type is known
          while (depth > 0 && !c.at_end()) {
            const char ch = c.peek_raw();
            c.seek(c.pos() + 1);
            depth += ch == '<' ? 1 : ch == '>' ? -1 : 0;
          }
        } else {
          const std::string key = c.identifier();
          c.expect("=");
          const AttrNode n = parse_attr(c);
          bool found = false;
          for (const StableHloAttr& a : op.spelling->attrs)
            if (a.name == key) found = true, decode_attr(a, n, op.attrs, c);
          if (!found) c.fail(fmt::format("{} has no attribute '{}'", op.spelling->name, key));
        }
      }
      // Attributes may also come as a dictionary, before the types or after them.
      const auto dictionary = [&] {
        if (c.peek() != '{') return;
        for (const auto& [k, n] : parse_attr_dict(c))
          for (const StableHloAttr& a : op.spelling->attrs)
            if (a.name == k) decode_attr(a, n, op.attrs, c);
      };
      dictionary();
      c.expect(":");
      c.skip_space();
      const std::size_t types_at = c.pos();
      std::vector<TensorType> types{parse_type(c)};
      while (c.eat(",")) types.push_back(parse_type(c));
      dictionary();
      for (std::size_t i = 0; i < op.operands.size(); ++i)
        if (p.type_of(op.operands[i]) != types[std::min(i, types.size() - 1)])
          c.fail_at(types_at,
                    fmt::format("operand {} of {} has another type than written", i, op.spelling->name));
      if (has_dense) {
        const std::size_t end = c.pos();
        c.seek(dense_at);
        c.expect_word("dense");
        op.attrs.set("value", parse_dense(c, types[0], dense_at));
        c.seek(end);
      }
    });

// `stablehlo.custom_call @target(%a, %b) {has_side_effect = true} : (t, t) -> ()`
const Format custom_call(
    "custom_call",
    [](OpPrinter& p, const Op& op, const StableHloSpelling& s, std::string& out) {
      out += fmt::format("{} @{}({})", s.name, op.attrs.get<std::string>("call_target_name"),
                         p.uses(op.operands));
      std::string attrs;
      for (const StableHloAttr& a : s.attrs) {
        if (a.name == "call_target_name" || !attr_present(a, op.attrs)) continue;
        attrs += fmt::format("{}{} = {}", attrs.empty() ? "" : ", ", a.name, attr_text(a, op.attrs));
      }
      // A kernel's attributes: backend_config as a dictionary (api_version 4).
      if (const std::string dict = prefixed_dict_text(op.attrs, detail::kBackendConfigPrefix); !dict.empty())
        attrs += fmt::format("{}backend_config = {}", attrs.empty() ? "" : ", ", dict);
      if (!attrs.empty()) out += " {" + attrs + "}";
      out += " : " + p.functional_type(op);
    },
    [](OpParser& p, ParsedOp& op) {
      Cursor& c = p.cursor();
      op.attrs.set("call_target_name", c.symbol_name());
      c.expect("(");
      op.operands = p.operand_list();
      c.expect(")");
      if (c.peek() == '{') {
        for (const auto& [k, n] : parse_attr_dict(c)) {
          if (k == "backend_config" && n.kind == AttrNode::Kind::dict) {
            decode_prefixed_dict(n, detail::kBackendConfigPrefix, op.attrs, c);
            continue;
          }
          bool known = k.find('.') != std::string::npos;
          for (const StableHloAttr& a : op.spelling->attrs)
            if (a.name == k) known = true, decode_attr(a, n, op.attrs, c);
          if (!known)
            c.fail_at(n.pos, fmt::format("stablehlo.custom_call: attribute '{}' is not supported", k));
        }
      }
      c.expect(":");
      auto [in, out] = p.functional_type();
      if (in.size() != op.operands.size()) c.fail("the custom_call's type does not match its operands");
      op.result_types = std::move(out);
    });

}  // namespace
}  // namespace tlaloc::stablehlo
