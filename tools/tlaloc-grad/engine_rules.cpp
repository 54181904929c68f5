// The engine's own derivative rules, run at build time. An op's rule (src/ops) is
// called on values whose types are known only at run time (src/ops/like.cpp): each
// public op it calls is recorded, and the recording is written back as one C++
// expression over the generated function's names. So the tool writes what the
// engine computes, op for op, from the rule itself rather than from a copy of it.
#include "engine_rules.hpp"

#include <fmt/format.h>

#include <map>
#include <optional>

#include "core/tensor_impl.hpp"
#include "ir/builder.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/rule.hpp"
#include "rules_text.hpp"

namespace tlaloc_grad {
namespace {

namespace tl = tlaloc;
namespace ir = tl::ir;
using tl::Tensor;
using tl::detail::OpDef;

// How tightly an expression binds, as C++ parses it: 0 for a name, a literal or a
// call; 3 for a prefix minus; then the binary operators' levels.
int level_of(std::string_view op) {
  static const std::map<std::string_view, int> levels{
      {"*", 5},  {"/", 5},   {"%", 5},   {"+", 6},  {"-", 6},  {"<", 9},  {"<=", 9},  {">", 9},
      {">=", 9}, {"==", 10}, {"!=", 10}, {"&", 11}, {"^", 12}, {"|", 13}, {"&&", 14}, {"||", 15}};
  const auto it = levels.find(op);
  return it == levels.end() ? -1 : it->second;
}

struct Expr {
  std::string text;
  int level = 0;
};

// An operand written where a tighter or equal level is needed (C++'s binary operators
// group left to right, and floating-point arithmetic is not associative).
std::string operand(const Expr& e, int level, bool right) {
  const bool wrap = e.level != 0 && (e.level > level || (right && e.level == level));
  return wrap ? "(" + e.text + ")" : e.text;
}

// A recorded op as its spelling (OpDef::cpp) sees it, with placeholder operands.
class Spelling final : public tl::detail::CppOp {
 public:
  Spelling(const ir::Function& f, const ir::Op& op) : f_(f), op_(op) {
    for (std::size_t i = 0; i < op.operands.size(); ++i) names_.push_back(placeholder(i));
  }
  static std::string placeholder(std::size_t i) { return fmt::format("\x01{}\x02", i); }
  std::size_t num_operands() const override { return op_.operands.size(); }
  const std::string& operand(std::size_t i) const override { return names_.at(i); }
  const tl::detail::TensorType& operand_type(std::size_t i) const override {
    return known(f_.type(op_.operands.at(i)));
  }
  std::size_t num_results() const override { return op_.results.size(); }
  const tl::detail::TensorType& result_type(std::size_t i) const override {
    return known(f_.type(op_.results.at(i)));
  }
  const tl::detail::Attrs& attrs() const override { return op_.attrs; }
  std::size_t num_regions() const override { return op_.regions.size(); }
  std::string lambda(std::size_t) override { return refuse_statements(); }
  const std::string& result(std::size_t) const override { refuse_statements(); }
  void line(const std::string&) override { refuse_statements(); }
  void open(const std::string&) override { refuse_statements(); }
  void close(const std::string&) override { refuse_statements(); }
  void reopen(const std::string&) override { refuse_statements(); }
  std::vector<std::string> region(std::size_t, const std::vector<std::string>&) override {
    refuse_statements();
  }
  std::string fresh(std::string_view) override { refuse_statements(); }

