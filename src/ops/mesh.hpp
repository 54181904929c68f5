// A mesh of devices as shard_map runs it (include/tlaloc/sharding.hpp): axes of
// given sizes, the devices numbered row-major over them, each device one partition
// of a 1 x size() process grid (ops/processes.hpp). What the shard_map op, its
// derivative rules and the collectives of tl::psum & co. share.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ir/op.hpp"

namespace tlaloc::detail {

class MeshShape {
 public:
  explicit MeshShape(std::vector<std::int64_t> sizes);
  // The mesh of a shard_map op (its `mesh_shape` attribute).
  static MeshShape of(const Attrs& attrs);

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

 private:
  std::vector<std::int64_t> sizes_;
};

// How each dimension of one tensor is split over the mesh: the axis, or -1 where the
// dimension is whole on every device. A shard_map op keeps its operands' in
// `in_dims` and its results' in `out_dims`, flattened in order.
using SplitDims = std::vector<std::int64_t>;
std::vector<SplitDims> split_dims(const Attrs& attrs, const std::string& key,
                                  std::span<const std::size_t> ranks);

// A tensor's part on the device at `coords`, and its shape there.
Tensor shard_of(const Tensor& x, const SplitDims& dims, const MeshShape& mesh,
                const std::vector<std::int64_t>& coords);
Shape local_shape(const Shape& global, const SplitDims& dims, const MeshShape& mesh);
Shape global_shape(const Shape& local, const SplitDims& dims, const MeshShape& mesh);
// The axes a tensor is not split over: it is the same on the devices along them.
std::vector<std::size_t> unsplit_axes(const SplitDims& dims, const MeshShape& mesh);

}  // namespace tlaloc::detail
