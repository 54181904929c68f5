// Pretty forms of dot_general and convolution, as JAX prints them:
//   stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1],
//       precision = [DEFAULT, DEFAULT] : (t, t) -> t
//   stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
//       window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]}
//       {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (t, t) -> t
#include <fmt/format.h>

#include "stablehlo/struct_attrs.hpp"
#include "stablehlo/syntax.hpp"

namespace tlaloc::stablehlo {
namespace {

using detail::Attrs;
using ir::Op;
using Ints = std::vector<std::int64_t>;
using Kind = StableHloAttr::Kind;

constexpr std::string_view kAlgorithmPrefix = "#stablehlo.dot_algorithm";

std::string list(const Ints& v) { return fmt::format("[{}]", fmt::join(v, ", ")); }

Ints int_list(Cursor& c) {
  Ints v;
  c.expect("[");
  if (c.peek() != ']') {
    do v.push_back(c.integer());
    while (c.eat(","));
  }
  c.expect("]");
  return v;
}

std::vector<std::string> word_list(Cursor& c) {
  std::vector<std::string> v;
  c.expect("[");
  if (c.peek() != ']') {
    do v.push_back(c.identifier());
    while (c.eat(","));
  }
  c.expect("]");
  return v;
}

const StableHloAttr* find_attr(const StableHloSpelling& s, std::string_view name) {
  for (const StableHloAttr& a : s.attrs)
    if (a.name == name) return &a;
  return nullptr;
}

// `{name = value, ...}`: each entry decoded as the spelling declares it.
void decode_dict(OpParser& p, ParsedOp& op) {
  Cursor& c = p.cursor();
  for (const auto& [name, node] : parse_attr_dict(c)) {
    const StableHloAttr* a = find_attr(*op.spelling, name);
    if (a == nullptr) c.fail_at(node.pos, fmt::format("{} has no attribute '{}'", op.spelling->name, name));
    decode_attr(*a, node, op.attrs, c);
  }
}

void print_dot(OpPrinter& p, const Op& op, const StableHloSpelling& s, std::string& out) {
  const Attrs& a = op.attrs;
  out += s.name + " " + p.uses(op.operands);
  const Ints& lb = a.get<Ints>("lhs_batching_dimensions");
  if (!lb.empty())
    out += fmt::format(", batching_dims = {} x {}", list(lb), list(a.get<Ints>("rhs_batching_dimensions")));
  out += fmt::format(", contracting_dims = {} x {}", list(a.get<Ints>("lhs_contracting_dimensions")),
                     list(a.get<Ints>("rhs_contracting_dimensions")));
  if (a.has("precision_config"))
    out += fmt::format(", precision = [{}]",
                       fmt::join(a.get<std::vector<std::string>>("precision_config"), ", "));
  if (const StableHloAttr* alg = find_attr(s, "algorithm"); alg != nullptr && attr_present(*alg, a))
    out += ", algorithm = " + attr_text(*alg, a).substr(kAlgorithmPrefix.size());
  out += " : " + p.functional_type(op);
}

// `algorithm = <fields>`: the body of #stablehlo.dot_algorithm<fields>, decoded in place.
void parse_algorithm(OpParser& p, ParsedOp& op) {
  Cursor& c = p.cursor();
  c.expect("<");
  const std::size_t start = c.pos();
  const std::size_t end = c.text().find('>', start);
  if (end == std::string_view::npos) c.fail_at(start, "unterminated algorithm = <...>");
  AttrNode n;
  n.kind = AttrNode::Kind::dialect;
  n.text = "dot_algorithm";
  n.word = std::string(c.text().substr(start, end - start));
  n.pos = start;
  c.seek(end + 1);
  decode_attr(*find_attr(*op.spelling, "algorithm"), n, op.attrs, c);
}

void parse_dot(OpParser& p, ParsedOp& op) {
  Cursor& c = p.cursor();
  op.operands.push_back(p.operand());
  c.expect(",");
  op.operands.push_back(p.operand());
  for (const char* f : {"lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions",
                        "rhs_contracting_dimensions"})
    op.attrs.set(f, Ints{});
  while (c.eat(",")) {
    const std::size_t at = c.pos();
    const std::string kw = c.identifier();
    c.expect("=");
    if (kw == "batching_dims" || kw == "contracting_dims") {
      const std::string side = kw == "batching_dims" ? "batching" : "contracting";
      op.attrs.set(fmt::format("lhs_{}_dimensions", side), int_list(c));
      c.expect_word("x");
      op.attrs.set(fmt::format("rhs_{}_dimensions", side), int_list(c));
    } else if (kw == "precision") {
      op.attrs.set("precision_config", word_list(c));
    } else if (kw == "algorithm") {
      parse_algorithm(p, op);
    } else {
      c.fail_at(at, fmt::format("stablehlo.dot_general has no keyword '{}'", kw));
    }
  }
  if (c.peek() == '{') decode_dict(p, op);
  p.trailing_type(op);
}

const Format dot_general("dot_general", print_dot, parse_dot);

// ---- convolution --------------------------------------------------------------------

// The window keywords and the attributes they stand for.
constexpr std::pair<const char*, const char*> kWindow[] = {{"stride", "window_strides"},
                                                           {"pad", "padding"},
                                                           {"lhs_dilate", "lhs_dilation"},
                                                           {"rhs_dilate", "rhs_dilation"},
                                                           {"reverse", "window_reversal"}};

std::string window_value(const char* attr, const Ints& v) {
  if (std::string_view(attr) == "padding") {
    std::string rows;
    for (std::size_t i = 0; i + 1 < v.size(); i += 2)
      rows += fmt::format("{}[{}, {}]", i ? ", " : "", v[i], v[i + 1]);
    return "[" + rows + "]";
  }
  if (std::string_view(attr) == "window_reversal") {
    std::vector<std::string> b;
    for (std::int64_t x : v) b.push_back(x ? "true" : "false");
    return fmt::format("[{}]", fmt::join(b, ", "));
  }
  return list(v);
}

void print_conv(OpPrinter& p, const Op& op, const StableHloSpelling& s, std::string& out) {
  const Attrs& a = op.attrs;
  out += fmt::format("{}({}) dim_numbers = {}", s.name, p.uses(op.operands), conv_layouts_text(a));
  std::string window;
  for (const auto& [kw, attr] : kWindow)
    if (a.has(attr))
      window +=
          fmt::format("{}{} = {}", window.empty() ? "" : ", ", kw, window_value(attr, a.get<Ints>(attr)));
  if (!window.empty()) out += ", window = {" + window + "}";
  std::string dict;
  for (const char* name : {"batch_group_count", "feature_group_count", "precision_config"}) {
    const StableHloAttr* attr = find_attr(s, name);
    if (attr != nullptr && attr_present(*attr, a))
      dict += fmt::format("{}{} = {}", dict.empty() ? "" : ", ", name, attr_text(*attr, a));
  }
  out += " {" + dict + "} : " + p.functional_type(op);
}

void parse_window(OpParser& p, ParsedOp& op) {
  Cursor& c = p.cursor();
  c.expect("{");
  if (c.eat("}")) return;
  do {
    const std::size_t at = c.pos();
    const std::string kw = c.identifier();
    c.expect("=");
    const char* attr = nullptr;
    for (const auto& [k, name] : kWindow)
      if (kw == k) attr = name;
    if (attr == nullptr) c.fail_at(at, fmt::format("stablehlo.convolution's window has no '{}'", kw));
    const AttrNode n = parse_attr(c);
    if (n.kind != AttrNode::Kind::array) c.fail_at(n.pos, fmt::format("window {} must be a list", kw));
    Ints v;
    for (const AttrNode& item : n.items) {
      if (std::string_view(attr) == "padding") {
        if (item.kind != AttrNode::Kind::array || item.items.size() != 2)
          c.fail_at(item.pos, "each pad entry is [low, high]");
        for (const AttrNode& x : item.items) {
          if (x.kind != AttrNode::Kind::integer) c.fail_at(x.pos, "a pad entry must be an integer");
          v.push_back(int_value(x, c));
        }
      } else if (item.kind == AttrNode::Kind::boolean) {
        v.push_back(item.text == "true");
      } else if (item.kind == AttrNode::Kind::integer) {
        v.push_back(int_value(item, c));
      } else {
        c.fail_at(item.pos, fmt::format("window {} must list integers", kw));
      }
    }
    op.attrs.set(attr, v);
  } while (c.eat(","));
  c.expect("}");
}

void parse_conv(OpParser& p, ParsedOp& op) {
  Cursor& c = p.cursor();
  c.expect("(");
  op.operands = p.operand_list();
  c.expect(")");
  c.expect_word("dim_numbers");
  c.expect("=");
  parse_conv_layouts(c, op.attrs);
  if (c.eat(",")) {
    c.expect_word("window");
    c.expect("=");
    parse_window(p, op);
  }
  if (c.peek() == '{') decode_dict(p, op);
  p.trailing_type(op);
}

const Format convolution("convolution", print_conv, parse_conv);

}  // namespace
}  // namespace tlaloc::stablehlo
