// Derivatives of shard_map (src/ops/shard_map.cpp): a shard_map of the derivative of
// its function, with the same mesh. Forward mode maps the JVP of the function over
// the parts of the values and their tangents. Reverse mode maps the function's
// backward pass over the parts of the values and of the results' cotangents, then
// sums each argument's cotangent over the axes the argument is whole along (every
// device there used the same value). A result whole along an axis is the one of the
// devices at 0 on it, so only those devices get its cotangent.
#include <fmt/format.h>

#include "ad/modes.hpp"
#include "ops/mesh.hpp"
#include "ops/rule.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::ad {
namespace {

using detail::MeshShape;

// The ranks of the values say how the layout's split dimensions divide among them:
// values typed only at run time (a build-time trace) cannot say.
std::size_t rank_of(const Function& f, ValueId v) {
  const TensorType& t = f.type(v);
  if (t.unknown)
    throw detail::UnknownTypeError(
        "AD: a shard_map of values whose ranks are known only at run time: its parts cannot be told apart");
  return t.shape.size();
}

detail::ShardLayout layout_of(const Function& f, const Op& op) {
  std::vector<std::size_t> in_ranks, out_ranks;
  for (ValueId v : op.operands) in_ranks.push_back(rank_of(f, v));
  for (ValueId v : op.results) out_ranks.push_back(rank_of(f, v));
  return detail::ShardLayout::of(op.attrs, in_ranks, out_ranks);
}

std::vector<Tensor> record_shard_map(Replay& rp, const Op& op, const detail::ShardLayout& l,
                                     std::span<const Tensor> operands, std::vector<TensorType> types,
                                     ir::Region region) {
  std::vector<ir::Region> regions;
  regions.push_back(std::move(region));
  return rp.b.record(*op.def, operands, l.attrs(), std::move(types), std::move(regions));
}

// The function's values from outside (not arguments) are the same on every device,
// and their derivatives would be sums over the devices: not yet.
template <class Carries>
void refuse_captured(std::string_view mode, const Function& f, const Op& op, Carries carries) {
  for (ValueId v : ir::free_values(op))
    if (carries(v))
      refuse(
          mode, f, op,
          "its function uses a value from outside that carries a derivative; pass it to the shard_map as an "
          "argument (with tl::P() to give every device all of it)");
}

// The cotangent summed over the devices along `axes` (none: itself).
Tensor summed_over(const Tensor& ct, const MeshShape& mesh, const std::vector<std::size_t>& axes) {
  return axes.empty() ? ct : mesh.reduce_over(ct, axes, "add");
}

// seed where this device is at 0 along every axis in `axes`, else zeros.
Tensor on_first_devices(const Tensor& seed, const MeshShape& mesh, const std::vector<std::size_t>& axes) {
  if (axes.empty()) return seed;
  Tensor first;
  for (std::size_t a : axes) {
    const Tensor at0 = mesh.coordinate(a) == scalar_tensor(0, DType::i32);
    first = first.defined() ? logical_and(first, at0) : at0;
  }
  return where(first, seed, zeros_like(seed));
}

}  // namespace

