#include "ops/spmd.hpp"

#include <fmt/format.h>

#include <map>

#include "ops/custom_call.hpp"
#include "ops/hlo_sharding.hpp"
#include "ops/processes.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::detail {
namespace {

std::string who(std::string_view target) { return fmt::format("custom_call @{}", target); }

const Tensor& one_operand(std::string_view target, std::span<const Tensor> in,
                          std::span<const TensorType> out) {
  if (in.size() != 1 || out.size() != 1)
    fail<ValueError>(who(target), "takes one operand and gives one result, got {} and {}", in.size(),
                     out.size());
  return in[0];
}

HloSharding sharding_attr(std::string_view target, const Attrs& a, std::string_view key) {
  if (!a.has(std::string(key)))
    fail<ValueError>(who(target), "{}",
                     key == kOperandSharding ? "has no @Sharding operand: the tiles it takes are not known"
                                             : "has no mhlo.sharding");
  return HloSharding::parse(a.get<std::string>(std::string(key)), who(target));
}

void check_type(std::string_view target, const Shape& got, const TensorType& declared) {
  if (got != declared.shape)
    fail<ShapeError>(who(target), "gives {} where the program declares {}", shape_string(got),
                     shape_string(declared.shape));
}

// The devices of this process's replica, as processes of the grid.
std::vector<ProcessIndex> replica_of(const Processes& p) {
  std::vector<ProcessIndex> g;
  for (std::int64_t k = 0; k < p.num_partitions(); ++k) g.push_back(p.replica_id() * p.num_partitions() + k);
  return g;
}

std::vector<std::int64_t> starts_of(const std::vector<std::int64_t>& tile, const Shape& local) {
  std::vector<std::int64_t> s;
  for (std::size_t k = 0; k < tile.size(); ++k) s.push_back(tile[k] * local[k]);
  return s;
}

// Each runs where the devices run as processes; printed C++ runs one.
bool def_target(std::string_view name, Kernel k) {
  return def_custom_call_target(std::string(name), {std::move(k), one_process_only(who(name))});
}

const bool sharding = def_target(
    kShardingTarget, [](std::span<const Tensor> in, const Attrs&, std::span<const TensorType> out) {
      const Tensor& x = one_operand(kShardingTarget, in, out);
      check_type(kShardingTarget, x.shape(), out[0]);
      return std::vector<Tensor>{x};
    });

// This device's tile: every device holds the whole value outside a manual region.
const bool full_to_shard = def_target(
    kFullToShardTarget, [](std::span<const Tensor> in, const Attrs& a, std::span<const TensorType> out) {
      const Tensor& x = one_operand(kFullToShardTarget, in, out);
      const HloSharding s = sharding_attr(kFullToShardTarget, a, kOperandSharding);
      if (s.kind == HloSharding::Kind::manual)
        fail<ValueError>(who(kFullToShardTarget), "takes tiles of a value that is already manual");
      const Shape local = s.tile_shape(who(kFullToShardTarget), x.shape());
      check_type(kFullToShardTarget, local, out[0]);
      if (s.kind != HloSharding::Kind::tiled) return std::vector<Tensor>{x};
      const std::vector<std::int64_t> tile =
          s.tile_of(who(kFullToShardTarget), current_processes().partition_id());
      return std::vector<Tensor>{tlaloc::dynamic_slice(x, starts_of(tile, local), local)};
    });

// The tiles of the replica's devices put together; a replicated result is the same
// on every device, so each keeps its own.
const bool shard_to_full = def_target(
    kShardToFullTarget, [](std::span<const Tensor> in, const Attrs& a, std::span<const TensorType> out) {
      const Tensor& x = one_operand(kShardToFullTarget, in, out);
      const HloSharding s = sharding_attr(kShardToFullTarget, a, "mhlo.sharding");
      if (s.kind == HloSharding::Kind::manual)
        fail<ValueError>(who(kShardToFullTarget), "puts tiles together into a manual value");
      if (s.tile_shape(who(kShardToFullTarget), out[0].shape) != x.shape())
        fail<ShapeError>(who(kShardToFullTarget), "takes tiles of {} for {} split by {}, got {}",
                         shape_string(s.tile_shape(who(kShardToFullTarget), out[0].shape)),
                         shape_string(out[0].shape), s.text(), shape_string(x.shape()));
      if (s.kind == HloSharding::Kind::replicated) return std::vector<Tensor>{x};
      Processes& p = current_processes();
      const std::vector<Tensor> parts = p.exchange(who(kShardToFullTarget), replica_of(p), x);
      return std::vector<Tensor>{join_tiles(s, [&](std::int64_t device) -> const Tensor& {
        if (device >= std::int64_t(parts.size()))
          fail<ValueError>(who(kShardToFullTarget), "sharding {} names device {} of {}", s.text(), device,
                           parts.size());
        return parts[std::size_t(device)];
      })};
    });

bool calls(const ir::Op& op, std::string_view target) {
  return op.attrs.has("call_target_name") && op.attrs.get<std::string>("call_target_name") == target;
}

void link(ir::Region& r, std::map<ir::ValueId, std::string>& shardings) {
  for (ir::Op& op : r.ops) {
    for (ir::Region& inner : op.regions) link(inner, shardings);
    if (calls(op, kShardingTarget) && op.attrs.has("mhlo.sharding") && op.results.size() == 1)
      shardings[op.results[0]] = op.attrs.get<std::string>("mhlo.sharding");
    if (calls(op, kFullToShardTarget) && op.operands.size() == 1)
      if (const auto at = shardings.find(op.operands[0]); at != shardings.end())
        op.attrs.set(std::string(kOperandSharding), at->second);
  }
}

}  // namespace

Tensor join_tiles(const HloSharding& s, const std::function<const Tensor&(std::int64_t device)>& part) {
  // The tiles from dimension `dim` on, below the tile `flat` (row-major) of those before.
  const std::function<Tensor(std::size_t, std::int64_t)> join = [&](std::size_t dim, std::int64_t flat) {
    if (dim == s.tiles.size()) return part(s.devices[std::size_t(flat * s.copies)]);
    std::vector<Tensor> pieces;
    for (std::int64_t k = 0; k < s.tiles[dim]; ++k) pieces.push_back(join(dim + 1, flat * s.tiles[dim] + k));
    return pieces.size() == 1 ? pieces[0] : tlaloc::concat(pieces, std::int64_t(dim));
  };
  return join(0, 0);
}

void link_manual_regions(ir::Function& f) {
  std::map<ir::ValueId, std::string> shardings;
  link(f.body, shardings);
}

}  // namespace tlaloc::detail
