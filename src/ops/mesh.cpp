#include "ops/mesh.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/check.hpp"
#include "ir/builder.hpp"
#include "ops/region_rules.hpp"
#include "tlaloc/lax.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::detail {

MeshShape::MeshShape(std::vector<std::int64_t> sizes) : sizes_(std::move(sizes)) {}

std::int64_t MeshShape::size() const {
  std::int64_t n = 1;
  for (std::int64_t s : sizes_) n *= s;
  return n;
}

std::vector<std::int64_t> MeshShape::coords(std::int64_t device) const {
  std::vector<std::int64_t> c(sizes_.size());
  for (std::size_t a = sizes_.size(); a-- > 0;) {
    c[a] = device % sizes_[a];
    device /= sizes_[a];
  }
  return c;
}

std::int64_t MeshShape::device(const std::vector<std::int64_t>& coords) const {
  std::int64_t d = 0;
  for (std::size_t a = 0; a < sizes_.size(); ++a) d = d * sizes_[a] + coords[a];
  return d;
}

Tensor MeshShape::groups(const std::vector<std::size_t>& axes) const {
  std::vector<bool> in_group(sizes_.size(), false);
  std::int64_t group_size = 1;
  for (std::size_t a : axes) {
    in_group.at(a) = true;
    group_size *= sizes_[a];
  }
  // Rows in the order of the other axes' coordinates; within a row, the group axes'.
  std::vector<std::int64_t> ids;
  const std::int64_t rows = size() / group_size;
  for (std::int64_t d = 0; d < size(); ++d) {
    const std::vector<std::int64_t> c = coords(d);
    bool first = true;  // the row's first device: every group axis at 0
    for (std::size_t a = 0; a < c.size(); ++a) first = first && (!in_group[a] || c[a] == 0);
    if (!first) continue;
    for (std::int64_t k = 0; k < group_size; ++k) {
      std::vector<std::int64_t> m = c;
      std::int64_t rest = k;
      for (std::size_t a = sizes_.size(); a-- > 0;)
        if (in_group[a]) {
          m[a] = rest % sizes_[a];
          rest /= sizes_[a];
        }
      ids.push_back(device(m));
    }
  }
  return tensor(ids, Shape{rows, group_size});
}

Attrs MeshShape::collective_attrs(const std::vector<std::size_t>& axes, bool global_ids) const {
  Attrs a{
      {"replica_groups", groups(axes)}, {"channel_id", std::int64_t(1)}, {"channel_type", std::int64_t(1)}};
  if (global_ids) a.set("use_global_device_ids", true);
  return a;
}

Tensor MeshShape::coordinate(std::size_t axis) const {
  std::int64_t stride = 1;
  for (std::size_t a = axis + 1; a < sizes_.size(); ++a) stride *= sizes_[a];
  // Recorded under the current trace: with no operands, a call would run at once.
  const OpDef& partition_id = *find_op("partition_id");
  ir::Builder* b = ir::current_builder();
  const Tensor id = (b != nullptr ? b->record(partition_id, {}, {}, partition_id.infer({}, {})).at(0)
                                  : call1(partition_id, std::span<const Tensor>{}))
                        .astype(DType::i32);
  return lax::rem(lax::div(id, scalar_tensor(stride, DType::i32)),
                  scalar_tensor(sizes_.at(axis), DType::i32));
}

Tensor MeshShape::reduce_over(const Tensor& x, const std::vector<std::size_t>& axes,
                              std::string_view body) const {
  const Tensor in[] = {x};
  return record_with_body("all_reduce", in, collective_attrs(axes), x.dtype(), body)[0];
}

namespace {

std::vector<SplitDims> split_dims(const Attrs& attrs, const std::string& key,
                                  std::span<const std::size_t> ranks) {
  const auto& all = attrs.get<std::vector<std::int64_t>>(key);
  std::vector<SplitDims> out;
  std::size_t at = 0;
  for (std::size_t r : ranks) {
    if (at + r > all.size())
      fail<ShapeError>("shard_map", "{} describes {} dimensions, fewer than its tensors have", key,
                       all.size());
    out.emplace_back(all.begin() + std::ptrdiff_t(at), all.begin() + std::ptrdiff_t(at + r));
    at += r;
  }
  if (at != all.size())
    fail<ShapeError>("shard_map", "{} describes {} dimensions, more than its tensors have", key, all.size());
  return out;
}

std::vector<std::int64_t> flat(const std::vector<SplitDims>& dims) {
  std::vector<std::int64_t> out;
  for (const SplitDims& d : dims) out.insert(out.end(), d.begin(), d.end());
  return out;
}

}  // namespace

