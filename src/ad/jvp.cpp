#include <fmt/format.h>

#include "ad/modes.hpp"
#include "core/tensor_impl.hpp"
#include "ops/rule.hpp"

namespace tlaloc::ad {

Tensor zeros_of(const TensorType& t) {
  if (t.unknown)
    throw detail::UnknownTypeError(
        "AD: a zero of a type known only at run time would be needed here, with no value "
        "beside it to take the type from");
  if (!ir::is_static(t))
    throw Error(fmt::format("AD: a zero of dynamic type {} would be needed here; not supported yet",
                            ir::type_string(t)));
  return zeros(t.shape, t.dtype);
}

Tensor zeros_for(const TensorType& t, const Tensor& primal) {
  return t.unknown ? zeros_like(primal) : zeros_of(t);
}

Tensor checked(std::string_view mode, const Function& f, const Op& op, const Tensor& d, const TensorType& want) {
  if (!d.defined() || want.unknown) return d;
  if (d.shape() != want.shape && ir::is_static(want))
    refuse(mode, f, op,
           fmt::format("its rule returned a derivative of shape {} for a value of type {}", shape_string(d.shape()),
                       ir::type_string(want)));
  return d.dtype() == want.dtype ? d : d.astype(want.dtype);
}

std::vector<std::string_view> bodies(const Op& op) {
  std::vector<std::string_view> b;
  for (const Region& r : op.regions) b.push_back(ir::binary_body(r));
  return b;
}

Tensor JvpPass::tangent_of(ValueId v) const {
  auto it = tangent.find(v);
  return it == tangent.end() ? Tensor() : it->second;
}

void JvpPass::run(const Region& r) {
  for (const Op& op : r.ops) step(op);
}

void JvpPass::step(const Op& op) {
  std::vector<Tensor> tin;
  bool any = false;
  for (ValueId v : op.operands) {
    tin.push_back(tangent_of(v));
    any = any || tin.back().defined();
  }
  if (!op.regions.empty() && !any)
    for (ValueId v : ir::free_values(op)) any = any || tangent_of(v).defined();
  bool floating_result = false;
  for (ValueId v : op.results) floating_result = floating_result || detail::differentiable(rp.f.type(v));
  if (!any || !floating_result || op.def->has_no_derivative()) {
    rp.op(op);
    return;
  }
  if (control_jvp(*this, op)) return;
  const detail::DerivRule& rule = op.def->jvp_rule();
  if (!rule) refuse("jvp", rp.f, op, "it has no JVP rule");
  const std::vector<Tensor> in = rp.operands(op);
  const std::vector<Tensor> out = rp.op(op);
  detail::Rule r(*op.def, in, out, op.attrs, tin, {});
  r.set_bodies(bodies(op));
  const std::vector<Tensor> tout = rule(r);
  if (tout.size() != out.size()) refuse("jvp", rp.f, op, "its JVP rule returned the wrong number of tangents");
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!detail::differentiable(rp.f.type(op.results[i]))) continue;
    Tensor t = checked("jvp", rp.f, op, tout[i], rp.f.type(op.results[i]));
    if (t.defined()) tangent[op.results[i]] = std::move(t);
  }
}

std::pair<std::vector<Tensor>, std::vector<Tensor>> JvpPass::region(const Region& r, std::span<const Tensor> args,
                                                                    std::span<const Tensor> tangents) {
  for (std::size_t i = 0; i < r.args.size(); ++i) {
    rp.primal[r.args[i]] = args[i];
    if (tangents[i].defined())
      tangent[r.args[i]] = tangents[i];
    else
      tangent.erase(r.args[i]);
  }
  run(r);
  std::pair<std::vector<Tensor>, std::vector<Tensor>> out;
  for (ValueId v : r.results) {
    out.first.push_back(rp.at(v));
    out.second.push_back(tangent_of(v));
  }
  return out;
}

Function jvp(const Function& f, const std::vector<bool>& wrt) {
  Function g;
  g.name = f.name + "_jvp";
  ir::Builder b(g);
  JvpPass p(f, b);
  const std::vector<TensorType> types = f.param_types();
  std::vector<Tensor> args, tangents(types.size());
  for (const TensorType& t : types) args.push_back(b.param(t));
  for (std::size_t i = 0; i < types.size(); ++i)
    if (wrt[i]) tangents[i] = b.param(types[i]);
  auto [res, tres] = p.region(f.body, args, tangents);
  for (std::size_t i = 0; i < tres.size(); ++i)
    res.push_back(tres[i].defined() ? tres[i] : zeros_for(f.type(f.body.results[i]), res[i]));
  b.finish(res);
  return g;
}

}  // namespace tlaloc::ad
