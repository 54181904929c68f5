// StableHLO's collective ops, run by processes of one program that meet in them
// (ops/processes.hpp): all_reduce, all_gather, reduce_scatter, all_to_all,
// collective_permute, collective_broadcast, collective_reduce, and the ids
// replica_id and partition_id.
// Each combines the values of its group in the group's order, so every process gets
// the same bits on every run. They run under the interpreter's parallel runs
// (interpreter.run_parallel); printed C++ runs one process and refuses them by name.
#include <fmt/format.h>

#include <algorithm>

#include "ops/collective_rules.hpp"
#include "ops/processes.hpp"
#include "ops/region_calls.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::detail {
namespace {

using Kind = StableHloAttr::Kind;

StableHloAttr replica_groups() { return StableHloAttr("replica_groups", Kind::elements).optional(); }
StableHloAttr channel_handle() { return StableHloAttr("channel_handle", Kind::channel_handle).optional(); }
StableHloAttr use_global_device_ids() {
  return StableHloAttr("use_global_device_ids", Kind::unit).optional();
}

// The group of this process; a process in no group is refused.
std::vector<ProcessIndex> group_of(std::string_view op, const Processes& p, const Attrs& attrs,
                                   bool partitions_by_channel) {
  std::vector<ProcessIndex> g = my_group(op, p, attrs, partitions_by_channel);
  if (g.empty())
    fail<ValueError>(op, "process {} (replica {}, partition {}) is in none of its groups", p.self(),
                     p.replica_id(), p.partition_id());
  return g;
}

std::size_t position_in(const std::vector<ProcessIndex>& group, ProcessIndex p) {
  return std::size_t(std::find(group.begin(), group.end(), p) - group.begin());
}

// a and b combined by the reduction region: a whole-tensor kernel where the region is
// one op of its two arguments, else the region once per element.
Tensor combine(std::string_view op, const Tensor& a, const Tensor& b, const RegionCalls& regions) {
  const Tensor pair[] = {a, b};
  const std::string_view body = regions.binary_body(0);
  if (const OpDef* f = body.empty() ? nullptr : find_op(body); f != nullptr && f->has_kernel()) {
    const TensorType types[] = {type_of(a), type_of(b)};
    const std::vector<TensorType> out = f->infer(types, {});
    if (out.size() == 1 && out[0] == types[0]) return f->run(pair, {}, out)[0];
  }
  return map_region(op, pair, type_of(a), regions);
}

// The group's values combined by the reduction region, in the group's order.
Tensor reduce_in(Processes& p, std::string_view op, const std::vector<ProcessIndex>& group, const Tensor& x,
                 const RegionCalls& regions) {
  return p.reduce(op, group, x, [&](const Tensor& a, const Tensor& b) { return combine(op, a, b, regions); });
}

void check_result(std::string_view op, const Tensor& got, const TensorType& declared) {
  if (type_of(got) != declared)
    fail<ShapeError>(op, "gives {}{} for a group of this size, where the program declares {}{}",
                     dtype_name(got.dtype()), shape_string(got.shape()), dtype_name(declared.dtype),
                     shape_string(declared.shape));
}

std::vector<TensorType> same_types(std::span<const TensorType> in, const Attrs&) {
  return {in.begin(), in.end()};
}

// ---- all_reduce, collective_reduce ---------------------------------------------
// all_reduce: every process of the group keeps the result. collective_reduce: only
// the group's first; the others, and a process in no group, get zeros.
enum class Keeps : std::uint8_t { all, first };

OpDef& def_reducing(const char* name, Keeps keeps) {
  const std::string spelled = std::string("stablehlo.") + name;
  return def_op(name)
      .side_effects()
      .result_count([](std::size_t n, const Attrs&) { return n; })
      .shape_rule(same_types)
      .region_kernel(
          1,
          [spelled, keeps](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType>,
                           const RegionCalls& regions) {
            Processes& p = current_processes();
            const std::vector<ProcessIndex> group =
                keeps == Keeps::all ? group_of(spelled, p, attrs, false) : my_group(spelled, p, attrs, false);
            std::vector<Tensor> out;
            for (const Tensor& x : in) {
              if (group.empty()) {
                out.push_back(tlaloc::zeros_like(x));
                continue;
              }
              Tensor r = reduce_in(p, spelled, group, x, regions);
              out.push_back(keeps == Keeps::all || group[0] == p.self() ? r : tlaloc::zeros_like(x));
            }
            return out;
          })
      .stablehlo({spelled, {replica_groups(), channel_handle(), use_global_device_ids()}, ""})
      .cpp(one_process_only(spelled));
}

const OpDef& all_reduce_op = def_reducing("all_reduce", Keeps::all).jvp(all_reduce_jvp).vjp(all_reduce_vjp);
const OpDef& collective_reduce_op =
    def_reducing("collective_reduce", Keeps::first).jvp(collective_reduce_jvp).vjp(collective_reduce_vjp);

// ---- all_gather, reduce_scatter --------------------------------------------------
// The size along the gathered (scattered) dimension is the group's size times (over)
// the operand's, and the group is known only where the program runs: the shape rule
// takes the first result's shape (`result_shape`, from the program's result type or
// set by the rule that records the op), and the kernel checks it against the group.
constexpr std::string_view kAllGather = "stablehlo.all_gather";
constexpr std::string_view kReduceScatter = "stablehlo.reduce_scatter";

std::vector<TensorType> resized_rule(std::string_view op, std::string_view dim_attr,
                                     std::span<const TensorType> in, const Attrs& attrs) {
  if (in.empty()) fail<ValueError>(op, "needs an operand");
  if (!attrs.has("result_shape"))
    fail<ValueError>(op, "needs its result's shape (the group's size is not known)");
  const auto& first = attrs.get<std::vector<std::int64_t>>("result_shape");
  const std::int64_t dim = attrs.get<std::int64_t>(std::string(dim_attr));
  for (const TensorType& t : in)
    if (dim < 0 || dim >= std::int64_t(t.shape.size()))
      fail<AxisError>(op, "{} {} is not an axis of {}", dim_attr, dim, shape_string(t.shape));
  const auto d = std::size_t(dim);
  const Shape& s = in[0].shape;
  bool ok = first.size() == s.size() && s[d] > 0 && first[d] > 0;
  for (std::size_t k = 0; ok && k < s.size(); ++k) ok = k == d || first[k] == s[k];
  const bool gathers = op == kAllGather;
  ok = ok && (gathers ? first[d] % s[d] == 0 : s[d] % first[d] == 0);
  if (!ok)
    fail<ShapeError>(op, "{} {} cannot give {} along {} {}", gathers ? "gathering" : "scattering",
                     shape_string(s), shape_string(first), dim_attr, d);
  std::vector<TensorType> out;
  for (const TensorType& t : in) {
    TensorType r = t;
    r.shape[d] = gathers ? r.shape[d] * (first[d] / s[d]) : r.shape[d] / (s[d] / first[d]);
    out.push_back(r);
  }
  return out;
}

const OpDef& all_gather_op =
    def_op("all_gather")
        .side_effects()
        .result_count([](std::size_t n, const Attrs&) { return n; })
        .shape_rule([](std::span<const TensorType> in, const Attrs& a) {
          return resized_rule(kAllGather, "all_gather_dim", in, a);
        })
        .jvp(all_gather_jvp)
        .vjp(all_gather_vjp)
        .kernel([](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType> out) {
          Processes& p = current_processes();
          const std::vector<ProcessIndex> group = group_of(kAllGather, p, attrs, false);
          const std::int64_t dim = attrs.get<std::int64_t>("all_gather_dim");
          std::vector<Tensor> results;
          for (std::size_t i = 0; i < in.size(); ++i) {  // the shape rule checked dim
            results.push_back(tlaloc::concat(p.exchange(kAllGather, group, in[i]), dim));
            check_result(kAllGather, results.back(), out[i]);
          }
          return results;
        })
        .stablehlo({"stablehlo.all_gather",
                    {StableHloAttr("all_gather_dim", Kind::i64), replica_groups(), channel_handle(),
                     use_global_device_ids(), StableHloAttr("result_shape", Kind::result_shape)},
                    ""})
        .cpp(one_process_only(std::string(kAllGather)));

const OpDef& reduce_scatter_op =
    def_op("reduce_scatter")
        .side_effects()
        .inputs(1)
        .shape_rule([](std::span<const TensorType> in, const Attrs& a) {
          return resized_rule(kReduceScatter, "scatter_dimension", in, a);
        })
        .jvp(reduce_scatter_jvp)
        .vjp(reduce_scatter_vjp)
        .region_kernel(
            1,
            [](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType> out,
               const RegionCalls& regions) {
              Processes& p = current_processes();
              const std::vector<ProcessIndex> group = group_of(kReduceScatter, p, attrs, false);
              const std::int64_t dim = attrs.get<std::int64_t>("scatter_dimension");
              const Tensor& x = in[0];
              if (dim < 0 || dim >= x.rank() || x.shape()[std::size_t(dim)] % std::int64_t(group.size()))
                fail<ShapeError>(kReduceScatter, "scatter_dimension {} of {} does not split in {} parts", dim,
                                 shape_string(x.shape()), group.size());
              const Tensor sum = reduce_in(p, kReduceScatter, group, x, regions);
              Tensor mine = tlaloc::split(sum, std::int64_t(group.size()), dim)[position_in(group, p.self())];
              check_result(kReduceScatter, mine, out[0]);
              return std::vector<Tensor>{mine};
            })
        .stablehlo({"stablehlo.reduce_scatter",
                    {StableHloAttr("scatter_dimension", Kind::i64), replica_groups(), channel_handle(),
                     use_global_device_ids(), StableHloAttr("result_shape", Kind::result_shape)},
                    ""})
        .cpp(one_process_only(std::string(kReduceScatter)));

// ---- all_to_all -----------------------------------------------------------------
constexpr std::string_view kAllToAll = "stablehlo.all_to_all";

std::vector<TensorType> all_to_all_rule(std::span<const TensorType> in, const Attrs& attrs) {
  const std::int64_t split = attrs.get<std::int64_t>("split_dimension");
  const std::int64_t concat = attrs.get<std::int64_t>("concat_dimension");
  const std::int64_t count = attrs.get<std::int64_t>("split_count");
  std::vector<TensorType> out;
  for (const TensorType& t : in) {
    const auto rank = std::int64_t(t.shape.size());
    if (split < 0 || split >= rank || concat < 0 || concat >= rank)
      fail<AxisError>(kAllToAll, "split_dimension {} and concat_dimension {} must be axes of {}", split,
                      concat, shape_string(t.shape));
    if (count < 1 || t.shape[std::size_t(split)] % count != 0)
      fail<ShapeError>(kAllToAll, "split_dimension {} of {} does not split in split_count {} parts", split,
                       shape_string(t.shape), count);
    TensorType r = t;
    r.shape[std::size_t(split)] /= count;
    r.shape[std::size_t(concat)] *= count;
    out.push_back(r);
  }
  return out;
}

const OpDef& all_to_all_op =
    def_op("all_to_all")
        .side_effects()
        .result_count([](std::size_t n, const Attrs&) { return n; })
        .shape_rule(all_to_all_rule)
        .jvp(all_to_all_jvp)
        .vjp(all_to_all_vjp)
        .kernel([](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType>) {
          Processes& p = current_processes();
          const std::vector<ProcessIndex> group = group_of(kAllToAll, p, attrs, true);
          const std::int64_t count = attrs.get<std::int64_t>("split_count");
          if (std::int64_t(group.size()) != count)
            fail<ValueError>(kAllToAll, "split_count is {} for a group of {} processes", count, group.size());
          const std::size_t me = position_in(group, p.self());
          std::vector<Tensor> results;
          for (const Tensor& x : in) {
            std::vector<Tensor> parts;
            for (const Tensor& v : p.exchange(kAllToAll, group, x))
              parts.push_back(tlaloc::split(v, count, attrs.get<std::int64_t>("split_dimension"))[me]);
            results.push_back(tlaloc::concat(parts, attrs.get<std::int64_t>("concat_dimension")));
          }
          return results;
        })
        .stablehlo(
            {"stablehlo.all_to_all",
             {StableHloAttr("split_dimension", Kind::i64), StableHloAttr("concat_dimension", Kind::i64),
              StableHloAttr("split_count", Kind::i64), replica_groups(), channel_handle()},
             ""})
        .cpp(one_process_only(std::string(kAllToAll)));

// ---- collective_permute ---------------------------------------------------------
// Pairs (source, target) of replica ids (channel_id <= 0, within each partition) or of
// partition ids (within each replica). A process no pair targets gets zeros.
constexpr std::string_view kPermute = "stablehlo.collective_permute";

const OpDef& collective_permute_op =
    def_op("collective_permute")
        .side_effects()
        .inputs(1)
        .shape_rule(same_types)
        .jvp(collective_permute_jvp)
        .vjp(collective_permute_vjp)
        .kernel([](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType>) {
          Processes& p = current_processes();
          const bool by_partition = group_mode(kPermute, attrs, true) == GroupMode::cross_partition;
          const std::int64_t ids = by_partition ? p.num_partitions() : p.num_replicas();
          const std::int64_t mine = by_partition ? p.partition_id() : p.replica_id();
          std::vector<ProcessIndex> all;  // every process of this partition (replica), by id
          for (std::int64_t id = 0; id < ids; ++id)
            all.push_back(by_partition ? p.replica_id() * p.num_partitions() + id
                                       : id * p.num_partitions() + p.partition_id());
          const Tensor& pairs = attrs.get<Tensor>("source_target_pairs");
          if (pairs.rank() != 2 || pairs.shape()[1] != 2)
            fail<ShapeError>(kPermute, "source_target_pairs must be N x 2, got {}",
                             shape_string(pairs.shape()));
          const std::vector<std::int64_t> v = pairs.to_vector<std::int64_t>();
          std::int64_t source = -1;
          std::vector<bool> sources(std::size_t(ids), false), targets(std::size_t(ids), false);
          for (std::size_t k = 0; k + 1 < v.size(); k += 2) {
            if (v[k] < 0 || v[k] >= ids || v[k + 1] < 0 || v[k + 1] >= ids)
              fail<ValueError>(kPermute, "source_target_pairs names ({}, {}), not ids below {}", v[k],
                               v[k + 1], ids);
            if (sources[std::size_t(v[k])] || targets[std::size_t(v[k + 1])])
              fail<ValueError>(kPermute, "source_target_pairs repeats a source or a target: ({}, {})", v[k],
                               v[k + 1]);
            sources[std::size_t(v[k])] = targets[std::size_t(v[k + 1])] = true;
            if (v[k + 1] == mine) source = v[k];
          }
          const std::vector<Tensor> values = p.exchange(kPermute, all, in[0]);
          return std::vector<Tensor>{source < 0 ? tlaloc::zeros_like(in[0]) : values[std::size_t(source)]};
        })
        .stablehlo({"stablehlo.collective_permute",
                    {StableHloAttr("source_target_pairs", Kind::elements), channel_handle()},
                    ""})
        .cpp(one_process_only(std::string(kPermute)));

// ---- collective_broadcast -------------------------------------------------------
// Each operand comes from the first process of the group, or with has_dynamic_root
// from the process a last operand (i32, one entry per data operand) names by its
// place in the group. A process in no group gets zeros.
constexpr std::string_view kBroadcast = "stablehlo.collective_broadcast";

bool dynamic_root(const Attrs& attrs) {
  return attrs.has("has_dynamic_root") && attrs.get<bool>("has_dynamic_root");
}

std::vector<TensorType> broadcast_rule(std::span<const TensorType> in, const Attrs& attrs) {
  const std::size_t data = in.size() - (dynamic_root(attrs) ? 1 : 0);
  if (in.empty() || data == 0) fail<ValueError>(kBroadcast, "needs an operand to send");
  if (dynamic_root(attrs) && (in.back().shape != Shape{std::int64_t(data)} || in.back().dtype != DType::i32))
    fail<ShapeError>(kBroadcast,
                     "with has_dynamic_root, the last operand is i32[{}] (a root per operand), got {}{}",
                     data, dtype_name(in.back().dtype), shape_string(in.back().shape));
  return {in.begin(), in.begin() + std::ptrdiff_t(data)};
}

const OpDef& collective_broadcast_op =
    def_op("collective_broadcast")
        .side_effects()
        .result_count([](std::size_t n, const Attrs& a) { return n - (dynamic_root(a) ? 1 : 0); })
        .shape_rule(broadcast_rule)
        .kernel([](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType>) {
          Processes& p = current_processes();
          const std::vector<ProcessIndex> group = my_group(kBroadcast, p, attrs, true);
          const std::size_t data = in.size() - (dynamic_root(attrs) ? 1 : 0);
          const std::vector<std::int64_t> roots =
              dynamic_root(attrs) ? in.back().to_vector<std::int64_t>() : std::vector<std::int64_t>(data, 0);
          std::vector<Tensor> out;
          for (std::size_t i = 0; i < data; ++i) {
            if (group.empty()) {
              out.push_back(tlaloc::zeros_like(in[i]));
              continue;
            }
            if (roots[i] < 0 || roots[i] >= std::int64_t(group.size()))
              fail<ValueError>(kBroadcast, "root {} is not a place in the group {}", roots[i], group);
            out.push_back(p.exchange(kBroadcast, group, in[i]).at(std::size_t(roots[i])));
          }
          return out;
        })
        .stablehlo(
            {"stablehlo.collective_broadcast",
             {replica_groups(), channel_handle(), StableHloAttr("has_dynamic_root", Kind::unit).optional()},
             ""})
        .jvp(collective_broadcast_jvp)
        .vjp(collective_broadcast_vjp)
        .cpp(one_process_only(std::string(kBroadcast)));

// ---- replica_id, partition_id ---------------------------------------------------
OpDef& def_id(const char* name, std::int64_t (Processes::*id)() const) {
  const std::string spelled = std::string("stablehlo.") + name;
  return def_op(name)
      .inputs(0)
      .no_derivative()
      .side_effects()  // differs between processes: never merged with a value computed elsewhere
      .shape_rule([](std::span<const TensorType>, const Attrs&) {
        return std::vector<TensorType>{{DType::u32, {}}};
      })
      .kernel([spelled, id](std::span<const Tensor>, const Attrs&, std::span<const TensorType>) {
        const Processes& p = current_processes();
        return std::vector<Tensor>{scalar_tensor(Scalar(std::int64_t((p.*id)())), DType::u32)};
      })
      .stablehlo({spelled, {}, "keywords"})
      .cpp(one_process_only(spelled));
}

const OpDef& replica_id_op = def_id("replica_id", &Processes::replica_id);
const OpDef& partition_id_op = def_id("partition_id", &Processes::partition_id);

// ---- interpreter.run_parallel ---------------------------------------------------
// The reference interpreter's way to run several processes in one test: `programs`
// names each process's function, one row per replica (src/interp/parallel.hpp);
// `infeed` names functions whose results, in order, the processes' infeed ops take.
const OpDef& run_parallel_op = def_op("run_parallel")
                                   .side_effects()
                                   .calls(OpDef::Calls::parallel, "programs")
                                   .takes_tokens()
                                   .stablehlo({"interpreter.run_parallel",
                                               {StableHloAttr("infeed", Kind::symbol_list).optional(),
                                                StableHloAttr("programs", Kind::symbol_grid)},
                                               ""})
                                   .cpp(one_process_only("interpreter.run_parallel"));

}  // namespace
}  // namespace tlaloc::detail
