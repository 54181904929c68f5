// A mesh of devices as shard_map runs it (include/tlaloc/sharding.hpp): axes of
// given sizes, the devices numbered row-major over them, each device one partition
// of a 1 x size() process grid (ops/processes.hpp). What the shard_map op, its
// derivative rules and the collectives of tl::psum & co. share.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/op.hpp"
#include "ops/hlo_sharding.hpp"

namespace tlaloc::detail {

class MeshShape {
 public:
  explicit MeshShape(std::vector<std::int64_t> sizes);

  const std::vector<std::int64_t>& sizes() const { return sizes_; }
  std::int64_t size() const;  // devices
  std::vector<std::int64_t> coords(std::int64_t device) const;
  std::int64_t device(const std::vector<std::int64_t>& coords) const;

  // The devices that differ only along `axes`, one row per group, ordered row-major
  // over those axes (an i64 matrix for replica_groups).
  Tensor groups(const std::vector<std::size_t>& axes) const;
  // The attributes a collective over `axes` takes: its groups as device ids
  // (use_global_device_ids with a channel, StableHLO's flattened ids). Ops that read
  // their groups as partitions (all_to_all, collective_permute) take no
  // use_global_device_ids; with one replica the ids are the same.
  Attrs collective_attrs(const std::vector<std::size_t>& axes, bool global_ids = true) const;
  // This device's coordinate along `axis`, as an i32 scalar computed from
  // partition_id (recorded under the current trace).
  Tensor coordinate(std::size_t axis) const;
  // x combined over the devices that differ only along `axes` by the region applying
  // registry op `body` ("add", "maximum"): an all_reduce, recorded under the trace
  // that owns x.
  Tensor reduce_over(const Tensor& x, const std::vector<std::size_t>& axes, std::string_view body) const;

 private:
  std::vector<std::int64_t> sizes_;
};

// How each dimension of one tensor is split over the mesh: the axis, or -1 where the
// dimension is whole on every device.
using SplitDims = std::vector<std::int64_t>;

// What a shard_map op records: its mesh, and how each operand (`in`) and result
// (`out`) is split. The attributes hold the mesh's sizes and the split dimensions
// flattened in order; reading them back takes the tensors' ranks.
struct ShardLayout {
  MeshShape mesh;
  std::vector<SplitDims> in, out;
  static ShardLayout of(const Attrs& attrs, std::span<const std::size_t> in_ranks,
                        std::span<const std::size_t> out_ranks);
  // The mesh, and the operands' splits only (`out` empty): before the results'
  // ranks are known.
  static ShardLayout of_operands(const Attrs& attrs, std::span<const std::size_t> in_ranks);
  static MeshShape mesh_of(const Attrs& attrs);
  Attrs attrs() const;
};

// A tensor's part on the device at `coords`, and its shape there.
Tensor shard_of(const Tensor& x, const SplitDims& dims, const MeshShape& mesh,
                const std::vector<std::int64_t>& coords);
Shape local_shape(const Shape& global, const SplitDims& dims, const MeshShape& mesh);
Shape global_shape(const Shape& local, const SplitDims& dims, const MeshShape& mesh);
// The axes a tensor is not split over: it is the same on the devices along them.
std::vector<std::size_t> unsplit_axes(const SplitDims& dims, const MeshShape& mesh);
// The same split as XLA's sharding of the whole tensor (mhlo.sharding): a tile per
// split dimension, copied over the axes it is not split over.
HloSharding sharding_of(const SplitDims& dims, const MeshShape& mesh);

}  // namespace tlaloc::detail