void shard_map_jvp(JvpPass& p, const Op& op) {
  const Function& f = p.rp.f;
  const Region& body = op.regions[0];
  refuse_captured("jvp", f, op, [&](ValueId v) { return p.tangent_of(v).defined(); });
  const detail::ShardLayout l = layout_of(f, op);
  const std::size_t n = op.operands.size();
  std::vector<std::size_t> tin, tout;  // operands with tangents, floating results
  for (std::size_t i = 0; i < n; ++i)
    if (p.tangent_of(op.operands[i]).defined()) tin.push_back(i);
  for (std::size_t j = 0; j < op.results.size(); ++j)
    if (detail::differentiable(f.type(op.results[j]))) tout.push_back(j);
  std::vector<Tensor> operands = p.rp.operands(op);
  std::vector<TensorType> arg_types;
  for (ValueId v : body.args) arg_types.push_back(f.type(v));
  detail::ShardLayout jl = l;  // and the tangents beside the values
  for (std::size_t i : tin) {
    operands.push_back(p.tangent_of(op.operands[i]));
    arg_types.push_back(f.type(body.args[i]));
    jl.in.push_back(l.in[i]);
  }
  std::vector<TensorType> types;
  for (ValueId v : op.results) types.push_back(f.type(v));
  for (std::size_t j : tout) {
    types.push_back(f.type(op.results[j]));
    jl.out.push_back(l.out[j]);
  }
  ir::Region region = p.rp.b.region(arg_types, [&](std::span<const Tensor> a) {
    std::vector<Tensor> tans(n);
    for (std::size_t k = 0; k < tin.size(); ++k) tans[tin[k]] = a[n + k];
    auto [vals, rt] = p.region(body, a.first(n), tans);
    for (std::size_t j : tout) vals.push_back(or_zeros(rt[j], f, body.results[j]));
    return vals;
  });
  const std::vector<Tensor> r = record_shard_map(p.rp, op, jl, operands, types, std::move(region));
  for (std::size_t j = 0; j < op.results.size(); ++j) p.rp.primal[op.results[j]] = r[j];
  for (std::size_t k = 0; k < tout.size(); ++k) p.tangent[op.results[tout[k]]] = r[op.results.size() + k];
}

void shard_map_vjp(VjpPass& p, const Op& op) {
  const Function& f = p.rp.f;
  const Region& body = op.regions[0];
  refuse_captured("vjp", f, op, [&](ValueId v) { return p.is_active(v); });
  const detail::ShardLayout l = layout_of(f, op);
  const std::size_t n = op.operands.size();
  std::vector<std::size_t> ain, sout;  // active operands, seeded results
  std::vector<Tensor> seeds;
  for (std::size_t i = 0; i < n; ++i)
    if (p.is_active(op.operands[i])) ain.push_back(i);
  for (std::size_t j = 0; j < op.results.size(); ++j) {
    seeds.push_back(p.take_ct(op.results[j]));
    if (seeds.back().defined()) sout.push_back(j);
  }
  if (ain.empty() || sout.empty()) return;
  std::vector<Tensor> operands = p.rp.operands(op);
  std::vector<TensorType> arg_types;
  for (ValueId v : body.args) arg_types.push_back(f.type(v));
  // Operands: the values, then the seeded results' cotangents; results: the active
  // operands' cotangents, split as those operands are.
  detail::ShardLayout bl{l.mesh, l.in, {}};
  for (std::size_t j : sout) {
    operands.push_back(seeds[j]);
    arg_types.push_back(f.type(body.results[j]));
    bl.in.push_back(l.out[j]);
  }
  std::vector<TensorType> types;
  std::vector<bool> active(n, false);
  for (std::size_t i : ain) {
    types.push_back(f.type(op.operands[i]));
    bl.out.push_back(l.in[i]);
    active[i] = true;
  }
  ir::Region region = p.rp.b.region(arg_types, [&](std::span<const Tensor> a) {
    std::vector<Tensor> local_seeds(op.results.size());
    for (std::size_t k = 0; k < sout.size(); ++k)
      local_seeds[sout[k]] = on_first_devices(a[n + k], l.mesh, detail::unsplit_axes(l.out[sout[k]], l.mesh));
    const std::vector<Tensor> cts = p.region(body, a.first(n), active, local_seeds, {});
    std::vector<Tensor> res;
    for (std::size_t i : ain)
      res.push_back(
          summed_over(or_zeros(cts[i], f, body.args[i]), l.mesh, detail::unsplit_axes(l.in[i], l.mesh)));
    return res;
  });
  const std::vector<Tensor> r = record_shard_map(p.rp, op, bl, operands, types, std::move(region));
  for (std::size_t k = 0; k < ain.size(); ++k) p.add_ct(op.operands[ain[k]], r[k]);
}

}  // namespace tlaloc::ad
