#include "rules.hpp"

#include "cppgen/code.hpp"
#include "engine_rules.hpp"
#include "ir/op.hpp"
#include "shapes.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <stdexcept>

namespace tlaloc_grad {

namespace {

using RuleTable = std::map<std::string, Rule, std::less<>>;

// The call as the user wrote it: `tl::<rule name>(operands...)`.
std::string spell_call(const Rule& r, const Names& n) {
  std::vector<code::Expr> args = code::texts(n.args);
  for (const std::size_t k : r.op->public_call().by_shape)
    args.at(k) = code::Expr::member(args.at(k), ".shape()");
  // A function that takes the tensors as one list.
  if (r.op->public_call().list) {
    const auto tensors = std::ptrdiff_t(std::count(n.tensor.begin(), n.tensor.end(), true));
    const code::Expr list = code::Expr::braced({args.begin(), args.begin() + tensors});
    args.erase(args.begin(), args.begin() + tensors);
    args.insert(args.begin(), list);
  }
  return code::Expr::call(n.space + r.name, std::move(args)).str();
}

// `x.fn(args...)`: a method of the first operand.
std::string spell_method(const Rule& r, const Names& n) {
  const std::vector<code::Expr> args = code::texts({n.args.begin() + 1, n.args.end()});
  return code::Expr::member(code::Expr::text(n.args[0]), "." + code::Expr::call(r.name, args).str()).str();
}

// `a + b` or `-a`: the op's C++ operator.
std::string spell_operator(const Rule& r, const Names& n) {
  const std::string& symbol = r.op->public_call().symbol;
  if (n.args.size() == 1) return code::Expr::prefix(symbol, code::Expr::text(n.args[0])).str();
  return code::Expr::binary(symbol, code::Expr::text(n.args[0]), code::Expr::text(n.args[1])).str();
}

// An op whose result does not move with its operands (floor, zeros_like), or is held
// constant by derivatives (stop_gradient).
bool constant(const tlaloc::detail::OpDef& def) {
  return def.has_no_derivative() || def.is_constant_to_derivatives();
}

RuleTable make_rules() {
  RuleTable t;
  const auto add = [&t](Rule r) { t.emplace(r.name, std::move(r)); };
  // Every public function or operator that records one registry op alone, and has a
  // derivative; an operator's rule goes by its op's name.
  for (const tlaloc::detail::OpDef* def : tlaloc::detail::all_ops()) {
    // A constant op needs no rule; one without rules (nextafter) is refused by name,
    // and so is a function of several results (top_k), whose std::vector the tool does
    // not follow.
    if (constant(*def) || !def->jvp_rule() || !def->vjp_rule()) continue;
    if (def->arity() >= 0 && def->results_for(std::size_t(def->arity()), {}) != 1) continue;
    const tlaloc::detail::OpDef::PublicCall& pc = def->public_call();
    for (const std::string& fn : pc.names) {
      Rule r{fn, pc.method ? spell_method : spell_call};
      r.op = def;
      add(std::move(r));
    }
    if (pc.symbol.empty()) continue;
    Rule r{def->name(), spell_operator};
    r.op = def;
    t.insert_or_assign(r.name, std::move(r));
  }
  return t;
}

const RuleTable& rules() {
  static const RuleTable table = make_rules();
  return table;
}

}  // namespace

bool engine_elementwise(const Rule& r) { return r.op != nullptr && r.op->is_elementwise(); }

const Rule* find_rule(std::string_view name) {
  const auto it = rules().find(name);
  return it == rules().end() ? nullptr : &it->second;
}

const Rule* find_operator(std::string_view symbol, std::size_t operands) {
  for (const auto& [name, r] : rules())
    if (r.op != nullptr && r.op->public_call().symbol == symbol && r.op->arity() == int(operands)) return &r;
  return nullptr;
}

std::vector<std::string> rule_names() {
  std::vector<std::string> names;
  for (const auto& [name, rule] : rules()) names.push_back(name);
  return names;
}

bool moves_with(std::string_view fn, const std::vector<Arg>& args, std::size_t i) {
  const Rule* r = find_rule(fn);
  if (r == nullptr || r->op == nullptr) return true;
  // The op's own forward rule, given operand i's tangent alone, tells; the answer
  // depends on the arguments as written (the operand a share is of), not on names.
  Names n;
  std::string key(fn);
  for (const Arg& a : args) {
    n.args.push_back(a.is_tensor() ? "x" + std::to_string(n.args.size()) : a.text);
    n.tensor.push_back(a.is_tensor());
    key += '\0' + n.args.back();
  }
  key += '\0' + std::to_string(i);
  static std::map<std::string, bool> known;
  if (const auto it = known.find(key); it != known.end()) return it->second;
  n.y = "y";
  std::vector<std::string> t(args.size());
  t.at(i) = "t";
  bool moves = true;
  try {
    moves = !engine_tangent(*r, n, t).empty();
  } catch (const std::exception&) {
    // A rule that cannot run on these arguments at build time: the operand counts as
    // moving, and the rule's own refusal comes where the tangent is written.
  }
  return known[key] = moves;
}

bool zero_derivative(std::string_view name) {
  const tlaloc::detail::OpDef* def = tlaloc::detail::find_called_as(name);
  return def != nullptr && constant(*def);
}

bool may_pass_on(const Node& s) {
  const Rule* r = find_rule(s.fn);
  if (r == nullptr || r->op == nullptr) return false;
  const tlaloc::detail::OpDef::PublicCall& pc = r->op->public_call();
  if (!pc.passes_on || pc.changes == nullptr) return pc.passes_on;
  // The attributes as written may show that it changes its operand (OpDef::PublicCall).
  std::vector<tlaloc::detail::AttrValue> written;
  for (const Arg& a : s.args)
    if (!a.is_tensor()) written.emplace_back(tlaloc::detail::Written{a.text});
  try {
    return !pc.changes(called_attributes(*r->op, written));
  } catch (const std::invalid_argument&) {
    return true;  // more arguments than it takes: refused where it is recorded
  }
}

}  // namespace tlaloc_grad
