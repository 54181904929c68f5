// shard_map: a function of one device's parts, run on every device of a mesh (the
// processes of a 1 x devices grid, ops/mesh.hpp), its results put together
// (include/tlaloc/sharding.hpp). The op carries the function as its region; its
// derivatives are shard_maps of the region's derivatives (src/ad/shard_map.cpp).
#include <fmt/format.h>

#include "ops/mesh.hpp"
#include "ops/processes.hpp"
#include "ops/spmd.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::detail {
namespace {

constexpr std::string_view kName = "shard_map";

std::vector<std::size_t> ranks_of(std::span<const Tensor> ts) {
  std::vector<std::size_t> r;
  for (const Tensor& t : ts) r.push_back(std::size_t(t.rank()));
  return r;
}
std::vector<std::size_t> ranks_of(std::span<const TensorType> ts) {
  std::vector<std::size_t> r;
  for (const TensorType& t : ts) r.push_back(t.shape.size());
  return r;
}

// A result split over no axis is the same on every device (the out spec says so).
bool same_on_all(const SplitDims& dims, const MeshShape& mesh) {
  return unsplit_axes(dims, mesh).size() == mesh.sizes().size();
}

// Result j of every device put together by its sharding: the parts along split
// dimensions, the first device's along the axes the result is whole on. A result
// split nowhere is device 0's part itself.
Tensor assemble(const std::vector<std::vector<Tensor>>& results, std::size_t j, const TensorType& want,
                const SplitDims& dims, const MeshShape& mesh) {
  const Shape local = local_shape(want.shape, dims, mesh);
  const auto part_of = [&](std::int64_t d) -> const Tensor& {
    const Tensor& part = results[std::size_t(d)].at(j);
    if (part.dtype() != want.dtype || part.shape() != local)
      fail<ShapeError>(kName, "device {} gives result {} as {}{} where {}{} was declared", d, j,
                       dtype_name(part.dtype()), shape_string(part.shape()), dtype_name(want.dtype),
                       shape_string(local));
    return part;
  };
  if (same_on_all(dims, mesh)) return part_of(0);
  return join_tiles(sharding_of(dims, mesh), part_of);
}

// Lowered as XLA's SPMD programs write a shard_map (docs/DISTRIBUTED.md, "Lowering"):
// each operand said split by its spec (@Sharding) and cut to the device's tile
// (@SPMDFullToShardShape, manual), the function inlined, each result said manual and
// put together by its spec (@SPMDShardToFullShape).
std::vector<Tensor> lower_shard_map(std::span<const Tensor> in, const Attrs& attrs,
                                    const RegionInliner& inline_region) {
  const OpDef& custom_call = *find_op("custom_call");
  const auto mark = [&](const Tensor& x, std::string_view target, const HloSharding& s, const Shape& shape,
                        const HloSharding* operand = nullptr) {
    Attrs a{{"call_target_name", std::string(target)}, {"mhlo.sharding", s.text()}};
    if (operand != nullptr) a.set(std::string(kOperandSharding), operand->text());
    return call_declared(custom_call, {{x}}, a, {TensorType{x.dtype(), shape}})[0];
  };
  const HloSharding manual{.kind = HloSharding::Kind::manual, .tiles = {}, .copies = 1, .devices = {}};
  const ShardLayout operands = ShardLayout::of_operands(attrs, ranks_of(in));
  std::vector<Tensor> parts;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const HloSharding s = sharding_of(operands.in[i], operands.mesh);
    parts.push_back(mark(mark(in[i], kShardingTarget, s, in[i].shape()), kFullToShardTarget, manual,
                         local_shape(in[i].shape(), operands.in[i], operands.mesh), &s));
  }
  const std::vector<Tensor> results = inline_region(0, parts);
  const ShardLayout l = ShardLayout::of(attrs, ranks_of(in), ranks_of(results));
  std::vector<Tensor> whole;
  for (std::size_t j = 0; j < results.size(); ++j) {
    const Tensor& r = results[j];
    whole.push_back(mark(mark(r, kShardingTarget, manual, r.shape()), kShardToFullTarget,
                         sharding_of(l.out[j], l.mesh), global_shape(r.shape(), l.out[j], l.mesh)));
  }
  return whole;
}

const OpDef& shard_map_op =
    def_op("shard_map")
        // No shape rule: the results' types come from the region, which the builder traced.
        .region_kernel(1,
                       [](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType> out,
                          const RegionCalls& regions) {
                         const ShardLayout l = ShardLayout::of(attrs, ranks_of(in), ranks_of(out));
                         std::vector<std::vector<Tensor>> parts(std::size_t(l.mesh.size()));
                         for (std::int64_t d = 0; d < l.mesh.size(); ++d) {
                           const std::vector<std::int64_t> c = l.mesh.coords(d);
                           for (std::size_t i = 0; i < in.size(); ++i)
                             parts[std::size_t(d)].push_back(shard_of(in[i], l.in[i], l.mesh, c));
                         }
                         std::vector<bool> same;
                         for (const SplitDims& d : l.out) same.push_back(same_on_all(d, l.mesh));
                         const std::vector<std::vector<Tensor>> results =
                             regions.call_as_processes(0, parts, same);
                         std::vector<Tensor> whole;
                         for (std::size_t j = 0; j < out.size(); ++j)
                           whole.push_back(assemble(results, j, out[j], l.out[j], l.mesh));
                         return whole;
                       })
        .lower_with_regions(lower_shard_map)
        .lowers_to_partitions([](const Attrs& attrs) { return ShardLayout::mesh_of(attrs).size(); })
        .cpp(one_process_only("shard_map"));

}  // namespace
}  // namespace tlaloc::detail
