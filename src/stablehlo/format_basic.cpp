// Pretty formats shared by many ops: elementwise, keyword attributes, constants,
// calls, compare and select (the forms JAX prints).
#include <fmt/format.h>

#include "stablehlo/syntax.hpp"

namespace tlaloc::stablehlo {
namespace {

using detail::Attrs;
using ir::Op;
using Kind = StableHloAttr::Kind;

// `name %a, %b : type` (attributes, if any, in a trailing dictionary).
const Format elementwise(
    "elementwise",
    [](OpPrinter& p, const Op& op, const StableHloSpelling& s, std::string& out) {
      out += s.name + " " + p.uses(op.operands) + " : " + p.trailing_type(op);
    },
    [](OpParser& p, ParsedOp& op) {
      op.operands = p.operand_list();
      p.trailing_type(op);
    });

// After the operands of a form whose short type is its own: reads `: (ins) -> outs` and
// returns true, or eats the ':' of the short type and returns false.
bool function_type_follows(OpParser& p, ParsedOp& op) {
  Cursor& c = p.cursor();
  const std::size_t save = c.pos();
  c.expect(":");
  if (c.peek() != '(') return false;
  c.seek(save);
  p.trailing_type(op);
  return true;
}

// `stablehlo.optimization_barrier %a, %b : tensor<f32>, tensor<2xi32>`: each result
// has its operand's type, listed once.
const Format type_list(
    "type_list",
    [](OpPrinter& p, const Op& op, const StableHloSpelling& s, std::string& out) {
      out += s.name + " " + p.uses(op.operands) + " : " + p.types(op.operands);
    },
    [](OpParser& p, ParsedOp& op) {
      Cursor& c = p.cursor();
      op.operands = p.operand_list();
      if (function_type_follows(p, op)) return;
      const std::size_t at = c.pos();
      std::vector<TensorType> types{parse_type(c)};
      while (c.eat(",")) types.push_back(parse_type(c));
      if (types.size() != op.operands.size())
        c.fail_at(at, fmt::format("{} has {} operands but lists {} types", op.spelling->name,
                                  op.operands.size(), types.size()));
      for (std::size_t i = 0; i < types.size(); ++i)
        if (types[i] != p.type_of(op.operands[i]))
          c.fail_at(at, fmt::format("operand {} of {} is {} but the type says {}", i, op.spelling->name,
                                    type_text(p.type_of(op.operands[i])), type_text(types[i])));
      op.result_types = std::move(types);
    });

// `stablehlo.complex %re, %im : tensor<2xcomplex<f64>>`: the one type is the result's
// (the operands' are its parts'), or a function type.
const Format complex(
    "complex",
    [](OpPrinter& p, const Op& op, const StableHloSpelling& s, std::string& out) {
      out += s.name + " " + p.uses(op.operands) + " : " + p.type(op.results[0]);
    },
    [](OpParser& p, ParsedOp& op) {
      Cursor& c = p.cursor();
      op.operands = p.operand_list();
      if (op.operands.size() != 2) c.fail("stablehlo.complex takes 2 operands");
      if (function_type_follows(p, op)) return;
      const std::size_t at = c.pos();
      const TensorType t = parse_type(c);
      const TensorType part{real_dtype(t.dtype), t.shape};
      if (!is_complex(t.dtype) || p.type_of(op.operands[0]) != part || p.type_of(op.operands[1]) != part)
        c.fail_at(at, fmt::format("the operands of stablehlo.complex ({}, {}) are not the parts of {}",
                                  type_text(p.type_of(op.operands[0])), type_text(p.type_of(op.operands[1])),
                                  type_text(t)));
      op.result_types.assign(1, t);
    });

// An attribute's value as the pretty forms write it: [1, 2] for arrays.
std::string pretty_value(const StableHloAttr& a, const Attrs& attrs) {
  if (a.kind == Kind::i64) return std::to_string(attrs.get<std::int64_t>(a.key));
  // `algorithm =  DEFAULT`: MLIR prints a space before an enum's word, as JAX shows.
  if (a.kind == Kind::enum_value) return " " + attrs.get<std::string>(a.key);
  if (a.kind == Kind::i64_array || a.kind == Kind::i64_elements)
    return fmt::format("[{}]", fmt::join(attrs.get<std::vector<std::int64_t>>(a.key), ", "));
  return attr_text(a, attrs);
}

void decode_pretty(OpParser& p, ParsedOp& op, const StableHloAttr& a) {
  Cursor& c = p.cursor();
  if (a.kind == Kind::i64) {  // `dim = 0 : (t) -> t`: the ':' starts the op's type, not the integer's
    c.skip_space();
    op.attrs.set(a.key, c.integer());
    return;
  }
  if (a.kind == Kind::enum_value && c.peek() != '#') {  // the bare word, as the pretty forms write it
    op.attrs.set(a.key, c.identifier());
    return;
  }
  AttrNode n = parse_attr(c);
  if (n.kind == AttrNode::Kind::array && a.kind == Kind::i64_array) {
    n.kind = AttrNode::Kind::array;
  }
  decode_attr(a, n, op.attrs, c);
}

// `name %a, kw = value, kw = value : type` (broadcast_in_dim, transpose, iota, ...).
const Format keywords(
    "keywords",
    [](OpPrinter& p, const Op& op, const StableHloSpelling& s, std::string& out) {
      out += s.name + " " + p.uses(op.operands);
      bool first = op.operands.empty();
      for (const StableHloAttr& a : s.attrs) {
        if (implied(a) || !attr_present(a, op.attrs)) continue;
        out += fmt::format("{}{} = {}", first ? "" : ", ", a.pretty_name.empty() ? a.name : a.pretty_name,
                           pretty_value(a, op.attrs));
        first = false;
      }
      if (first) out.pop_back();  // nothing after the name: `stablehlo.replica_id : tensor<ui32>`
      // Several results (rng_bit_generator) always take a function type, as JAX prints.
      out += " : " + (op.results.size() > 1 ? p.functional_type(op) : p.trailing_type(op));
    },
    [](OpParser& p, ParsedOp& op) {
      Cursor& c = p.cursor();
      op.operands = p.operand_list();
      bool first = op.operands.empty();
      while (first ? c.peek() != ':' && c.peek() != '{' : c.eat(",")) {
        first = false;
        c.skip_space();
        const std::size_t at = c.pos();
        const std::string kw = c.identifier();
        c.expect("=");
        const StableHloAttr* found = nullptr;
        for (const StableHloAttr& a : op.spelling->attrs)
          if ((a.pretty_name.empty() ? a.name : a.pretty_name) == kw) found = &a;
        if (found == nullptr) c.fail_at(at, fmt::format("{} has no keyword '{}'", op.spelling->name, kw));
        decode_pretty(p, op, *found);
      }
      // Attributes without a keyword may follow in a dictionary (MLIR prints
      // dynamic_broadcast_in_dim's known_expanding_dimensions so).
      if (c.peek() == '{')
        for (const auto& [k, n] : parse_attr_dict(c)) {
          const StableHloAttr* found = nullptr;
          for (const StableHloAttr& a : op.spelling->attrs)
            if (a.name == k && !implied(a)) found = &a;
          if (found == nullptr) c.fail(fmt::format("{} has no attribute '{}'", op.spelling->name, k));
          decode_attr(*found, n, op.attrs, c);
        }
      for (const StableHloAttr& a : op.spelling->attrs)
        if (!a.is_optional && !implied(a) && !attr_present(a, op.attrs))
          c.fail(fmt::format("{} needs '{}'", op.spelling->name,
                             a.pretty_name.empty() ? a.name : a.pretty_name));
      p.trailing_type(op);
    });

// `stablehlo.constant dense<...> : tensor<...>`
const Format constant(
    "constant",
    [](OpPrinter&, const Op& op, const StableHloSpelling& s, std::string& out) {
      out += s.name + " " + attr_text(s.attrs.at(0), op.attrs);  // the value, with its type
    },
    [](OpParser& p, ParsedOp& op) {
      Cursor& c = p.cursor();
      if (c.peek() == '{') parse_attr_dict(c);  // JAX may attach attributes
      const Tensor v = parse_dense_with_type(c);
      op.result_types.assign(1, {v.dtype(), v.shape()});
      op.attrs.set("value", v);
    });

// `call @f(%a, %b) : (t, t) -> t`
const Format call(
    "call",
    [](OpPrinter& p, const Op& op, const StableHloSpelling&, std::string& out) {
      out += fmt::format("call @{}({}) : {}", op.attrs.get<std::string>("callee"), p.uses(op.operands),
                         p.functional_type(op));
    },
    [](OpParser& p, ParsedOp& op) {
      Cursor& c = p.cursor();
      op.attrs.set("callee", c.symbol_name());
      c.expect("(");
      op.operands = p.operand_list();
      c.expect(")");
      if (c.peek() == '{') parse_attr_dict(c);
      c.expect(":");
      const std::size_t at = c.pos();
      auto [in, out] = p.functional_type();
      for (std::size_t i = 0; i < in.size() && i < op.operands.size(); ++i)
        if (in[i] != p.type_of(op.operands[i]))
          c.fail_at(at, fmt::format("argument {} of the call has another type", i));
      if (in.size() != op.operands.size()) c.fail_at(at, "the call's type does not match its arguments");
      op.result_types = std::move(out);
    });

// `stablehlo.compare  GT, %a, %b,  FLOAT : (t, t) -> t`
const Format compare(
    "compare",
    [](OpPrinter& p, const Op& op, const StableHloSpelling& s, std::string& out) {
      out += fmt::format("{}  {}, {}", s.name, op.attrs.get<std::string>("comparison_direction"),
                         p.uses(op.operands));
      if (op.attrs.has("compare_type")) out += ",  " + op.attrs.get<std::string>("compare_type");
      out += " : " + p.functional_type(op);
    },
    [](OpParser& p, ParsedOp& op) {
      Cursor& c = p.cursor();
      op.attrs.set("comparison_direction", c.identifier());
      c.expect(",");
      op.operands.push_back(p.operand());
      c.expect(",");
      op.operands.push_back(p.operand());
      if (c.eat(",")) op.attrs.set("compare_type", c.identifier());
      p.trailing_type(op);
      if (op.result_types.size() == 1 && op.result_types[0].dtype != DType::boolean)
        c.fail("stablehlo.compare gives i1 results; write its type as (t, t) -> tensor<...xi1>");
    });

// `stablehlo.reduce_precision %x, format = e5m10 : tensor<6xf64>`: the exponent and
// mantissa bits in one word.
const Format reduce_precision(
    "reduce_precision",
    [](OpPrinter& p, const Op& op, const StableHloSpelling& s, std::string& out) {
      out += fmt::format("{} {}, format = e{}m{} : {}", s.name, p.uses(op.operands),
                         op.attrs.get<std::int64_t>("exponent_bits"),
                         op.attrs.get<std::int64_t>("mantissa_bits"), p.trailing_type(op));
    },
    [](OpParser& p, ParsedOp& op) {
      Cursor& c = p.cursor();
      op.operands.push_back(p.operand());
      c.expect(",");
      c.expect_word("format");
      c.expect("=");
      const std::size_t at = c.pos();
      const std::string word = c.identifier();
      const std::size_t m = word.find('m');
      const auto digits = [](std::string_view d) {
        return !d.empty() && d.size() <= 9 && d.find_first_not_of("0123456789") == std::string_view::npos;
      };
      if (word.size() < 4 || word[0] != 'e' || m == std::string::npos ||
          !digits(std::string_view(word).substr(1, m - 1)) || !digits(std::string_view(word).substr(m + 1)))
        c.fail_at(
            at, fmt::format("stablehlo.reduce_precision: format '{}' is not e<exponent bits>m<mantissa bits>",
                            word));
      op.attrs.set("exponent_bits", std::int64_t(std::stoll(word.substr(1, m - 1))));
      op.attrs.set("mantissa_bits", std::int64_t(std::stoll(word.substr(m + 1))));
      p.trailing_type(op);
    });

// `stablehlo.select %p, %a, %b : tensor<2xi1>, tensor<2xf32>` (or a function type).
const Format select(
    "select",
    [](OpPrinter& p, const Op& op, const StableHloSpelling& s, std::string& out) {
      const ir::Function& f = p.function();
      const bool short_form =
          f.type(op.operands[1]) == f.type(op.results[0]) && f.type(op.operands[2]) == f.type(op.results[0]);
      out += s.name + " " + p.uses(op.operands) + " : " +
             (short_form ? p.type(op.operands[0]) + ", " + p.type(op.results[0]) : p.functional_type(op));
    },
    [](OpParser& p, ParsedOp& op) {
      Cursor& c = p.cursor();
      op.operands = p.operand_list();
      if (op.operands.size() != 3) c.fail("stablehlo.select takes 3 operands");
      if (function_type_follows(p, op)) return;
      const std::size_t at = c.pos();
      const TensorType pred = parse_type(c);
      c.expect(",");
      const TensorType t = parse_type(c);
      if (pred != p.type_of(op.operands[0]) || t != p.type_of(op.operands[1]) ||
          t != p.type_of(op.operands[2]))
        c.fail_at(at, "the operand types of stablehlo.select do not match its type");
      op.result_types.assign(1, t);
    });

}  // namespace
}  // namespace tlaloc::stablehlo
