#include "ops/collective_rules.hpp"

#include <fmt/format.h>

#include "ops/region_rules.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::detail {
namespace {

// The attributes that say who meets: kept by every dual.
Attrs groups(const Attrs& a) {
  Attrs out;
  if (a.has("replica_groups")) out.set("replica_groups", a.get<Tensor>("replica_groups"));
  for (const char* key : {"channel_id", "channel_type"})
    if (a.has(key)) out.set(key, a.get<std::int64_t>(key));
  if (a.has("use_global_device_ids")) out.set("use_global_device_ids", a.get<bool>("use_global_device_ids"));
  return out;
}

void only_sums(const Rule& r, std::string_view op) {
  if (r.body(0) != "add")
    refuse_rule(op, fmt::format("only a summing region has a derivative here, got {}",
                                r.body(0).empty() ? "a longer region" : std::string(r.body(0))));
}

// Each operand's (co)tangent: f of operand i's tangent, or of result i's cotangent
// where operand i wants one (a collective's results match its operands one to one);
// zero where the seed is zero.
template <class F>
std::vector<Tensor> each_tangent(const Rule& r, F f) {
  std::vector<Tensor> out(r.num_in());
  for (std::size_t i = 0; i < out.size(); ++i)
    if (r.has_tangent(i)) out[i] = f(i, r.tangent(i));
  return out;
}
template <class F>
std::vector<Tensor> each_cotangent(const Rule& r, F f) {
  std::vector<Tensor> out(r.num_in());
  for (std::size_t i = 0; i < out.size(); ++i)
    if (r.wants(i) && r.has_cotangent(i)) out[i] = f(i, r.cotangent(i));
  return out;
}

Tensor summed(std::string_view op, const Tensor& t, Attrs attrs) {
  return record_with_body(op, {&t, 1}, attrs, t.dtype(), "add")[0];
}

Tensor gathered(const Tensor& t, const Attrs& from, std::int64_t dim, const Shape& result) {
  Attrs a = groups(from);
  a.set("all_gather_dim", dim);
  a.set("result_shape", result);
  return call1(*find_op("all_gather"), {t}, a);
}

Tensor scattered(const Tensor& t, const Attrs& from, std::int64_t dim, const Shape& result) {
  Attrs a = groups(from);
  a.set("scatter_dimension", dim);
  a.set("result_shape", result);
  return summed("reduce_scatter", t, a);
}

}  // namespace

std::vector<Tensor> all_reduce_jvp(const Rule& r) {
  only_sums(r, "stablehlo.all_reduce");
  const Attrs g = groups(r.attrs());
  return each_tangent(r, [&](std::size_t, const Tensor& t) { return summed("all_reduce", t, g); });
}

std::vector<Tensor> all_reduce_vjp(const Rule& r) {
  only_sums(r, "stablehlo.all_reduce");
  const Attrs g = groups(r.attrs());
  return each_cotangent(r, [&](std::size_t, const Tensor& ct) { return summed("all_reduce", ct, g); });
}

std::vector<Tensor> all_gather_jvp(const Rule& r) {
  const auto dim = r.attr<std::int64_t>("all_gather_dim");
  return each_tangent(
      r, [&](std::size_t i, const Tensor& t) { return gathered(t, r.attrs(), dim, r.out(i).shape()); });
}

std::vector<Tensor> all_gather_vjp(const Rule& r) {
  const auto dim = r.attr<std::int64_t>("all_gather_dim");
  return each_cotangent(
      r, [&](std::size_t i, const Tensor& ct) { return scattered(ct, r.attrs(), dim, r.in(i).shape()); });
}

std::vector<Tensor> reduce_scatter_jvp(const Rule& r) {
  only_sums(r, "stablehlo.reduce_scatter");
  const auto dim = r.attr<std::int64_t>("scatter_dimension");
  return each_tangent(
      r, [&](std::size_t, const Tensor& t) { return scattered(t, r.attrs(), dim, r.out().shape()); });
}

