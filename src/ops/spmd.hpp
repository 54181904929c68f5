// The custom calls through which a StableHLO program runs as an SPMD program on the
// devices of its process grid (XLA's form, docs/DISTRIBUTED.md "Lowering"):
//   @Sharding               says how a value is split (mhlo.sharding); the identity
//   @SPMDFullToShardShape   each device's tile of a value split by its operand's
//                           @Sharding: the entry to a manual region (a shard_map)
//   @SPMDShardToFullShape   the devices' tiles put together by its mhlo.sharding:
//                           the exit from a manual region
// The host interpreter runs them as processes of the grid; shard_map lowers to them.
#pragma once

#include <functional>
#include <string_view>

#include "ir/ir.hpp"
#include "ops/hlo_sharding.hpp"

namespace tlaloc::detail {

inline constexpr std::string_view kShardingTarget = "Sharding";
inline constexpr std::string_view kFullToShardTarget = "SPMDFullToShardShape";
inline constexpr std::string_view kShardToFullTarget = "SPMDShardToFullShape";
// The attribute, on a @SPMDFullToShardShape op, holding its operand's sharding.
inline constexpr std::string_view kOperandSharding = "operand_sharding";

// Copies the sharding of each @SPMDFullToShardShape's operand (the @Sharding that
// defines it) onto the op, where its kernel reads it; a parsed module needs this.
void link_manual_regions(ir::Function& f);

// The whole of a value split by tiled sharding `s`, each tile taken from the first
// device listed for it (`part(device)`): one concatenation per split dimension.
Tensor join_tiles(const HloSharding& s, const std::function<const Tensor&(std::int64_t device)>& part);

}  // namespace tlaloc::detail
