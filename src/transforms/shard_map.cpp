// tl::shard_map and the collectives over named mesh axes (include/tlaloc/sharding.hpp):
// the function is traced once, on one device's parts, into the region of a shard_map
// op (src/ops/shard_map.cpp); tl::psum & co. record StableHLO's collectives with the
// groups the named axes make (ops/mesh.hpp).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/check.hpp"
#include "ir/builder.hpp"
#include "ops/mesh.hpp"
#include "ops/region_rules.hpp"
#include "tlaloc/ops.hpp"
#include "tlaloc/sharding.hpp"

namespace tlaloc {

Mesh::Mesh(Axes axes) : axes_(std::move(axes)) {
  if (axes_.empty()) throw ValueError("tl::Mesh: needs at least one axis");
  for (std::size_t i = 0; i < axes_.size(); ++i) {
    const auto& [name, size] = axes_[i];
    if (name.empty()) throw ValueError(fmt::format("tl::Mesh: axis {} has no name", i));
    if (size < 1)
      throw ValueError(fmt::format("tl::Mesh: axis '{}' has size {}; sizes are at least 1", name, size));
    for (std::size_t j = 0; j < i; ++j)
      if (axes_[j].first == name) throw ValueError(fmt::format("tl::Mesh: axis '{}' is named twice", name));
  }
  std::int64_t n = 1;
  for (const auto& axis : axes_)
    if (__builtin_mul_overflow(n, axis.second, &n) || n > (std::int64_t(1) << 31))
      throw ValueError("tl::Mesh: more than 2^31 devices");
}

std::int64_t Mesh::size() const {
  std::int64_t n = 1;
  for (const auto& a : axes_) n *= a.second;
  return n;
}

std::size_t Mesh::axis(std::string_view name) const {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < axes_.size(); ++i) {
    if (axes_[i].first == name) return i;
    names.push_back(axes_[i].first);
  }
  throw ValueError(fmt::format("the mesh has no axis '{}' (its axes: {})", name, fmt::join(names, ", ")));
}

namespace detail {
namespace {

// The mesh of the shard_map whose function is being traced on this thread.
thread_local const Mesh* current_mesh = nullptr;

class MeshScope {
 public:
  explicit MeshScope(const Mesh& m) : saved_(current_mesh) {
    if (saved_ != nullptr)
      throw ValueError("tl::shard_map: a shard_map inside another's function is not supported yet");
    current_mesh = &m;
  }
  ~MeshScope() { current_mesh = saved_; }
  MeshScope(const MeshScope&) = delete;
  MeshScope& operator=(const MeshScope&) = delete;

 private:
  const Mesh* saved_;
};

MeshShape shape_of(const Mesh& m) {
  std::vector<std::int64_t> sizes;
  for (const auto& a : m.axes()) sizes.push_back(a.second);
  return MeshShape(std::move(sizes));
}

// The axis of each dimension of a tensor of `shape` under `spec`, or -1. `what`
// names the tensor in errors ("argument 1", "result 0").
SplitDims axes_by_dim(const Mesh& mesh, const P& spec, const Shape& shape, const std::string& what) {
  if (spec.dims.size() > shape.size())
    fail<ShapeError>("shard_map", "{} has shape {}, and its spec names {} dimensions", what,
                     shape_string(shape), spec.dims.size());
  SplitDims dims(shape.size(), -1);
  for (std::size_t d = 0; d < spec.dims.size(); ++d) {
    if (spec.dims[d].empty()) continue;
    std::size_t a = 0;
    try {
      a = mesh.axis(spec.dims[d]);
    } catch (const ValueError& e) {
      fail<ValueError>("shard_map", "{}: {}", what, e.what());
    }
    if (std::find(dims.begin(), dims.end(), std::int64_t(a)) != dims.end())
      fail<ValueError>("shard_map", "{}: axis '{}' splits two dimensions", what, spec.dims[d]);
    dims[d] = std::int64_t(a);
  }
  return dims;
}

// An argument's split dimensions, which must divide by their axes' sizes.
SplitDims argument_dims(const Mesh& mesh, const P& spec, const Shape& shape, const std::string& what) {
  const SplitDims dims = axes_by_dim(mesh, spec, shape, what);
  for (std::size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] < 0) continue;
    const auto& [name, size] = mesh.axes()[std::size_t(dims[d])];
    if (shape[d] % size != 0)
      fail<ShapeError>("shard_map",
                       "{} has shape {}: dimension {} ({}) does not divide over axis '{}' of size {}", what,
                       shape_string(shape), d, shape[d], name, size);
  }
  return dims;
}

