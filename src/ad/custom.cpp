// Custom derivative rules: recording a call (an op custom_rule whose region is the
// primal), and what the engine does at such an op in each mode.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <mutex>

#include "ad/along_defined.hpp"
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

std::int64_t register_rule(const std::shared_ptr<const detail::CustomRule>& r) {
  RuleTable& t = rule_table();
  std::lock_guard lock(t.mu);
  for (std::size_t i = 0; i < t.rules.size(); ++i)
    if (t.rules[i] == r) return std::int64_t(i);
  t.rules.push_back(r);
  return std::int64_t(t.rules.size() - 1);
}

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
// results). The ops listed are linear in the operands named; anything else that
// touches a marked value makes the rule nonlinear.
bool linear_step(const Op& op, std::vector<bool>& lin) {
  std::vector<std::size_t> used;
  for (std::size_t i = 0; i < op.operands.size(); ++i)
    if (lin[std::size_t(op.operands[i])]) used.push_back(i);
  if (used.empty()) return true;
  const std::string& n = op.name();
  const auto only = [&](std::initializer_list<std::size_t> allowed) {
    for (std::size_t u : used)
      if (std::find(allowed.begin(), allowed.end(), u) == allowed.end()) return false;
    return true;
  };
  bool ok = false;
  if (n == "add" || n == "sub" || n == "neg" || n == "convert" || n == "reshape" || n == "transpose" ||
      n == "broadcast_in_dim" || n == "reduce_sum" || n == "slice" || n == "reverse" || n == "concatenate" ||
      n == "pad" || n == "cumsum")
    ok = true;
  else if (n == "mul" || n == "dot_general" || n == "conv2d" || n == "convolution")
    ok = used.size() == 1;
  else if (n == "div" || n == "divide" || n == "dynamic_slice" || n == "take" || n == "take_along_axis" ||
           n == "gather")
    ok = only({0});
  else if (n == "select")
    ok = only({1, 2});
  else if (n == "dynamic_update_slice")
    ok = only({0, 1});
  else if (n == "scatter_add" || n == "index_add")
    ok = only({0, 2});
  else if (n == "stop_gradient")
    return true;
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

namespace {

// custom_jvp in reverse mode: the rule's tangent map at `primals`, traced, is
// transposed by the engine, which is only right when that map is linear (otherwise
// `nonlinear` is called with the op that is not). Returns each argument's cotangent
// for the results' `seeds` (undefined: zero).
std::vector<Tensor> transpose_jvp_rule(const detail::CustomRule& rule, std::span<const Tensor> primals,
                                       std::span<const TensorType> results, std::span<const Tensor> seeds,
                                       const std::function<void(const std::string&)>& nonlinear) {
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
  const std::vector<Tensor> r = ad::apply(g, args);
  return std::vector<Tensor>(r.end() - std::ptrdiff_t(n), r.end());
}

std::string nonlinear_message(const std::string& rule, const std::string& op) {
  return fmt::format("the custom_jvp function '{}' has a JVP rule that is not linear in the tangents (its op '{}' "
                     "uses one), so reverse mode through it is refused; give it a custom_vjp rule",
                     rule, op);
}

std::vector<Tensor> transposed_jvp(VjpPass& p, const Op& op, const detail::CustomRule& rule,
                                   std::span<const Tensor> seeds) {
  std::vector<TensorType> results;
  for (ValueId v : op.results) results.push_back(p.rp.f.type(v));
  return transpose_jvp_rule(rule, p.rp.operands(op), results, seeds,
                            [&](const std::string& o) { refuse("vjp", p.rp.f, op, nonlinear_message(rule.name, o)); });
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

namespace tlaloc::detail {
namespace {

// Outside a trace there is no op to name: a nonlinear JVP rule is refused by its name.
std::function<void(const std::string&)> refuse_nonlinear(const CustomRule& rule) {
  return
      [&rule](const std::string& op) { throw NotDifferentiableError(ad::nonlinear_message(rule.name, op)); };
}

}  // namespace

Values transposed_custom_jvp(const std::shared_ptr<const CustomRule>& rule, std::span<const Tensor> primals,
                             const Tensor& cotangent) {
  if (ir::owner_of(primals) != nullptr || cotangent.is_symbolic())
    throw ValueError(fmt::format("'{}': backward takes host tensors (inside a trace, call the function itself)", rule->name));
  const TensorType result = type_of(cotangent);
  return ad::transpose_jvp_rule(*rule, primals, std::span<const TensorType>(&result, 1),
                                std::span<const Tensor>(&cotangent, 1), refuse_nonlinear(*rule));
}

std::pair<Values, Values> custom_forward_jvp(const std::shared_ptr<const CustomRule>& rule,
                                             std::span<const Tensor> args, std::span<const Tensor> tangents) {
  if (tangents.size() != args.size())
    throw ValueError(
        fmt::format("'{}': {} arguments but {} tangents", rule->name, args.size(), tangents.size()));
  const bool moving =
      std::any_of(tangents.begin(), tangents.end(), [](const Tensor& t) { return t.defined(); });
  if (rule->fwd)
    return ad::along_defined(
        [&](std::span<const Tensor> a) {
          auto [values, residuals] = rule->fwd(a);
          values.insert(values.end(), residuals.begin(), residuals.end());
          return values;
        },
        args, tangents);
  if (!rule->jvp) throw Error("'" + rule->name + "' has no custom rule");
  // A custom_jvp function keeps its arguments for the backward half; the engine applies
  // the JVP rule to zeros where a tangent is absent, and the primal where all are.
  Values values{moving ? Tensor() : rule->primal(args).at(0)}, out_tangents{Tensor()};
  if (moving) {
    std::vector<Tensor> full;
    for (std::size_t i = 0; i < args.size(); ++i)
      full.push_back(tangents[i].defined() ? tangents[i] : zeros_like(args[i]));
    auto [vals, tans] = rule->jvp(args, full);
    values[0] = vals.at(0);
    out_tangents[0] = tans.at(0);
  }
  values.insert(values.end(), args.begin(), args.end());
  out_tangents.insert(out_tangents.end(), tangents.begin(), tangents.end());
  return {values, out_tangents};
}

std::pair<Values, Values> custom_backward_jvp(const std::shared_ptr<const CustomRule>& rule,
                                              std::span<const Tensor> residuals,
                                              std::span<const Tensor> residual_tangents,
                                              const Tensor& cotangent, const Tensor& cotangent_tangent) {
  const std::size_t n = residuals.size();
  std::vector<Tensor> args(residuals.begin(), residuals.end()),
      tangents(residual_tangents.begin(), residual_tangents.end());
  if (tangents.size() != n)
    throw ValueError(fmt::format("'{}': {} residuals but {} tangents", rule->name, n, tangents.size()));
  args.push_back(cotangent);
  tangents.push_back(cotangent_tangent);
  const TensorType result = type_of(cotangent);
  const auto backward = [&](std::span<const Tensor> a) -> Values {
    if (rule->bwd) return rule->bwd(a.first(n), a.subspan(n, 1));
    if (!rule->jvp) throw Error("'" + rule->name + "' has no custom rule");
    return ad::transpose_jvp_rule(*rule, a.first(n), std::span<const TensorType>(&result, 1), a.subspan(n, 1),
                                  refuse_nonlinear(*rule));
  };
  return ad::along_defined(backward, args, tangents);
}

Values call_custom(const std::shared_ptr<const CustomRule>& rule, std::span<const Tensor> args) {
  ir::Builder* b = ir::current_builder();
  if (b == nullptr) return rule->primal(args);
  std::vector<TensorType> types;
  for (const Tensor& a : args) types.push_back(type_of(a));
  Values out;
  std::vector<ir::Region> regions;
  regions.push_back(b->region(types, [&](std::span<const Tensor> a) { return out = rule->primal(a); }));
  std::vector<TensorType> out_types;
  for (const Tensor& t : out) out_types.push_back(type_of(t));
  const Attrs attrs{{"rule", ad::register_rule(rule)}, {"name", rule->name}};
  return b->record(*find_op("custom_rule"), args, attrs, out_types, std::move(regions));
}

CustomRuleReport check_custom(const std::shared_ptr<const CustomRule>& rule, std::span<const Tensor> args,
                              double rtol) {
  CustomRuleReport r;
  const auto compare = [&](std::string_view what, const Tensor& got, const Tensor& want) {
    if (!got.defined() || !want.defined()) return;
    const auto a = got.to_vector<double>(), b = want.to_vector<double>();
    for (std::size_t i = 0; i < a.size(); ++i) {
      const double abs_err = std::abs(a[i] - b[i]), rel = abs_err / std::max(std::abs(b[i]), 1e-300);
      if (abs_err > r.max_abs_error || std::isnan(abs_err)) {
        r.max_abs_error = std::isnan(abs_err) ? INFINITY : abs_err;
        r.detail = fmt::format("{}: element {} is {} by the rule and {} by the engine", what, i, a[i], b[i]);
      }
      r.max_rel_error = std::max(r.max_rel_error, std::isnan(rel) ? INFINITY : rel);
    }
  };
  const FlatFn custom = [&](std::span<const Tensor> a) { return call_custom(rule, a); };
  const FlatFn engine = [&](std::span<const Tensor> a) { return rule->primal(a); };
  const std::vector<Tensor> y = rule->primal(args);
  std::vector<Tensor> u;
  for (const Tensor& t : y) u.push_back(cos(arange(0, t.numel(), 1, t.dtype()).astype(t.dtype())).astype(t.dtype()));
  for (Tensor& t : u) t = reshape(t, y[&t - u.data()].shape());
  if (rule->bwd || rule->jvp) {
    auto [yc, pc] = run_vjp(custom, args);
    auto [ye, pe] = run_vjp(engine, args);
    const std::vector<Tensor> gc = run_pullback(*pc, u), ge = run_pullback(*pe, u);
    for (std::size_t i = 0; i < gc.size(); ++i) compare(fmt::format("vjp of argument {}", i), gc[i], ge[i]);
  }
  if (rule->jvp) {
    std::vector<Tensor> v;
    for (const Tensor& a : args) v.push_back(sin(arange(0, a.numel(), 1, a.dtype()).astype(a.dtype()) + 1.0).astype(a.dtype()));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = reshape(v[i], args[i].shape());
    const std::vector<Tensor> jc = run_jvp(custom, args, v), je = run_jvp(engine, args, v);
    for (std::size_t i = jc.size() / 2; i < jc.size(); ++i) compare(fmt::format("jvp of result {}", i - jc.size() / 2), jc[i], je[i]);
  }
  r.ok = r.max_rel_error <= rtol || r.max_abs_error <= rtol;
  return r;
}

}  // namespace tlaloc::detail
