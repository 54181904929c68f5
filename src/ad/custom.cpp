// Custom derivative rules in the engine: what it does at a custom_rule op (whose
// region is the primal) in each mode. Recording such an op is in
// src/transforms/custom.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <mutex>

#include "ad/custom.hpp"
#include "ir/passes.hpp"
#include "ops/rule.hpp"
#include "tlaloc/custom.hpp"
#include "tlaloc/ops.hpp"
#include "tlaloc/transforms.hpp"

namespace tlaloc::ad {
namespace {

// Rules live for the program's life: a traced function may keep an op naming one.
struct RuleTable {
  std::mutex mu;
  std::vector<std::shared_ptr<const detail::CustomRule>> rules;
};
RuleTable& rule_table() {
  static RuleTable t;
  return t;
}

}  // namespace

std::int64_t register_rule(const std::shared_ptr<const detail::CustomRule>& r) {
  RuleTable& t = rule_table();
  std::lock_guard lock(t.mu);
  for (std::size_t i = 0; i < t.rules.size(); ++i)
    if (t.rules[i] == r) return std::int64_t(i);
  t.rules.push_back(r);
  return std::int64_t(t.rules.size() - 1);
}

namespace {

const detail::CustomRule& rule_of(const Op& op) {
  RuleTable& t = rule_table();
  std::lock_guard lock(t.mu);
  return *t.rules.at(std::size_t(op.attrs.get<std::int64_t>("rule")));
}

std::vector<Tensor> materialized(std::span<const Tensor> ts, const Function& f, std::span<const ValueId> vs) {
  std::vector<Tensor> out;
  for (std::size_t i = 0; i < ts.size(); ++i) out.push_back(ts[i].defined() ? ts[i] : zeros_of(f.type(vs[i])));
  return out;
}

// Whether `op`, using values marked in `lin`, stays linear in them (and marks its
// results), as its definition says (OpDef::linear, multilinear,
// constant_to_derivatives); anything else that touches a marked value makes the rule
// nonlinear.
bool linear_step(const Op& op, std::vector<bool>& lin) {
  std::vector<std::size_t> used;
  for (std::size_t i = 0; i < op.operands.size(); ++i)
    if (lin[std::size_t(op.operands[i])]) used.push_back(i);
  if (used.empty() || op.def->is_constant_to_derivatives()) return true;
  const std::vector<std::size_t>& allowed = op.def->linear_operands();
  bool ok = false;
  switch (op.def->linearity()) {
    case detail::OpDef::Linearity::none: break;
    case detail::OpDef::Linearity::each: ok = used.size() == 1; break;
    case detail::OpDef::Linearity::joint:
      ok = std::all_of(used.begin(), used.end(), [&](std::size_t u) {
        return allowed.empty() || std::find(allowed.begin(), allowed.end(), u) != allowed.end();
      });
      break;
  }
  if (ok)
    for (ValueId v : op.results) lin[std::size_t(v)] = true;
  return ok;
}

}  // namespace

void custom_jvp_step(JvpPass& p, const Op& op) {
  const detail::CustomRule& rule = rule_of(op);
  if (!rule.jvp)
    refuse("jvp", p.rp.f, op,
           fmt::format("the custom_vjp function '{}' has no JVP rule; forward mode through it is refused "
                       "(give it a custom_jvp rule, or differentiate it in reverse mode)",
                       rule.name));
  const std::vector<Tensor> primals = p.rp.operands(op);
  std::vector<Tensor> tangents;
  for (ValueId v : op.operands) tangents.push_back(p.tangent_of(v));
  const auto [vals, tans] = rule.jvp(primals, materialized(tangents, p.rp.f, op.operands));
  if (vals.size() != op.results.size() || tans.size() != op.results.size())
    refuse("jvp", p.rp.f, op, fmt::format("the JVP rule of '{}' returned the wrong number of values", rule.name));
  for (std::size_t i = 0; i < vals.size(); ++i) {
    p.rp.primal[op.results[i]] = vals[i];
    Tensor t = checked("jvp", p.rp.f, op, tans[i], p.rp.f.type(op.results[i]));
    if (t.defined() && detail::differentiable(t.dtype())) p.tangent[op.results[i]] = t;
  }
}

void custom_vjp_forward(VjpPass& p, const Op& op) {
  const detail::CustomRule& rule = rule_of(op);
  if (!rule.fwd) {
    p.rp.op(op);
    return;
  }
  auto [vals, residuals] = rule.fwd(p.rp.operands(op));
  if (vals.size() != op.results.size())
    refuse("vjp", p.rp.f, op, fmt::format("the forward rule of '{}' returned the wrong number of values", rule.name));
  for (std::size_t i = 0; i < vals.size(); ++i) p.rp.primal[op.results[i]] = vals[i];
  p.saved[&op] = std::move(residuals);
}

std::vector<Tensor> transpose_jvp_rule(const detail::CustomRule& rule, std::span<const Tensor> primals,
                                       std::span<const TensorType> results, std::span<const Tensor> seeds,
                                       const std::function<void(const std::string&)>& nonlinear,
                                       const ApplyFn& apply) {
  const std::size_t n = primals.size();
  std::vector<TensorType> types;
  for (const Tensor& a : primals) types.push_back(detail::type_of(a));
  for (const Tensor& a : primals) types.push_back(detail::type_of(a));
  const Traced j = trace(rule.name + "_jvp", types, [&](std::span<const Tensor> a) {
    auto [vals, tans] = rule.jvp(a.first(n), a.subspan(n));
    vals.insert(vals.end(), tans.begin(), tans.end());
    return vals;
  });
  std::vector<bool> lin(j.f.num_values(), false);
  for (std::size_t i = 0; i < n; ++i) lin[std::size_t(j.f.body.args[n + i])] = true;
  for (const Op& o : j.f.body.ops)
    if (!linear_step(o, lin)) nonlinear(o.name());
  std::vector<bool> wrt(j.f.body.args.size(), false);
  for (std::size_t i = 0; i < n; ++i) wrt[n + i] = true;
  const Function g = ir::optimize(vjp(j.f, wrt));
  std::vector<Tensor> args(primals.begin(), primals.end());
  for (const TensorType& t : std::span<const TensorType>(types).first(n)) args.push_back(zeros_of(t));
  args.insert(args.end(), j.captures.begin(), j.captures.end());
  for (const TensorType& t : results) args.push_back(zeros_of(t));
  for (std::size_t i = 0; i < seeds.size(); ++i) args.push_back(seeds[i].defined() ? seeds[i] : zeros_of(results[i]));
  const std::vector<Tensor> r = apply(g, args);
  return std::vector<Tensor>(r.end() - std::ptrdiff_t(n), r.end());
}

std::string nonlinear_message(const std::string& rule, const std::string& op) {
  return fmt::format("the custom_jvp function '{}' has a JVP rule that is not linear in the tangents (its op '{}' "
                     "uses one), so reverse mode through it is refused; give it a custom_vjp rule",
                     rule, op);
}

namespace {

std::vector<Tensor> transposed_jvp(VjpPass& p, const Op& op, const detail::CustomRule& rule,
                                   std::span<const Tensor> seeds) {
  std::vector<TensorType> results;
  for (ValueId v : op.results) results.push_back(p.rp.f.type(v));
  return transpose_jvp_rule(
      rule, p.rp.operands(op), results, seeds,
      [&](const std::string& o) { refuse("vjp", p.rp.f, op, nonlinear_message(rule.name, o)); }, record_call);
}

}  // namespace

void custom_vjp_backward(VjpPass& p, const Op& op) {
  const detail::CustomRule& rule = rule_of(op);
  std::vector<Tensor> seeds;
  for (ValueId v : op.results) seeds.push_back(p.take_ct(v));
  std::vector<Tensor> cts;
  if (rule.bwd)
    cts = rule.bwd(p.saved.at(&op), materialized(seeds, p.rp.f, op.results));
  else
    cts = transposed_jvp(p, op, rule, seeds);
  if (cts.size() != op.operands.size())
    refuse("vjp", p.rp.f, op,
           fmt::format("the backward rule of '{}' returned {} cotangents for {} arguments", rule.name, cts.size(),
                       op.operands.size()));
  for (std::size_t i = 0; i < cts.size(); ++i)
    if (p.is_active(op.operands[i])) p.add_ct(op.operands[i], checked("vjp", p.rp.f, op, cts[i], p.rp.f.type(op.operands[i])));
}

}  // namespace tlaloc::ad