const Mesh& mesh_for(std::string_view op) {
  if (current_mesh == nullptr)
    fail<ValueError>(op, "is a collective over mesh axes: call it inside the function of a tl::shard_map");
  return *current_mesh;
}

std::vector<std::size_t> axes_of(std::string_view op, const std::vector<std::string>& names) {
  const Mesh& m = mesh_for(op);
  std::vector<std::size_t> axes;
  for (const std::string& n : names) {
    std::size_t a = 0;
    try {
      a = m.axis(n);
    } catch (const ValueError& e) {
      fail<ValueError>(op, "{}", e.what());
    }
    if (std::find(axes.begin(), axes.end(), a) != axes.end())
      fail<ValueError>(op, "names axis '{}' twice", n);
    axes.push_back(a);
  }
  return axes;
}

std::int64_t group_size(const Mesh& m, const std::vector<std::size_t>& axes) {
  std::int64_t n = 1;
  for (std::size_t a : axes) n *= m.axes()[a].second;
  return n;
}

// x as a value of the trace of the shard_map's function: a host tensor (a constant
// the function made) becomes a constant there, so that the collective is recorded.
Tensor traced(const Tensor& x) {
  ir::Builder* b = ir::current_builder();
  return x.is_symbolic() || b == nullptr ? x : b->tensor_of(b->value_of(x));
}

Tensor reduced(std::string_view op, const Tensor& x, const std::vector<std::string>& names,
               std::string_view body) {
  const std::vector<std::size_t> axes = axes_of(op, names);
  return shape_of(*current_mesh).reduce_over(traced(x), axes, body);
}

void check_dim(std::string_view op, const Tensor& x, std::int64_t dim) {
  if (dim < 0 || dim >= x.rank())
    fail<ShapeError>(op, "dimension {} is not one of x's {} (shape {})", dim, x.rank(),
                     shape_string(x.shape()));
}

}  // namespace

std::vector<Tensor> trace_shard_map(const ShardSpecs& specs, const FlatFn& body,
                                    std::span<const Tensor> args) {
  ir::Builder* b = ir::current_builder();
  if (b == nullptr) throw Error("tl::shard_map: traced outside a trace");
  if (specs.in.size() != args.size())
    fail<ValueError>("shard_map", "takes {} in_specs for {} arguments", specs.in.size(), args.size());
  ShardLayout l{shape_of(specs.mesh), {}, {}};
  std::vector<TensorType> local;
  for (std::size_t i = 0; i < args.size(); ++i) {
    l.in.push_back(argument_dims(specs.mesh, specs.in[i], args[i].shape(), fmt::format("argument {}", i)));
    local.push_back({args[i].dtype(), local_shape(args[i].shape(), l.in.back(), l.mesh)});
  }
  std::vector<Tensor> results;
  ir::Region region = [&] {
    const MeshScope scope(specs.mesh);
    return b->region(local, [&](std::span<const Tensor> a) { return results = body(a); });
  }();
  if (specs.out.size() != 1 && specs.out.size() != results.size())
    fail<ValueError>("shard_map", "takes {} out_specs for {} results", specs.out.size(), results.size());
  std::vector<TensorType> types;
  for (std::size_t j = 0; j < results.size(); ++j) {
    const P& spec = specs.out.size() == 1 ? specs.out[0] : specs.out[j];
    // A device's result is a part of the put-together one, which divides by construction.
    SplitDims d = axes_by_dim(specs.mesh, spec, results[j].shape(), fmt::format("result {}", j));
    types.push_back({results[j].dtype(), global_shape(results[j].shape(), d, l.mesh)});
    l.out.push_back(std::move(d));
  }
  std::vector<ir::Region> regions;
  regions.push_back(std::move(region));
  return b->record(*find_op("shard_map"), args, l.attrs(), std::move(types), std::move(regions));
}

}  // namespace detail

Tensor psum(const Tensor& x, const std::vector<std::string>& axes) {
  return detail::reduced("psum", x, axes, "add");
}
Tensor psum(const Tensor& x, const std::string& axis) { return psum(x, std::vector<std::string>{axis}); }

Tensor pmean(const Tensor& x, const std::vector<std::string>& axes) {
  const std::vector<std::size_t> a = detail::axes_of("pmean", axes);
  const Tensor s = detail::reduced("pmean", x, axes, "add");
  return s / scalar_tensor(double(detail::group_size(*detail::current_mesh, a)), s.dtype());
}
Tensor pmean(const Tensor& x, const std::string& axis) { return pmean(x, std::vector<std::string>{axis}); }

