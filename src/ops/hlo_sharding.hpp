// XLA's sharding of a value, as the `mhlo.sharding` attribute writes it: the form a
// StableHLO program tells XLA's SPMD partitioner how each value is split over the
// devices (docs/DISTRIBUTED.md, "Lowering").
//   {replicated}                  every device holds all of it
//   {manual}                      each device holds its own part (a shard_map's body)
//   {devices=[2,1,2]0,2,1,3 last_tile_dim_replicate}
//                                 dimension k cut in tiles[k] pieces; the devices
//                                 listed row-major over the tiles (and, last, the
//                                 copies of each tile); also `<=[4]` or
//                                 `<=[2,2]T(1,0)` for an iota, transposed
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tlaloc/tensor.hpp"

namespace tlaloc::detail {

struct HloSharding {
  enum class Kind : std::uint8_t { replicated, manual, tiled };
  Kind kind = Kind::replicated;
  std::vector<std::int64_t> tiles;    // pieces per dimension (tiled)
  std::int64_t copies = 1;            // devices holding each tile (last_tile_dim_replicate)
  std::vector<std::int64_t> devices;  // row-major over tiles, then copies

  // Reads the attribute's text; `op` names the op in errors.
  static HloSharding parse(std::string_view text, std::string_view op);
  std::string text() const;
  // Dimension by dimension, the tile of a value of shape `global`.
  Shape tile_shape(std::string_view op, const Shape& global) const;
  // The tile (its index along each dimension) that `device` holds; fails if the
  // sharding lists no such device.
  std::vector<std::int64_t> tile_of(std::string_view op, std::int64_t device) const;
};

}  // namespace tlaloc::detail