 private:
  // A spelling that reads a type cannot be written before run time.
  const tl::detail::TensorType& known(const tl::detail::TensorType& t) const {
    if (t.unknown)
      throw std::logic_error("the spelling of op '" + op_.name() + "' reads a type known only at run time");
    return t;
  }
  [[noreturn]] std::string refuse_statements() const {
    throw std::logic_error("a rule recorded op '" + op_.name() + "', whose spelling writes statements");
  }
  const ir::Function& f_;
  const ir::Op& op_;
  std::vector<std::string> names_;
};

// What is known at build time of a value's type: which of the call's shapes it has
// (0: rank 0) and which of its dtypes, each numbered from the names the rule was
// given, or unknown. sum_to_shape_of and broadcast_to_shape_of of a value already of
// the other's type return it, so they are written as the value.
struct Kind {
  std::optional<int> shape, dtype;
  bool known() const { return shape && dtype; }
  bool operator==(const Kind&) const = default;
};
// The kind of a tensor of type class c (the result's is 0), and of a rank-0 value of
// c's dtype.
Kind of_class(int c) { return {c + 1, c}; }
Kind scalar_of_class(int c) { return {0, c}; }

// A rule's recording, written back.
class Writer {
 public:
  Writer(const ir::Function& f, std::map<ir::ValueId, Expr> names, std::map<ir::ValueId, Kind> kinds,
         std::map<ir::ValueId, std::pair<std::string, ir::ValueId>> scalars, std::string y)
      : f_(f),
        names_(std::move(names)),
        kinds_(std::move(kinds)),
        scalars_(std::move(scalars)),
        y_(std::move(y)) {
    for (const ir::Op& op : f.body.ops) {
      for (ir::ValueId v : op.results) made_by_[v] = &op;
      if (op.results.size() == 1) kinds_[op.results[0]] = kind_of(op);
    }
  }

  Expr write(ir::ValueId v) {
    if (const auto it = names_.find(v); it != names_.end()) return it->second;
    if (const auto it = scalars_.find(v); it != scalars_.end())
      return {call("scalar_tensor", {it->second.first, y_ + ".dtype()"}), 0};
    const ir::Op& op = *made_by_.at(v);
    const std::string& name = op.name();
    if ((name == "sum_to_shape_of" || name == "broadcast_to_shape_of") &&
        same_as(op.operands[0], op.operands[1]))
      return write(op.operands[0]);
    if (name == "neg") return {"-" + operand(write(op.operands[0]), 3, true), 3};
    Spelling spelling(f_, op);
    const std::string spelled = op.def->cpp_spelling()(spelling);
    if (op.operands.size() == 2) {
      const std::string left = Spelling::placeholder(0), right = Spelling::placeholder(1);
      if (spelled.starts_with(left + " ") && spelled.ends_with(" " + right)) {
        const std::string sym =
            spelled.substr(left.size() + 1, spelled.size() - left.size() - right.size() - 2);
        const int level = level_of(sym);
        if (level > 0)
          return {operand(side(op, 0), level, false) + " " + sym + " " + operand(side(op, 1), level, true),
                  level};
      }
    }
    return {fill(spelled, op), 0};
  }

