#include <fmt/format.h>

#include "ad/modes.hpp"
#include "ops/rule.hpp"

namespace tlaloc::ad {

bool VjpPass::op_active(const Op& op) const {
  for (ValueId v : op.operands)
    if (is_active(v)) return true;
  if (!op.regions.empty())
    for (ValueId v : ir::free_values(op))
      if (is_active(v)) return true;
  return false;
}

void VjpPass::forward(const Region& r) {
  for (const Op& op : r.ops) {
    if (!op_active(op) || op.def->has_no_derivative()) {
      rp.op(op);
      continue;
    }
    if (!control_vjp_forward(*this, op)) rp.op(op);
    for (ValueId v : op.results)
      if (detail::differentiable(rp.f.type(v))) active.insert(v);
  }
}

void VjpPass::add_ct(ValueId v, const Tensor& g) {
  if (!g.defined()) return;
  auto [it, inserted] = ct.try_emplace(v, g);
  if (!inserted) it->second = detail::add_tangents(it->second, g);
  if (values != nullptr) values->cotangents.push_back({v, rp.b.value_of(it->second), rule_of});
}

Tensor VjpPass::take_ct(ValueId v) {
  auto it = ct.find(v);
  if (it == ct.end()) return {};
  Tensor g = std::move(it->second);
  ct.erase(it);
  return g;
}

void VjpPass::backward(const Region& r) {
  for (auto it = r.ops.rbegin(); it != r.ops.rend(); ++it) backward(*it);
}

void VjpPass::backward(const Op& op) {
  bool seeded = false;
  for (ValueId v : op.results) seeded = seeded || ct.count(v) != 0;
  if (!seeded || !op_active(op) || op.def->has_no_derivative()) {
    for (ValueId v : op.results) ct.erase(v);
    return;
  }
  if (control_vjp_backward(*this, op)) return;
  const detail::DerivRule& rule = op.def->vjp_rule();
  if (!rule) refuse("vjp", rp.f, op, "it has no VJP rule");
  std::vector<Tensor> seeds;
  for (ValueId v : op.results) seeds.push_back(take_ct(v));
  std::vector<bool> wanted;
  for (ValueId v : op.operands) wanted.push_back(is_active(v));
  const std::vector<Tensor> in = rp.operands(op);
  std::vector<Tensor> out;
  for (ValueId v : op.results) out.push_back(rp.at(v));
  detail::Rule rule_args(*op.def, in, out, op.attrs, seeds, wanted);
  rule_args.set_bodies(bodies(op));
  const std::vector<Tensor> g = rule(rule_args);
  if (g.size() != in.size()) refuse("vjp", rp.f, op, "its VJP rule returned the wrong number of cotangents");
  rule_of = &op;
  for (std::size_t i = 0; i < in.size(); ++i)
    if (wanted[i]) add_ct(op.operands[i], checked("vjp", rp.f, op, g[i], rp.f.type(op.operands[i])));
  rule_of = nullptr;
}

std::vector<Tensor> VjpPass::region(const Region& r, std::span<const Tensor> args, const std::vector<bool>& args_active,
                                    std::span<const Tensor> seeds, std::span<const ValueId> captured) {
  const auto saved_active = active;
  auto saved_ct = std::move(ct);
  ct.clear();
  for (std::size_t i = 0; i < r.args.size(); ++i) {
    rp.primal[r.args[i]] = args[i];
    if (args_active[i] && detail::differentiable(rp.f.type(r.args[i])))
      active.insert(r.args[i]);
    else
      active.erase(r.args[i]);
  }
  forward(r);
  for (std::size_t i = 0; i < r.results.size(); ++i)
    if (is_active(r.results[i])) add_ct(r.results[i], seeds[i]);
  backward(r);
  std::vector<Tensor> out;
  for (ValueId v : r.args) out.push_back(take_ct(v));
  for (ValueId v : captured) out.push_back(take_ct(v));
  active = saved_active;
  ct = std::move(saved_ct);
  return out;
}

Function vjp(const Function& f, const std::vector<bool>& wrt, bool seed_ones) {
  Function g;
  g.name = f.name + "_vjp";
  ir::Builder b(g);
  VjpPass p(f, b);
  const std::vector<TensorType> types = f.param_types();
  for (std::size_t i = 0; i < types.size(); ++i) {
    p.rp.primal[f.body.args[i]] = b.param(types[i]);
    if (wrt[i] && detail::differentiable(types[i])) p.active.insert(f.body.args[i]);
  }
  std::vector<Tensor> seeds;
  for (ValueId v : f.body.results) {
    const TensorType& t = f.type(v);
    if (!seed_ones)
      seeds.push_back(b.param(t));
    else if (t.unknown)
      throw ValueError(
          fmt::format("tl::{}: the function returns a value whose type is known only at run time; take its "
                      "vjp and check that it is a scalar there",
                      f.name));
    else if (t.shape.empty() && detail::differentiable(t.dtype))
      seeds.push_back(scalar_tensor(1, t.dtype));
    else
      throw ValueError(fmt::format("tl::{}: the function must return one floating-point scalar, got {}",
                                   f.name, ir::type_string(t)));
  }
  p.forward(f.body);
  for (std::size_t i = 0; i < seeds.size(); ++i)
    if (p.is_active(f.body.results[i])) p.add_ct(f.body.results[i], seeds[i]);
  p.backward(f.body);
  std::vector<Tensor> res;
  for (ValueId v : f.body.results) res.push_back(p.rp.at(v));
  for (std::size_t i = 0; i < types.size(); ++i) {
    if (!wrt[i]) continue;
    Tensor c = p.take_ct(f.body.args[i]);
    res.push_back(c.defined() ? c : zeros_for(types[i], p.rp.at(f.body.args[i])));
  }
  b.finish(res);
  return g;
}

}  // namespace tlaloc::ad
