// Derivatives of the ops with regions. Regions use values of enclosing regions
// directly, so the transformed regions are built in place: a JVP region replays the
// original one with tangents beside it; a VJP region recomputes the original one
// and walks it backward (the forward values of a branch or loop step are
// recomputed, not stored, except for scan's carries, which are stacked).
#include <fmt/format.h>

#include "ad/custom.hpp"
#include "ad/modes.hpp"
#include "ops/rule.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::ad {
namespace {

bool floating(const Function& f, ValueId v) { return detail::differentiable(f.type(v)); }

std::vector<TensorType> types_of(const Function& f, std::span<const ValueId> vs) {
  std::vector<TensorType> t;
  for (ValueId v : vs) t.push_back(f.type(v));
  return t;
}

// ---- forward mode -----------------------------------------------------------------

// if and case: every floating result of a branch gets a tangent.
void if_jvp(JvpPass& p, const Op& op) {
  const Function& f = p.rp.f;
  std::vector<ValueId> tangent_results;
  for (ValueId v : op.results)
    if (floating(f, v)) tangent_results.push_back(v);
  std::vector<ir::Region> regions;
  for (const Region& r : op.regions)
    regions.push_back(p.rp.b.region({}, [&](std::span<const Tensor>) {
      auto [vals, tans] = p.region(r, {}, {});
      for (std::size_t i = 0; i < r.results.size(); ++i)
        if (floating(f, op.results[i])) vals.push_back(or_zeros(tans[i], f, op.results[i]));
      return vals;
    }));
  std::vector<TensorType> types = types_of(f, op.results);
  for (const TensorType& t : types_of(f, tangent_results)) types.push_back(t);
  const std::vector<Tensor> out =
      p.rp.b.record(*op.def, p.rp.operands(op), op.attrs, std::move(types), std::move(regions));
  for (std::size_t i = 0; i < op.results.size(); ++i) p.rp.primal[op.results[i]] = out[i];
  for (std::size_t i = 0; i < tangent_results.size(); ++i) p.tangent[tangent_results[i]] = out[op.results.size() + i];
}

// Loops carry a tangent beside every floating carried value (zero where it starts
// at zero: a later iteration may make it nonzero). while_stacked (a while loop's
// forward pass in reverse mode) also stacks each iteration's carry: the tangents'
// stacks come out beside the values' stacks.
void while_jvp(JvpPass& p, const Op& op) {
  const Function& f = p.rp.f;
  const Region &cond = op.regions[0], &body = op.regions[1];
  const bool stacked = op.name() == "while_stacked";
  const std::size_t n = op.operands.size();
  std::vector<std::size_t> tc;  // carries with tangents
  for (std::size_t i = 0; i < n; ++i)
    if (floating(f, op.operands[i])) tc.push_back(i);
  std::vector<Tensor> operands = p.rp.operands(op);
  std::vector<TensorType> carry_types = types_of(f, std::span<const ValueId>(op.results).first(n));
  for (std::size_t i : tc) {
    operands.push_back(or_zeros(p.tangent_of(op.operands[i]), f, op.operands[i]));
    carry_types.push_back(f.type(op.results[i]));
  }
  std::vector<TensorType> types = carry_types;
  if (stacked)
    for (TensorType t : carry_types) {
      t.shape.insert(t.shape.begin(), ir::kDynamic);
      types.push_back(t);
    }
  std::vector<ir::Region> regions;
  regions.push_back(p.rp.b.region(carry_types, [&](std::span<const Tensor> a) {
    return p.rp.inline_region(cond, a.first(n));
  }));
  regions.push_back(p.rp.b.region(carry_types, [&](std::span<const Tensor> a) {
    std::vector<Tensor> t(n);
    for (std::size_t k = 0; k < tc.size(); ++k) t[tc[k]] = a[n + k];
    auto [vals, tans] = p.region(body, a.first(n), t);
    for (std::size_t i : tc) vals.push_back(or_zeros(tans[i], f, body.results[i]));
    return vals;
  }));
  const std::vector<Tensor> out = p.rp.b.record(*op.def, operands, op.attrs, std::move(types), std::move(regions));
  const std::size_t m = n + tc.size();  // carried values of the new loop
  for (std::size_t i = 0; i < n; ++i) p.rp.primal[op.results[i]] = out[i];
  for (std::size_t k = 0; k < tc.size(); ++k) p.tangent[op.results[tc[k]]] = out[n + k];
  if (stacked) {
    for (std::size_t i = 0; i < n; ++i) p.rp.primal[op.results[n + i]] = out[m + i];
    for (std::size_t k = 0; k < tc.size(); ++k) p.tangent[op.results[n + tc[k]]] = out[m + n + k];
  }
}

void scan_jvp(JvpPass& p, const Op& op) {
  const Function& f = p.rp.f;
  const Region& body = op.regions[0];
  const auto nc = std::size_t(op.attrs.get<std::int64_t>("num_carry"));
  const std::size_t nx = op.operands.size() - nc, ny = op.results.size() - nc;
  std::vector<std::size_t> tc, tx, ty;  // carries, sequences and ys with tangents
  for (std::size_t i = 0; i < nc; ++i)
    if (floating(f, op.operands[i])) tc.push_back(i);
  for (std::size_t i = 0; i < nx; ++i)
    if (p.tangent_of(op.operands[nc + i]).defined()) tx.push_back(i);
  for (std::size_t i = 0; i < ny; ++i)
    if (floating(f, op.results[nc + i])) ty.push_back(i);
  // New operands: carries, carry tangents, sequences, sequence tangents.
  std::vector<Tensor> all = p.rp.operands(op), operands(all.begin(), all.begin() + std::ptrdiff_t(nc));
  std::vector<TensorType> arg_types = types_of(f, body.args);
  std::vector<TensorType> region_args(arg_types.begin(), arg_types.begin() + std::ptrdiff_t(nc));
  for (std::size_t i : tc) {
    operands.push_back(or_zeros(p.tangent_of(op.operands[i]), f, op.operands[i]));
    region_args.push_back(arg_types[i]);
  }
  for (std::size_t i = 0; i < nx; ++i) {
    operands.push_back(all[nc + i]);
    region_args.push_back(arg_types[nc + i]);
  }
  for (std::size_t i : tx) {
    operands.push_back(p.tangent_of(op.operands[nc + i]));
    region_args.push_back(arg_types[nc + i]);
  }
  std::vector<ir::Region> regions;
  regions.push_back(p.rp.b.region(region_args, [&](std::span<const Tensor> a) {
    std::vector<Tensor> vals(a.begin(), a.begin() + std::ptrdiff_t(nc)), tans(nc + nx);
    for (std::size_t k = 0; k < tc.size(); ++k) tans[tc[k]] = a[nc + k];
    for (std::size_t i = 0; i < nx; ++i) vals.push_back(a[nc + tc.size() + i]);
    for (std::size_t k = 0; k < tx.size(); ++k) tans[nc + tx[k]] = a[nc + tc.size() + nx + k];
    auto [res, rt] = p.region(body, vals, tans);
    std::vector<Tensor> out(res.begin(), res.begin() + std::ptrdiff_t(nc));
    for (std::size_t i : tc) out.push_back(or_zeros(rt[i], f, body.results[i]));
    for (std::size_t i = 0; i < ny; ++i) out.push_back(res[nc + i]);
    for (std::size_t i : ty) out.push_back(or_zeros(rt[nc + i], f, body.results[nc + i]));
    return out;
  }));
  std::vector<TensorType> types = types_of(f, std::span<const ValueId>(op.results).first(nc));
  for (std::size_t i : tc) types.push_back(f.type(op.results[i]));
  for (std::size_t i = 0; i < ny; ++i) types.push_back(f.type(op.results[nc + i]));
  for (std::size_t i : ty) types.push_back(f.type(op.results[nc + i]));
  detail::Attrs attrs = op.attrs;
  attrs.set("num_carry", std::int64_t(nc + tc.size()));
  const std::vector<Tensor> out = p.rp.b.record(*op.def, operands, attrs, std::move(types), std::move(regions));
  std::size_t k = 0;
  for (std::size_t i = 0; i < nc; ++i) p.rp.primal[op.results[i]] = out[k++];
  for (std::size_t i : tc) p.tangent[op.results[i]] = out[k++];
  for (std::size_t i = 0; i < ny; ++i) p.rp.primal[op.results[nc + i]] = out[k++];
  for (std::size_t i : ty) p.tangent[op.results[nc + i]] = out[k++];
}

// ---- reverse mode -------------------------------------------------------------------

std::vector<ValueId> active_free(const VjpPass& p, const Op& op) {
  std::vector<ValueId> out;
  for (ValueId v : ir::free_values(op))
    if (p.is_active(v)) out.push_back(v);
  return out;
}

// if and case: each branch's backward pass gives the cotangents of what the
// branches capture.
void if_vjp(VjpPass& p, const Op& op) {
  const Function& f = p.rp.f;
  const std::vector<ValueId> free = active_free(p, op);
  std::vector<Tensor> seeds;
  for (ValueId v : op.results) seeds.push_back(p.take_ct(v));
  std::vector<ir::Region> regions;
  for (const Region& r : op.regions)
    regions.push_back(p.rp.b.region({}, [&](std::span<const Tensor>) {
      std::vector<Tensor> cts = p.region(r, {}, {}, seeds, free);
      for (std::size_t i = 0; i < free.size(); ++i) cts[i] = or_zeros(cts[i], f, free[i]);
      return cts;
    }));
  const std::vector<Tensor> out =
      p.rp.b.record(*op.def, p.rp.operands(op), {}, types_of(f, free), std::move(regions));
  for (std::size_t i = 0; i < free.size(); ++i) p.add_ct(free[i], out[i]);
}

// Forward: the scan also returns every step's incoming carry (the residuals).
void scan_vjp_forward(VjpPass& p, const Op& op) {
  const Function& f = p.rp.f;
  const Region& body = op.regions[0];
  const auto nc = std::size_t(op.attrs.get<std::int64_t>("num_carry"));
  const auto length = op.attrs.get<std::int64_t>("length");
  std::vector<ir::Region> regions;
  regions.push_back(p.rp.b.region(types_of(f, body.args), [&](std::span<const Tensor> a) {
    std::vector<Tensor> res = p.rp.inline_region(body, a);
    res.insert(res.end(), a.begin(), a.begin() + std::ptrdiff_t(nc));
    return res;
  }));
  std::vector<TensorType> types = types_of(f, op.results);
  for (std::size_t i = 0; i < nc; ++i) {
    TensorType t = f.type(op.operands[i]);
    t.shape.insert(t.shape.begin(), length);
    types.push_back(t);
  }
  const std::vector<Tensor> out = p.rp.b.record(*op.def, p.rp.operands(op), op.attrs, std::move(types), std::move(regions));
  for (std::size_t i = 0; i < op.results.size(); ++i) p.rp.primal[op.results[i]] = out[i];
  p.saved[&op] = std::vector<Tensor>(out.begin() + std::ptrdiff_t(op.results.size()), out.end());
}

// Backward: a scan the other way over (stacked carries, xs, ys' cotangents) that
// carries the carries' cotangents and sums the captured values' cotangents.
void scan_vjp_backward(VjpPass& p, const Op& op) {
  const Function& f = p.rp.f;
  const Region& body = op.regions[0];
  const auto nc = std::size_t(op.attrs.get<std::int64_t>("num_carry"));
  const std::size_t nx = op.operands.size() - nc, ny = op.results.size() - nc;
  const std::vector<ValueId> free = active_free(p, op);
  const std::vector<Tensor>& stacks = p.saved.at(&op);
  std::vector<std::size_t> fc, dy;  // floating carries; ys with cotangents
  for (std::size_t i = 0; i < nc; ++i)
    if (floating(f, op.operands[i])) fc.push_back(i);
  std::vector<Tensor> y_cts(ny);
  for (std::size_t i = 0; i < ny; ++i) {
    y_cts[i] = p.take_ct(op.results[nc + i]);
    if (y_cts[i].defined()) dy.push_back(i);
  }
  std::vector<Tensor> operands;
  std::vector<TensorType> args;
  for (std::size_t i : fc) {
    operands.push_back(or_zeros(p.take_ct(op.results[i]), f, op.results[i]));
    args.push_back(f.type(op.results[i]));
  }
  for (ValueId v : free) {
    operands.push_back(zeros_of(f.type(v)));
    args.push_back(f.type(v));
  }
  const std::size_t n_carry = operands.size();
  for (std::size_t i = 0; i < nc; ++i) {
    operands.push_back(stacks[i]);
    args.push_back(f.type(body.args[i]));
  }
  for (std::size_t i = 0; i < nx; ++i) {
    operands.push_back(p.rp.at(op.operands[nc + i]));
    args.push_back(f.type(body.args[nc + i]));
  }
  for (std::size_t i : dy) {
    operands.push_back(y_cts[i]);
    args.push_back(f.type(body.results[nc + i]));
  }
  std::vector<bool> active_args(nc + nx);
  for (std::size_t i = 0; i < nc + nx; ++i) active_args[i] = floating(f, body.args[i]);
  std::vector<std::size_t> ax;  // sequences that get cotangents
  for (std::size_t i = 0; i < nx; ++i)
    if (p.is_active(op.operands[nc + i])) ax.push_back(i);
  std::vector<ir::Region> regions;
  regions.push_back(p.rp.b.region(args, [&](std::span<const Tensor> a) {
    std::vector<Tensor> seeds(nc + ny);
    for (std::size_t k = 0; k < fc.size(); ++k) seeds[fc[k]] = a[k];
    const std::size_t base = n_carry;
    for (std::size_t k = 0; k < dy.size(); ++k) seeds[nc + dy[k]] = a[base + nc + nx + k];
    const std::vector<Tensor> primal(a.begin() + std::ptrdiff_t(base), a.begin() + std::ptrdiff_t(base + nc + nx));
    const std::vector<Tensor> cts = p.region(body, primal, active_args, seeds, free);
    std::vector<Tensor> out;
    for (std::size_t i : fc) out.push_back(or_zeros(cts[i], f, body.args[i]));
    for (std::size_t k = 0; k < free.size(); ++k)
      out.push_back(detail::add_tangents(a[fc.size() + k], cts[nc + nx + k]));
    for (std::size_t i : ax) out.push_back(or_zeros(cts[nc + i], f, body.args[nc + i]));
    return out;
  }));
  std::vector<TensorType> types(args.begin(), args.begin() + std::ptrdiff_t(n_carry));
  for (std::size_t i : ax) types.push_back(f.type(op.operands[nc + i]));
  detail::Attrs attrs = op.attrs;
  attrs.set("num_carry", std::int64_t(n_carry));
  attrs.set("reverse", !op.attrs.get<bool>("reverse"));
  const std::vector<Tensor> out = p.rp.b.record(*op.def, operands, attrs, std::move(types), std::move(regions));
  for (std::size_t k = 0; k < fc.size(); ++k) p.add_ct(op.operands[fc[k]], out[k]);
  for (std::size_t k = 0; k < free.size(); ++k) p.add_ct(free[k], out[fc.size() + k]);
  for (std::size_t k = 0; k < ax.size(); ++k) p.add_ct(op.operands[nc + ax[k]], out[n_carry + k]);
}

// Forward: while_stacked, the same loop also returning every iteration's incoming
// carry (a leading axis of the trip count, known only at run time).
void while_vjp_forward(VjpPass& p, const Op& op) {
  const Function& f = p.rp.f;
  std::vector<ir::Region> regions;
  for (const Region& r : op.regions) regions.push_back(p.rp.clone(r));
  std::vector<TensorType> types = types_of(f, op.results);
  for (ValueId v : op.operands) {
    TensorType t = f.type(v);
    t.shape.insert(t.shape.begin(), ir::kDynamic);
    types.push_back(t);
  }
  const std::vector<Tensor> out = p.rp.b.record(*detail::find_op("while_stacked"), p.rp.operands(op), {},
                                                std::move(types), std::move(regions));
  for (std::size_t i = 0; i < op.results.size(); ++i) p.rp.primal[op.results[i]] = out[i];
  p.saved[&op] = std::vector<Tensor>(out.begin() + std::ptrdiff_t(op.results.size()), out.end());
}

// Backward: a while loop from the last iteration to the first, each step reading
// that iteration's carry from the stacks and walking the body backward.
void while_vjp_backward(VjpPass& p, const Op& op) {
  const Function& f = p.rp.f;
  const Region& body = op.regions[1];
  const std::size_t n = op.operands.size();
  const std::vector<ValueId> free = active_free(p, op);
  const std::vector<Tensor>& stacks = p.saved.at(&op);
  std::vector<std::size_t> fc;
  for (std::size_t i = 0; i < n; ++i)
    if (floating(f, op.operands[i])) fc.push_back(i);
  const detail::OpDef& size_op = *detail::find_op("get_dimension_size");
  const Tensor trips = detail::call1(size_op, {stacks.at(0)}, {{"dimension", std::int64_t(0)}}).astype(DType::i64);
  std::vector<Tensor> state{trips - 1};
  for (std::size_t i : fc) state.push_back(or_zeros(p.take_ct(op.results[i]), f, op.results[i]));
  for (ValueId v : free) state.push_back(zeros_of(f.type(v)));
  std::vector<TensorType> types;
  for (const Tensor& t : state) types.push_back(detail::type_of(t));
  std::vector<bool> active_args(n);
  for (std::size_t i = 0; i < n; ++i) active_args[i] = floating(f, body.args[i]);
  const detail::OpDef& slice_op = *detail::find_op("dynamic_slice");
  std::vector<ir::Region> regions;
  regions.push_back(p.rp.b.region(types, [&](std::span<const Tensor> a) { return std::vector<Tensor>{a[0] >= 0}; }));
  regions.push_back(p.rp.b.region(types, [&](std::span<const Tensor> a) {
    std::vector<Tensor> carry;
    for (std::size_t i = 0; i < n; ++i) {
      Shape size = f.type(body.args[i]).shape;
      std::vector<Tensor> operands{stacks[i], a[0]};
      for (std::size_t d = 0; d < size.size(); ++d) operands.push_back(scalar_tensor(0, DType::i64));
      size.insert(size.begin(), 1);
      // Recorded with its type given: the stack's leading size is known only at run time.
      const Tensor row =
          p.rp.b.record(slice_op, operands, {{"slice_sizes", size}}, {{f.type(body.args[i]).dtype, size}}).at(0);
      carry.push_back(reshape(row, f.type(body.args[i]).shape));
    }
    std::vector<Tensor> seeds(n);
    for (std::size_t k = 0; k < fc.size(); ++k) seeds[fc[k]] = a[1 + k];
    const std::vector<Tensor> cts = p.region(body, carry, active_args, seeds, free);
    std::vector<Tensor> next{a[0] - 1};
    for (std::size_t i : fc) next.push_back(or_zeros(cts[i], f, body.args[i]));
    for (std::size_t k = 0; k < free.size(); ++k) next.push_back(detail::add_tangents(a[1 + fc.size() + k], cts[n + k]));
    return next;
  }));
  const std::vector<Tensor> out = p.rp.b.record(*op.def, state, {}, types, std::move(regions));
  for (std::size_t k = 0; k < fc.size(); ++k) p.add_ct(op.operands[fc[k]], out[1 + k]);
  for (std::size_t k = 0; k < free.size(); ++k) p.add_ct(free[k], out[1 + fc.size() + k]);
}

}  // namespace

