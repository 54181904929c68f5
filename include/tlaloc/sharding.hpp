// Several devices: a mesh with named axes, shard_map, and the collectives a mapped
// function calls (docs/DISTRIBUTED.md). As in JAX:
//
//   tl::Mesh mesh({{"data", 2}});
//   auto step = tl::shard_map([](const tl::Tensor& x, const tl::Tensor& w) {
//     return tl::psum(tl::sum(tl::matmul(x, w)), "data");   // x: this device's rows
//   }, mesh, {tl::P("data"), tl::P()}, tl::P());
//
// The function sees one device's part of each argument and runs once per device;
// the results are put together by the output specs. The host interpreter runs the
// devices as threads, and the results are the same bits on every run. shard_map
// composes with grad, jvp, jit and nn::capture.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tlaloc/export.hpp"
#include "tlaloc/transforms.hpp"

TLALOC_PUBLIC_BEGIN
namespace tlaloc {

// Devices arranged in a grid with named axes, numbered row-major over them:
// Mesh({{"data", 2}, {"model", 2}}) has four devices, (data, model) = (0, 0), (0, 1),
// (1, 0), (1, 1). The host interpreter runs any number as threads.
class Mesh {
 public:
  using Axes = std::vector<std::pair<std::string, std::int64_t>>;
  explicit Mesh(Axes axes);
  const Axes& axes() const { return axes_; }
  std::int64_t size() const;  // devices
  // The position of an axis by name; ValueError naming the mesh's axes otherwise.
  std::size_t axis(std::string_view name) const;
  std::int64_t axis_size(std::string_view name) const { return axes_[axis(name)].second; }

 private:
  Axes axes_;
};

// How a tensor is split over a mesh, one entry per leading dimension: the axis that
// dimension is split over, or nullptr (JAX's None) where it is whole. Dimensions past
// the listed ones are whole; P() is whole everywhere (replicated). tl::P("data")
// splits dimension 0 over "data"; tl::P(nullptr, "model") splits dimension 1.
struct P {
  std::vector<std::string> dims;  // "" where the dimension is whole
  P() = default;
  template <class... A>
  requires((std::is_convertible_v<A, std::string_view> ||
            std::is_null_pointer_v<A>)&&...) explicit P(A... names) {
    (dims.push_back(name_of(names)), ...);
  }

 private:
  static std::string name_of(std::nullptr_t) { return {}; }
  static std::string name_of(std::string_view s) { return std::string(s); }
};

namespace detail {
struct ShardSpecs {
  Mesh mesh;
  std::vector<P> in, out;
};
// Records body (of one device's parts) as one shard_map op of the current trace on
// args, and returns its put-together results.
std::vector<Tensor> trace_shard_map(const ShardSpecs& specs, const FlatFn& body,
                                    std::span<const Tensor> args);

template <class F>
class ShardMapFn {
 public:
  ShardMapFn(F f, ShardSpecs specs)
      : f_(std::move(f)), specs_(std::move(specs)), cache_(make_cache("shard_map", typeid(F).name())) {}

  template <class... A>
  auto operator()(const A&... args) const {
    static_assert(((!is_static_arg_v<A>)&&...),
                  "tl::shard_map: the arguments must be tensors, lists of tensors or nn::Params");
    using R = std::decay_t<std::invoke_result_t<const F&, const A&...>>;
    const FlatCall inner = make_call(f_, args...);
    // An argument's spec applies to each of its tensors.
    ShardSpecs flat_specs = specs_;
    if (specs_.in.size() == sizeof...(A)) {
      const std::size_t counts[] = {tensor_count(args)...};
      flat_specs.in.clear();
      for (std::size_t i = 0; i < sizeof...(A); ++i)
        flat_specs.in.insert(flat_specs.in.end(), counts[i], specs_.in[i]);
    }
    FlatCall outer;
    outer.args = inner.args;
    outer.static_key = inner.static_key;
    outer.result_layout = inner.result_layout;
    outer.fn = [&flat_specs, &inner](std::span<const Tensor> syms) {
      return trace_shard_map(flat_specs, inner.fn, syms);
    };
    ResultLayout layout;
    const std::vector<Tensor> flat = run_jit(*cache_, outer, layout);
    Cursor cursor{flat, layout};
    return Unflatten<R>::get(cursor);
  }
  std::size_t traces() const { return cache_traces(*cache_); }

 private:
  F f_;
  ShardSpecs specs_;
  std::shared_ptr<TransformCache> cache_;
};
}  // namespace detail

// f mapped over the devices of `mesh`: argument i split by in_specs[i] (each tensor
// of a list or of nn::Params by its argument's spec), each result put together by
// out_specs (one spec for all results, or one per result). A
// dimension split over an axis must divide by the axis's size. A result whole along
// an axis (P() for all of them) is taken from the devices at 0 on that axis: the
// function should make it the same on all of them (a psum does).
template <class F>
auto shard_map(F f, Mesh mesh, std::vector<P> in_specs, std::vector<P> out_specs) {
  return detail::ShardMapFn<F>(std::move(f), {std::move(mesh), std::move(in_specs), std::move(out_specs)});
}
template <class F>
auto shard_map(F f, Mesh mesh, std::vector<P> in_specs, P out_spec) {
  return shard_map(std::move(f), std::move(mesh), std::move(in_specs), std::vector<P>{std::move(out_spec)});
}

// Collectives over named axes of the mesh, called inside a shard_map's function
// (anywhere else they are refused by name). Each combines the values of the devices
// that differ only along the named axes, in the order of their coordinates.
// Several axes: psum(x, {"data", "model"}).
Tensor psum(const Tensor& x, const std::string& axis);
Tensor psum(const Tensor& x, const std::vector<std::string>& axes);
inline Tensor psum(const Tensor& x, std::initializer_list<std::string> axes) {
  return psum(x, std::vector<std::string>(axes));
}
Tensor pmean(const Tensor& x, const std::string& axis);
Tensor pmean(const Tensor& x, const std::vector<std::string>& axes);
inline Tensor pmean(const Tensor& x, std::initializer_list<std::string> axes) {
  return pmean(x, std::vector<std::string>(axes));
}
Tensor pmax(const Tensor& x, const std::string& axis);
Tensor pmin(const Tensor& x, const std::string& axis);
// The devices' parts concatenated along dimension `dim` (JAX's tiled all_gather).
Tensor all_gather(const Tensor& x, const std::string& axis, std::int64_t dim);
// The sum over the axis, of which each device keeps its part along `dim` (tiled).
Tensor psum_scatter(const Tensor& x, const std::string& axis, std::int64_t dim);
// x split along split_dim into one part per device of the axis; device k gets every
// device's part k, concatenated along concat_dim.
Tensor all_to_all(const Tensor& x, const std::string& axis, std::int64_t split_dim, std::int64_t concat_dim);
// Device `source` sends x to device `target` (positions along the axis); a device no
// pair sends to gets zeros.
Tensor ppermute(const Tensor& x, const std::string& axis,
                const std::vector<std::pair<std::int64_t, std::int64_t>>& perm);
// This device's position along the axis, an i32 scalar.
Tensor axis_index(const std::string& axis);

}  // namespace tlaloc
TLALOC_PUBLIC_END