std::vector<Tensor> reduce_scatter_vjp(const Rule& r) {
  only_sums(r, "stablehlo.reduce_scatter");
  const auto dim = r.attr<std::int64_t>("scatter_dimension");
  return each_cotangent(
      r, [&](std::size_t, const Tensor& ct) { return gathered(ct, r.attrs(), dim, r.in(0).shape()); });
}

std::vector<Tensor> all_to_all_jvp(const Rule& r) {
  return each_tangent(r, [&](std::size_t, const Tensor& t) { return call1(*r.op(), {t}, r.attrs()); });
}

std::vector<Tensor> all_to_all_vjp(const Rule& r) {
  Attrs swapped = r.attrs();
  swapped.set("split_dimension", r.attr<std::int64_t>("concat_dimension"));
  swapped.set("concat_dimension", r.attr<std::int64_t>("split_dimension"));
  return each_cotangent(r, [&](std::size_t, const Tensor& ct) { return call1(*r.op(), {ct}, swapped); });
}

std::vector<Tensor> collective_permute_jvp(const Rule& r) {
  return each_tangent(r, [&](std::size_t, const Tensor& t) { return call1(*r.op(), {t}, r.attrs()); });
}

// Pairs (source, target) turned around: what went to a target comes back to its source.
std::vector<Tensor> collective_permute_vjp(const Rule& r) {
  Attrs inverse = r.attrs();
  inverse.set("source_target_pairs", tlaloc::reverse(r.attr<Tensor>("source_target_pairs"), {1}));
  return each_cotangent(r, [&](std::size_t, const Tensor& ct) { return call1(*r.op(), {ct}, inverse); });
}

// collective_broadcast (from the group's first) and a summing collective_reduce (to
// the group's first) are each other's duals. With a channel the two read
// replica_groups differently (partitions within a replica, against replicas with
// their partitions), and a dynamic root is known only at run time: both refused.
void broadcast_dual_applies(const Rule& r, std::string_view op) {
  if (r.attrs().has("channel_id") && r.attr<std::int64_t>("channel_id") > 0)
    refuse_rule(op, "with a channel_handle above 0 it and its dual read replica_groups differently: not yet");
  if (r.attrs().has("has_dynamic_root") && r.attr<bool>("has_dynamic_root"))
    refuse_rule(op, "with has_dynamic_root the root is known only at run time: not yet");
}

Tensor broadcast_from_first(const Tensor& t, const Attrs& from) {
  return call1(*find_op("collective_broadcast"), {t}, groups(from));
}

std::vector<Tensor> collective_broadcast_jvp(const Rule& r) {
  broadcast_dual_applies(r, "stablehlo.collective_broadcast");
  return each_tangent(r, [&](std::size_t, const Tensor& t) { return broadcast_from_first(t, r.attrs()); });
}

std::vector<Tensor> collective_broadcast_vjp(const Rule& r) {
  broadcast_dual_applies(r, "stablehlo.collective_broadcast");
  const Attrs g = groups(r.attrs());
  return each_cotangent(r, [&](std::size_t, const Tensor& ct) { return summed("collective_reduce", ct, g); });
}

std::vector<Tensor> collective_reduce_jvp(const Rule& r) {
  only_sums(r, "stablehlo.collective_reduce");
  broadcast_dual_applies(r, "stablehlo.collective_reduce");
  const Attrs g = groups(r.attrs());
  return each_tangent(r, [&](std::size_t, const Tensor& t) { return summed("collective_reduce", t, g); });
}

std::vector<Tensor> collective_reduce_vjp(const Rule& r) {
  only_sums(r, "stablehlo.collective_reduce");
  broadcast_dual_applies(r, "stablehlo.collective_reduce");
  return each_cotangent(r,
                        [&](std::size_t, const Tensor& ct) { return broadcast_from_first(ct, r.attrs()); });
}

}  // namespace tlaloc::detail
