// Lowerings of take, take_along_axis, index_add and scatter_add to stablehlo.gather
// and stablehlo.scatter. x is seen as [outer.., n, inner..] around `axis`:
//   take / index_add: the index tensor (rank k) replaces the axis; each index
//     vector has length 1 (index_vector_dim = k) and picks a slice of x that is
//     1 wide on the axis, which is collapsed (inserted for scatter).
//   take_along_axis / scatter_add: indices have x's rank; every other axis is a
//     batching axis of both operand and indices, so one element moves per index.
// Indices become i64 and negative ones are counted from the end first. The eager
// ops refuse an index outside [-n, n); the lowered ones do what the spec does with
// it: gather clamps the start into range, scatter skips the update.
#include "ops/indexing_lower.hpp"

#include "core/tensor_impl.hpp"
#include "ir/builder.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::detail {
namespace {

using I64s = std::vector<std::int64_t>;

// i64 indices in [0, n) where the eager op accepts them.
Tensor normalized(const Tensor& idx, std::int64_t n) {
  const Tensor i = idx.dtype() == DType::i64 ? idx : idx.astype(DType::i64);
  if (is_unsigned(idx.dtype())) return i;
  return where(lt(i, 0), add(i, n), i);
}

// The axes of x other than `axis`.
I64s other_axes(std::size_t rank, std::size_t axis) {
  I64s v;
  for (std::size_t d = 0; d < rank; ++d)
    if (d != axis) v.push_back(std::int64_t(d));
  return v;
}

// Where x's axes other than `axis` land in take's result, whose axis is replaced
// by k index axes.
I64s window_dims(std::size_t rank, std::size_t axis, std::size_t k) {
  I64s v;
  for (std::size_t d = 0; d < rank; ++d)
    if (d != axis) v.push_back(std::int64_t(d < axis ? d : d - 1 + k));
  return v;
}

struct Axis {
  std::size_t axis, rank, k;  // k: the rank of the indices
};

Axis axis_of(const char* op, const Tensor& x, const Tensor& idx, const Attrs& attrs) {
  const std::int64_t a = normalize_axis(op, attrs.get<std::int64_t>("axis"), x.rank());
  return {std::size_t(a), x.shape().size(), idx.shape().size()};
}

Attrs gather_attrs(const Shape& x, const Axis& a, bool along) {
  I64s sizes(x.begin(), x.end());
  if (along) sizes.assign(x.size(), 1);
  sizes[a.axis] = 1;
  Attrs attrs{{"offset_dims", along ? I64s{} : window_dims(a.rank, a.axis, a.k)},
              {"collapsed_slice_dims", I64s{std::int64_t(a.axis)}},
              {"start_index_map", I64s{std::int64_t(a.axis)}},
              {"index_vector_dim", std::int64_t(a.k)},
              {"slice_sizes", sizes}};
  if (along) {
    attrs.set("operand_batching_dims", other_axes(a.rank, a.axis));
    attrs.set("start_indices_batching_dims", other_axes(a.rank, a.axis));
  }
  return attrs;
}

Attrs scatter_attrs(const Axis& a, bool along) {
  Attrs attrs{{"update_window_dims", along ? I64s{} : window_dims(a.rank, a.axis, a.k)},
              {"inserted_window_dims", I64s{std::int64_t(a.axis)}},
              {"scatter_dims_to_operand_dims", I64s{std::int64_t(a.axis)}},
              {"index_vector_dim", std::int64_t(a.k)}};
  if (along) {
    attrs.set("input_batching_dims", other_axes(a.rank, a.axis));
    attrs.set("scatter_indices_batching_dims", other_axes(a.rank, a.axis));
  }
  return attrs;
}

ir::Builder& builder(const char* op) {
  ir::Builder* b = ir::current_builder();
  if (b == nullptr) fail(op, "is lowered only while tracing");
  return *b;
}

}  // namespace

LowerFn lower_take(bool along) {
  return [along](std::span<const Tensor> in, const Attrs& attrs) {
    const char* name = along ? "take_along_axis" : "take";
    const Tensor &x = in[0], &idx = in[1];
    const TensorType out = find_op(name)->infer(std::vector<TensorType>{type_of(x), type_of(idx)}, attrs)[0];
    // A gather needs slices of size 1 that fit; with no data there is nothing to read.
    if (x.numel() == 0 || numel_of(out.shape) == 0) return std::vector<Tensor>{zeros(out.shape, out.dtype)};
    const Axis a = axis_of(name, x, idx, attrs);
    const Tensor ix = normalized(idx, x.shape()[a.axis]);
    return std::vector<Tensor>{call1(*find_op("gather"), {x, ix}, gather_attrs(x.shape(), a, along))};
  };
}

LowerFn lower_index_add(bool along) {
  return [along](std::span<const Tensor> in, const Attrs& attrs) {
    const char* name = along ? "scatter_add" : "index_add";
    const Tensor &x = in[0], &idx = in[1], &u = in[2];
    if (x.numel() == 0 || u.numel() == 0) return std::vector<Tensor>{x};
    const Axis a = axis_of(name, x, idx, attrs);
    // 16-bit floats add in f32 and round once, as the eager kernel does.
    const DType t = is_half(x.dtype()) ? DType::f32 : x.dtype();
    const TensorType scalars[] = {{t, {}}, {t, {}}};
    ir::Builder& b = builder(name);
    std::vector<ir::Region> regions;
    regions.push_back(b.region(scalars, [t](std::span<const Tensor> s) {
      return std::vector<Tensor>{t == DType::boolean ? logical_or(s[0], s[1]) : add(s[0], s[1])};
    }));
    const Tensor operands[] = {x.astype(t), normalized(idx, x.shape()[a.axis]), u.astype(t)};
    const Tensor y = b.record(*find_op("scatter"), operands, scatter_attrs(a, along), {{t, x.shape()}},
                              std::move(regions))[0];
    return std::vector<Tensor>{y.dtype() == x.dtype() ? y : y.astype(x.dtype())};
  };
}

}  // namespace tlaloc::detail