Tensor pmax(const Tensor& x, const std::string& axis) {
  return detail::reduced("pmax", x, {axis}, "maximum");
}
Tensor pmin(const Tensor& x, const std::string& axis) {
  return detail::reduced("pmin", x, {axis}, "minimum");
}

Tensor all_gather(const Tensor& x, const std::string& axis, std::int64_t dim) {
  const std::vector<std::size_t> a = detail::axes_of("all_gather", {axis});
  detail::check_dim("all_gather", x, dim);
  Shape result = x.shape();
  result[std::size_t(dim)] *= detail::group_size(*detail::current_mesh, a);
  detail::Attrs attrs = detail::shape_of(*detail::current_mesh).collective_attrs(a);
  attrs.set("all_gather_dim", dim);
  attrs.set("result_shape", result);
  return detail::call1(*detail::find_op("all_gather"), {detail::traced(x)}, attrs);
}

Tensor psum_scatter(const Tensor& x, const std::string& axis, std::int64_t dim) {
  const std::vector<std::size_t> a = detail::axes_of("psum_scatter", {axis});
  detail::check_dim("psum_scatter", x, dim);
  const std::int64_t n = detail::group_size(*detail::current_mesh, a);
  if (x.shape()[std::size_t(dim)] % n != 0)
    detail::fail<ShapeError>("psum_scatter",
                             "dimension {} of x (shape {}) does not divide over axis '{}' of size {}", dim,
                             shape_string(x.shape()), axis, n);
  Shape result = x.shape();
  result[std::size_t(dim)] /= n;
  detail::Attrs attrs = detail::shape_of(*detail::current_mesh).collective_attrs(a);
  attrs.set("scatter_dimension", dim);
  attrs.set("result_shape", result);
  const Tensor in[] = {detail::traced(x)};
  return detail::record_with_body("reduce_scatter", in, attrs, x.dtype(), "add")[0];
}

Tensor all_to_all(const Tensor& x, const std::string& axis, std::int64_t split_dim, std::int64_t concat_dim) {
  const std::vector<std::size_t> a = detail::axes_of("all_to_all", {axis});
  detail::check_dim("all_to_all", x, split_dim);
  detail::check_dim("all_to_all", x, concat_dim);
  // all_to_all reads its groups as partitions: with one replica, the device ids.
  detail::Attrs attrs = detail::shape_of(*detail::current_mesh).collective_attrs(a, false);
  attrs.set("split_dimension", split_dim);
  attrs.set("concat_dimension", concat_dim);
  attrs.set("split_count", detail::group_size(*detail::current_mesh, a));
  return detail::call1(*detail::find_op("all_to_all"), {detail::traced(x)}, attrs);
}

Tensor ppermute(const Tensor& x, const std::string& axis,
                const std::vector<std::pair<std::int64_t, std::int64_t>>& perm) {
  const std::vector<std::size_t> a = detail::axes_of("ppermute", {axis});
  const std::int64_t n = detail::group_size(*detail::current_mesh, a);
  for (const auto& [s, t] : perm)
    if (s < 0 || s >= n || t < 0 || t >= n)
      detail::fail<ValueError>("ppermute", "pair ({}, {}) names a position outside axis '{}' of size {}", s,
                               t, axis, n);
  // Each pair within every group of the axis, as device ids.
  const std::vector<std::int64_t> groups =
      detail::shape_of(*detail::current_mesh).groups(a).to_vector<std::int64_t>();
  std::vector<std::int64_t> pairs;
  for (std::size_t row = 0; row < groups.size(); row += std::size_t(n))
    for (const auto& [s, t] : perm) {
      pairs.push_back(groups[row + std::size_t(s)]);
      pairs.push_back(groups[row + std::size_t(t)]);
    }
  const detail::Attrs attrs{{"source_target_pairs", tensor(pairs, Shape{std::int64_t(pairs.size() / 2), 2})},
                            {"channel_id", std::int64_t(1)},
                            {"channel_type", std::int64_t(1)}};
  return detail::call1(*detail::find_op("collective_permute"), {detail::traced(x)}, attrs);
}

Tensor axis_index(const std::string& axis) {
  const std::vector<std::size_t> a = detail::axes_of("axis_index", {axis});
  return detail::shape_of(*detail::current_mesh).coordinate(a[0]);
}

}  // namespace tlaloc
