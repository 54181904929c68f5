// Pretty formats of ops with regions whose headers name the region arguments:
// while (`cond { } do { }` over shared iterArgs) and reduce (`applies op` or a
// `reducer(...)` region), as JAX prints them.
#include <fmt/format.h>

#include "stablehlo/syntax.hpp"

namespace tlaloc::stablehlo {
namespace {

using ir::Op;
using ir::Region;
using ir::ValueId;

std::string pad(const OpPrinter& p) { return std::string(std::size_t(p.indent()), ' '); }

// `%0:2 = stablehlo.while(%iterArg = %a, %iterArg_0 = %b) : t1, t2 cond {..} do {..}`
void print_while(OpPrinter& p, const Op& op, const StableHloSpelling& s, std::string& out) {
  const Region& cond = op.regions.at(0);
  const Region& body = op.regions.at(1);
  p.name_region_args(cond);
  p.share_arg_names(cond, body);
  out += s.name;
  out += "(";
  for (std::size_t i = 0; i < op.operands.size(); ++i)
    out += fmt::format("{}{} = {}", i ? ", " : "", p.use(cond.args.at(i)), p.use(op.operands[i]));
  out += fmt::format(") : {}\n{} cond ", p.types(op.operands), pad(p));
  p.region(cond, out, false);
  out += " do ";
  p.region(body, out, false);
}

void parse_while(OpParser& p, ParsedOp& op) {
  Cursor& c = p.cursor();
  std::vector<std::string> names;
  c.expect("(");
  if (!c.eat(")")) {
    do {
      names.push_back(p.declare_pending_name());
      c.expect("=");
      op.operands.push_back(p.operand());
    } while (c.eat(","));
    c.expect(")");
  }
  if (c.peek() == '{') parse_attr_dict(c);
  c.expect(":");
  const std::size_t at = c.pos();
  std::vector<std::pair<std::string, TensorType>> args;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i) c.expect(",");
    const TensorType t = parse_type(c);
    if (t != p.type_of(op.operands[i]))
      c.fail_at(at, fmt::format("operand {} of stablehlo.while has another type than declared", i));
    args.emplace_back(names[i], t);
    op.result_types.push_back(t);
  }
  c.expect_word("cond");
  op.regions.push_back(p.region(args));
  c.expect_word("do");
  op.regions.push_back(p.region(args));
}

const Format while_format("while", print_while, parse_while);

// The spelling of the op a reduce region applies, when the region is only that op
// on (accumulator, element) of a single input.
const StableHloSpelling* applied_op(const Op& op) {
  if (op.regions.size() != 1 || op.operands.size() != 2) return nullptr;
  const Region& r = op.regions[0];
  if (ir::binary_body(r).empty() || r.ops[0].operands[0] != r.args[0]) return nullptr;
  const StableHloSpelling* s = r.ops[0].def->stablehlo();
  return s != nullptr && s->format == "elementwise" && r.ops[0].attrs.items().empty() ? s : nullptr;
}

// `stablehlo.reduce(%x init: %i), (%y init: %j) applies stablehlo.add across dimensions = [1] : ..`
// or the same with `reducer(%acc0: t, %x0: t) (%acc1: t, %x1: t) { .. }` after the type.
void print_reduce(OpPrinter& p, const Op& op, const StableHloSpelling& s, std::string& out) {
  const std::size_t n = op.operands.size() / 2;
  out += s.name;
  for (std::size_t i = 0; i < n; ++i)
    out += fmt::format("{}({} init: {})", i ? ", " : "", p.use(op.operands[i]), p.use(op.operands[n + i]));
  const StableHloSpelling* applied = applied_op(op);
  if (applied != nullptr) out += fmt::format(" applies {}", applied->name);
  out += fmt::format(" across dimensions = [{}] : {}",
                     fmt::join(op.attrs.get<std::vector<std::int64_t>>("dimensions"), ", "),
                     p.functional_type(op));
  if (applied != nullptr) return;
  const Region& r = op.regions.at(0);
  p.name_region_args(r);
  out += fmt::format("\n{} reducer", pad(p));
  for (std::size_t i = 0; i < n && 2 * n == r.args.size(); ++i)
    out += fmt::format("({}: {}, {}: {}) ", p.use(r.args[i]), p.type(r.args[i]), p.use(r.args[n + i]),
                       p.type(r.args[n + i]));
  p.region(r, out, false);
}

// The region `applies NAME` stands for: NAME(acc, element) returned.
Region applied_region(OpParser& p, const std::string& name, const TensorType& scalar, std::size_t at) {
  const detail::OpDef* def = op_for_spelling(name);
  if (def == nullptr) p.cursor().fail_at(at, fmt::format("unknown op '{}'", name));
  Region r;
  r.args = {p.new_value(scalar), p.new_value(scalar)};
  ir::Op o{def, {r.args[0], r.args[1]}, {p.new_value(scalar)}, {}, {}, {}};
  r.results = o.results;
  r.ops.push_back(std::move(o));
  return r;
}

void parse_reduce(OpParser& p, ParsedOp& op) {
  Cursor& c = p.cursor();
  std::vector<ValueId> inputs, inits;
  do {
    c.expect("(");
    inputs.push_back(p.operand());
    c.expect_word("init");
    c.expect(":");
    inits.push_back(p.operand());
    c.expect(")");
  } while (c.eat(","));
  std::string applied;
  std::size_t applied_at = 0;
  if (c.eat_word("applies")) {
    c.skip_space();
    applied_at = c.pos();
    applied = c.identifier();
  }
  c.expect_word("across");
  c.expect_word("dimensions");
  c.expect("=");
  decode_attr(op.spelling->attrs.at(0), parse_attr(c), op.attrs, c);
  op.operands = inputs;
  op.operands.insert(op.operands.end(), inits.begin(), inits.end());
  p.trailing_type(op);
  std::vector<TensorType> scalars;
  for (ValueId v : inits) scalars.push_back(p.type_of(v));
  if (!applied.empty()) {
    if (inputs.size() != 1) c.fail_at(applied_at, "`applies` takes a single input");
    op.regions.push_back(applied_region(p, applied, scalars[0], applied_at));
    return;
  }
  c.expect_word("reducer");
  std::vector<std::pair<std::string, TensorType>> acc, elem;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    c.expect("(");
    acc.emplace_back(p.declare_pending_name(), TensorType{});
    c.expect(":");
    acc.back().second = parse_type(c);
    c.expect(",");
    elem.emplace_back(p.declare_pending_name(), TensorType{});
    c.expect(":");
    elem.back().second = parse_type(c);
    c.expect(")");
  }
  acc.insert(acc.end(), elem.begin(), elem.end());
  op.regions.push_back(p.region(acc));
}

const Format reduce_format("reduce", print_reduce, parse_reduce);

}  // namespace
}  // namespace tlaloc::stablehlo