ShardLayout ShardLayout::of(const Attrs& attrs, std::span<const std::size_t> in_ranks,
                            std::span<const std::size_t> out_ranks) {
  ShardLayout l = of_operands(attrs, in_ranks);
  l.out = split_dims(attrs, "out_dims", out_ranks);
  return l;
}

ShardLayout ShardLayout::of_operands(const Attrs& attrs, std::span<const std::size_t> in_ranks) {
  return {mesh_of(attrs), split_dims(attrs, "in_dims", in_ranks), {}};
}

MeshShape ShardLayout::mesh_of(const Attrs& attrs) {
  return MeshShape(attrs.get<std::vector<std::int64_t>>("mesh_shape"));
}

Attrs ShardLayout::attrs() const {
  return {{"mesh_shape", mesh.sizes()}, {"in_dims", flat(in)}, {"out_dims", flat(out)}};
}

Tensor shard_of(const Tensor& x, const SplitDims& dims, const MeshShape& mesh,
                const std::vector<std::int64_t>& coords) {
  Tensor s = x;
  for (std::size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] < 0) continue;
    const auto a = std::size_t(dims[d]);
    const std::int64_t part = x.shape()[d] / mesh.sizes()[a];
    s = slice(s, std::int64_t(d), coords[a] * part, (coords[a] + 1) * part);
  }
  return s;
}

Shape local_shape(const Shape& global, const SplitDims& dims, const MeshShape& mesh) {
  Shape s = global;
  for (std::size_t d = 0; d < dims.size(); ++d)
    if (dims[d] >= 0) s[d] /= mesh.sizes()[std::size_t(dims[d])];
  return s;
}

Shape global_shape(const Shape& local, const SplitDims& dims, const MeshShape& mesh) {
  Shape s = local;
  for (std::size_t d = 0; d < dims.size(); ++d)
    if (dims[d] >= 0) s[d] *= mesh.sizes()[std::size_t(dims[d])];
  return s;
}

std::vector<std::size_t> unsplit_axes(const SplitDims& dims, const MeshShape& mesh) {
  std::vector<std::size_t> out;
  for (std::size_t a = 0; a < mesh.sizes().size(); ++a)
    if (std::find(dims.begin(), dims.end(), std::int64_t(a)) == dims.end()) out.push_back(a);
  return out;
}

HloSharding sharding_of(const SplitDims& dims, const MeshShape& mesh) {
  const std::vector<std::size_t> copied = unsplit_axes(dims, mesh);
  if (copied.size() == mesh.sizes().size()) return {};  // replicated
  HloSharding s;
  s.kind = HloSharding::Kind::tiled;
  for (std::int64_t a : dims) s.tiles.push_back(a >= 0 ? mesh.sizes()[std::size_t(a)] : 1);
  for (std::size_t a : copied) s.copies *= mesh.sizes()[a];
  // Row-major over the tiles, then over the copies (the unsplit axes in mesh order).
  std::vector<std::int64_t> tile(dims.size(), 0), copy(copied.size(), 0);
  const auto next = [](std::vector<std::int64_t>& at, const auto& size_of) {
    for (std::size_t k = at.size(); k-- > 0;) {
      if (++at[k] < size_of(k)) return true;
      at[k] = 0;
    }
    return false;
  };
  do {
    do {
      std::vector<std::int64_t> c(mesh.sizes().size(), 0);
      for (std::size_t k = 0; k < dims.size(); ++k)
        if (dims[k] >= 0) c[std::size_t(dims[k])] = tile[k];
      for (std::size_t k = 0; k < copied.size(); ++k) c[copied[k]] = copy[k];
      s.devices.push_back(mesh.device(c));
    } while (next(copy, [&](std::size_t k) { return mesh.sizes()[copied[k]]; }));
  } while (next(tile, [&](std::size_t k) { return s.tiles[k]; }));
  return s;
}

}  // namespace tlaloc::detail
