// The verifier: SSA scoping, operand and region counts, result types against each
// op's shape rule, and calls against their callees.
#include <fmt/format.h>

#include "core/check.hpp"
#include "ir/ir.hpp"

namespace tlaloc::ir {
namespace {

class Verifier {
 public:
  Verifier(const Function& f, const Module* m)
      : f_(f), m_(m), defined_(f.num_values(), false), in_scope_(f.num_values(), false) {}

  void run() { region(f_.body, nullptr); }

 private:
  [[noreturn]] void fail_at(const Op* op, const std::string& what) const {
    std::string where = fmt::format("@{}", f_.name);
    if (op != nullptr) {
      if (op->loc.line > 0) where += fmt::format(" line {}:{}", op->loc.line, op->loc.col);
      where += fmt::format(" op '{}'", op->name());
    }
    throw Error(fmt::format("invalid IR in {}: {}", where, what));
  }

  void define(ValueId v, const Op* op) {
    if (v < 0 || std::size_t(v) >= f_.num_values()) fail_at(op, fmt::format("value %{} does not exist", v));
    if (defined_[std::size_t(v)]) fail_at(op, fmt::format("value %{} is defined twice", v));
    defined_[std::size_t(v)] = true;
    in_scope_[std::size_t(v)] = true;
    visible_.push_back(v);
  }

  void use(ValueId v, const Op* op) const {
    if (v < 0 || std::size_t(v) >= f_.num_values()) fail_at(op, fmt::format("value %{} does not exist", v));
    if (in_scope_[std::size_t(v)]) return;
    fail_at(op, fmt::format("value %{} is used where it is not defined (before its definition or "
                            "outside its region)",
                            v));
  }

  void region(const Region& r, const Op* owner) {
    const std::size_t mark = visible_.size();
    for (ValueId v : r.args) define(v, owner);
    for (const Op& op : r.ops) this->op(op);
    for (ValueId v : r.results) use(v, owner);
    for (std::size_t i = mark; i < visible_.size(); ++i) in_scope_[std::size_t(visible_[i])] = false;
    visible_.resize(mark);  // a region's values are not visible after it
  }

  void op(const Op& op) {
    if (op.def == nullptr) fail_at(nullptr, "an op has no definition");
    for (ValueId v : op.operands) use(v, &op);
    if (!op.def->may_take_tokens())
      for (std::size_t i = 0; i < op.operands.size(); ++i)
        if (f_.type(op.operands[i]).token)
          fail_at(&op, fmt::format("operand {} is a token, and only send, recv, after_all, calls and "
                                   "run_parallel take tokens (docs/DISTRIBUTED.md)",
                                   i));
    if (op.def->arity() >= 0 && std::size_t(op.def->arity()) != op.operands.size())
      fail_at(&op, fmt::format("takes {} operands, got {}", op.def->arity(), op.operands.size()));
    if (op.def->regions() >= 0 && std::size_t(op.def->regions()) != op.regions.size())
      fail_at(&op, fmt::format("takes {} regions, got {}", op.def->regions(), op.regions.size()));
    for (const Region& r : op.regions) region(r, &op);
    check_types(op);
    if (op.def->calls() == OpDef::Calls::one) check_call(op);
    if (op.def->calls() == OpDef::Calls::parallel) check_parallel(op);
    for (ValueId v : op.results) define(v, &op);
  }

  std::vector<TensorType> operand_types(const Op& op) const {
    std::vector<TensorType> in;
    for (ValueId v : op.operands) in.push_back(f_.type(v));
    return in;
  }

  void check_types(const Op& op) const {
    if (!op.def->has_shape_rule()) return;
    const std::vector<TensorType> in = operand_types(op);
    for (const TensorType& t : in)
      if (!is_static(t)) return;  // shapes known at run time are checked there
    std::vector<TensorType> want;
    try {
      want = op.def->infer(in, op.attrs);
    } catch (const Error& e) {
      fail_at(&op, e.what());
    }
    if (want.size() != op.results.size())
      fail_at(&op, fmt::format("has {} results, its rule gives {}", op.results.size(), want.size()));
    for (std::size_t i = 0; i < want.size(); ++i) {
      const TensorType& got = f_.type(op.results[i]);
      if (got != want[i])
        fail_at(&op, fmt::format("result {} has type {}, its rule gives {}", i, type_string(got),
                                 type_string(want[i])));
    }
  }

  void check_call(const Op& op) const {
    if (m_ == nullptr) return;
    const std::string& callee = op.attrs.get<std::string>(op.def->calls_attr());
    const Function* g = m_->find(callee);
    if (g == nullptr) fail_at(&op, fmt::format("calls @{}, which the module does not define", callee));
    if (operand_types(op) != g->param_types())
      fail_at(&op, fmt::format("arguments do not match the parameters of @{}", callee));
    std::vector<TensorType> res;
    for (ValueId v : op.results) res.push_back(f_.type(v));
    if (res != g->result_types()) fail_at(&op, fmt::format("results do not match those of @{}", callee));
  }

  // Each process takes its function's parameters from the operands in order and gives
  // its results in order (src/interp/parallel.hpp).
  void check_parallel(const Op& op) const {
    if (m_ == nullptr) return;
    std::vector<TensorType> params, results;
    for (const std::string& name : op.attrs.get<std::vector<std::string>>(op.def->calls_attr())) {
      const Function* g = m_->find(name);
      if (g == nullptr) fail_at(&op, fmt::format("runs @{}, which the module does not define", name));
      for (const TensorType& t : g->param_types()) params.push_back(t);
      for (const TensorType& t : g->result_types()) results.push_back(t);
    }
    if (operand_types(op) != params)
      fail_at(&op, fmt::format(
                       "passes {} operands where its programs take {} parameters in all (or of other types)",
                       op.operands.size(), params.size()));
    std::vector<TensorType> res;
    for (ValueId v : op.results) res.push_back(f_.type(v));
    if (res != results)
      fail_at(&op, fmt::format("has {} results where its programs give {} in all (or of other types)",
                               res.size(), results.size()));
  }

  const Function& f_;
  const Module* m_;
  std::vector<bool> defined_;
  std::vector<bool> in_scope_;
  std::vector<ValueId> visible_;  // in definition order, to close scopes
};

}  // namespace

void verify(const Function& f, const Module* m) { Verifier(f, m).run(); }

void verify(const Module& m) {
  for (std::size_t i = 0; i < m.functions.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (m.functions[i].name == m.functions[j].name)
        throw Error(fmt::format("invalid IR: the module defines @{} twice", m.functions[i].name));
  for (const Function& f : m.functions) verify(f, &m);
}

}  // namespace tlaloc::ir