 private:
  // Operand k of op. A number was passed beside a tensor operand of the same call (the
  // public overloads taking a Scalar make it a weak_scalar like that operand): it is
  // written as the number, which the overload turns into the same rank-0 tensor. So is
  // the user's scalar beside a tensor of its partner's type.
  Expr side(const ir::Op& op, std::size_t k) {
    const ir::ValueId v = op.operands[k];
    if (const auto it = made_by_.find(v); it != made_by_.end() && it->second->name() == "weak_scalar")
      for (ir::ValueId other : op.operands)
        if (other != v && it->second->operands[0] == other) return literal(it->second->attrs);
    if (const auto it = scalars_.find(v); it != scalars_.end() && op.def->is_elementwise() &&
                                          op.operands.size() == 2 &&
                                          same_as(op.operands[1 - k], it->second.second))
      return {it->second.first, 0};
    return write(v);
  }
  static Expr literal(const tl::detail::Attrs& attrs) {
    for (const auto& [key, value] : attrs.items()) {
      if (key != "value") continue;
      std::string text;
      if (const auto* d = std::get_if<double>(&value)) text = tl::detail::cpp_double(*d);
      if (const auto* i = std::get_if<std::int64_t>(&value)) text = std::to_string(*i);
      if (const auto* b = std::get_if<bool>(&value)) text = *b ? "true" : "false";
      return {text, text.starts_with("-") ? 3 : 0};
    }
    throw std::logic_error("weak_scalar without a value");
  }
  // The spelling with its operands written in: bare as a call's arguments,
  // parenthesized before a member access.
  std::string fill(std::string s, const ir::Op& op) {
    for (std::size_t i = 0; i < op.operands.size(); ++i) {
      const std::string p = Spelling::placeholder(i);
      for (std::size_t at = s.find(p); at != std::string::npos; at = s.find(p)) {
        const bool member = at + p.size() < s.size() && s[at + p.size()] == '.';
        const Expr e = side(op, i);
        s.replace(at, p.size(), member ? operand(e, 0, false) : e.text);
      }
    }
    return s;
  }
  // An elementwise op's result has its operands' broadcast shape (rank 0 changes
  // none) and their common dtype; select's predicate gives no dtype, nor do the
  // results of ops without derivatives (comparisons, floor).
  Kind kind_of(const ir::Op& op) const {
    const auto operand = [&](std::size_t i) {
      const auto it = kinds_.find(op.operands[i]);
      return it == kinds_.end() ? Kind{} : it->second;
    };
    const std::string& name = op.name();
    if (name == "weak_scalar") return {0, operand(0).dtype};
    if (name == "convert_like") return {operand(0).shape, operand(1).dtype};
    if (name == "sum_to_shape_of" || name == "broadcast_to_shape_of") return operand(1);
    if (!op.def->is_elementwise()) return {};
    Kind k{0, std::nullopt};
    for (std::size_t i = 0; i < op.operands.size(); ++i) {
      const std::optional<int> s = operand(i).shape;
      if (!s || (*s != 0 && *k.shape != 0 && *s != *k.shape)) k.shape.reset();
      if (!k.shape) break;
      if (*s != 0) k.shape = s;
    }
    if (op.def->has_no_derivative()) return k;
    for (std::size_t i = name == "select" ? 1 : 0; i < op.operands.size(); ++i) {
      const std::optional<int> d = operand(i).dtype;
      if (!d || (i > (name == "select" ? 1u : 0u) && d != k.dtype)) return {k.shape, std::nullopt};
      k.dtype = d;
    }
    return k;
  }
  bool same_as(ir::ValueId a, ir::ValueId b) const {
    const auto x = kinds_.find(a), y = kinds_.find(b);
    return x != kinds_.end() && y != kinds_.end() && x->second.known() && x->second == y->second;
  }