Tensor or_zeros(const Tensor& t, const Function& f, ValueId v) {
  return t.defined() ? t : zeros_of(f.type(v));
}

bool control_jvp(JvpPass& p, const Op& op) {
  const std::string& n = op.name();
  if (n == "if" || n == "case") return if_jvp(p, op), true;
  if (n == "while" || n == "while_stacked") return while_jvp(p, op), true;
  if (n == "scan") return scan_jvp(p, op), true;
  if (n == "custom_rule") return custom_jvp_step(p, op), true;
  if (n == "shard_map") return shard_map_jvp(p, op), true;
  return false;
}

bool control_vjp_forward(VjpPass& p, const Op& op) {
  if (op.name() == "scan") return scan_vjp_forward(p, op), true;
  if (op.name() == "custom_rule") return custom_vjp_forward(p, op), true;
  if (op.name() == "while") return while_vjp_forward(p, op), true;
  return false;
}

bool control_vjp_backward(VjpPass& p, const Op& op) {
  const std::string& n = op.name();
  if (n == "if" || n == "case") return if_vjp(p, op), true;
  if (n == "scan") return scan_vjp_backward(p, op), true;
  if (n == "custom_rule") return custom_vjp_backward(p, op), true;
  if (n == "while") return while_vjp_backward(p, op), true;
  if (n == "shard_map") return shard_map_vjp(p, op), true;
  return false;
}

}  // namespace tlaloc::ad