  const ir::Function& f_;
  std::map<ir::ValueId, Expr> names_;
  std::map<ir::ValueId, Kind> kinds_;
  std::map<ir::ValueId, std::pair<std::string, ir::ValueId>> scalars_;
  std::string y_;  // the result, whose dtype a scalar operand standing alone takes
  std::map<ir::ValueId, const ir::Op*> made_by_;
};

// The operands, result and seeds of one rule call, as values of unknown type named
// by the generated function's text.
struct Call {
  ir::Function f;
  std::vector<Tensor> in, out, seeds;
  std::map<ir::ValueId, Expr> names;
  std::map<ir::ValueId, Kind> kinds;
  std::map<ir::ValueId, std::pair<std::string, ir::ValueId>> scalars;  // a scalar operand and its partner
};

// Operand k's type class: the result's where every other operand is a scalar (which
// takes the tensor's type), else its own. Seeds have the type of what they belong to.
int class_of(const Names& n, std::size_t k) {
  std::size_t tensors = 0;
  for (bool t : n.tensor) tensors += t ? 1 : 0;
  return tensors == 1 ? 0 : int(k) + 1;
}

void name_values(Call& c, ir::Builder& b, const Names& n, bool reverse,
                 const std::vector<std::string>& seeds) {
  const auto param = [&](const std::string& text, int cls) {
    Tensor t = b.param(tl::detail::unknown_type());
    const ir::ValueId v = b.value_of(t);
    c.names[v] = {text, 0};
    c.kinds[v] = of_class(cls);
    return t;
  };
  for (std::size_t k = 0; k < n.args.size(); ++k)
    c.in.push_back(n.tensor[k] ? param(n.args[k], class_of(n, k)) : b.param(tl::detail::unknown_type()));
  // A scalar sits beside the one tensor operand (elementwise ops take one or two), and
  // takes its dtype, the result's.
  for (std::size_t k = 0; k < n.args.size(); ++k)
    for (std::size_t j = 0; j < n.args.size() && !n.tensor[k]; ++j)
      if (n.tensor[j]) {
        c.scalars[b.value_of(c.in[k])] = {n.args[k], b.value_of(c.in[j])};
        c.kinds[b.value_of(c.in[k])] = scalar_of_class(0);
      }
  c.out.push_back(param(n.y, 0));
  for (std::size_t k = 0; k < seeds.size(); ++k)
    c.seeds.push_back(seeds[k].empty() ? Tensor() : param(seeds[k], reverse ? 0 : class_of(n, k)));
}

std::optional<std::string> run(const OpDef& op, const Names& n, bool reverse, std::size_t i,
                               const std::vector<std::string>& seed_names) {
  Call c;
  ir::Builder b(c.f);
  name_values(c, b, n, reverse, seed_names);
  std::vector<bool> wanted(n.args.size());
  if (reverse) wanted[i] = n.tensor[i];
  const tl::detail::Attrs none;
  tl::detail::Rule rule(op, c.in, c.out, none, c.seeds, wanted);
  std::vector<Tensor> got;
  try {
    got = (reverse ? op.vjp_rule() : op.jvp_rule())(rule);
  } catch (const tl::detail::UnknownTypeError&) {
    return std::nullopt;
  }
  const Tensor& d = got.at(reverse ? i : 0);
  if (!d.defined()) return std::string();
  const ir::ValueId v = b.value_of(d);
  Writer w(c.f, c.names, c.kinds, c.scalars, n.y);
  return w.write(v).text;
}

}  // namespace

std::vector<std::pair<std::string, std::size_t>> engine_elementwise_ops() {
  std::vector<std::pair<std::string, std::size_t>> ops;
  for (const OpDef* def : tl::detail::all_ops()) {
    if (def->partials() == 0 || !def->cpp_spelling()) continue;
    ir::Function f;
    ir::Op op{def, {}, {}, {}, {}, {}};
    for (std::size_t i = 0; i < def->partials(); ++i)
      op.operands.push_back(f.add_value(tl::detail::unknown_type()));
    op.results.push_back(f.add_value(tl::detail::unknown_type()));
    Spelling spelling(f, op);
    const std::string spelled = def->cpp_spelling()(spelling);
    const bool named = spelled.starts_with("tl::" + def->name() + "(");
    const bool infix = def->partials() == 2 && spelled.starts_with(Spelling::placeholder(0) + " ");
    if (named || infix) ops.emplace_back(def->name(), def->partials());
  }
  return ops;
}

// The registry op a public function records: its own name, but for tl::where.
const OpDef* op_of(std::string_view fn) { return tl::detail::find_op(fn == "where" ? "select" : fn); }

std::optional<std::string> engine_vjp(std::string_view op, std::size_t i, const Names& n) {
  const OpDef* def = op_of(op);
  if (def == nullptr || !def->vjp_rule()) return std::nullopt;
  return run(*def, n, true, i, {n.g});
}

std::optional<std::string> engine_jvp(std::string_view op, const Names& n,
                                      const std::vector<std::string>& t) {
  const OpDef* def = op_of(op);
  if (def == nullptr || !def->jvp_rule()) return std::nullopt;
  return run(*def, n, false, 0, t);
}

}  // namespace tlaloc_grad
