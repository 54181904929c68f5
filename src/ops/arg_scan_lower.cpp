// Lowerings of argmax/argmin (a variadic stablehlo.reduce over values and an
// iota of indices) and of cumsum/cumprod (stablehlo.reduce_window with the whole
// axis as window and its length - 1 as low padding, as JAX lowers scans).
#include <string>

#include "core/dispatch_type.hpp"
#include "core/tensor_impl.hpp"
#include "ir/builder.hpp"
#include "ops/reduce_lower.hpp"
#include "ops/window.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::detail {
namespace {

using I64s = std::vector<std::int64_t>;

ir::Builder& builder(std::string_view op) {
  ir::Builder* b = ir::current_builder();
  if (b == nullptr) fail(op, "is lowered only while tracing");
  return *b;
}

// The value the arg-reduction starts from: nothing is beyond it.
template <bool is_max>
Tensor arg_identity(DType t) {
  Tensor out = empty({}, t);
  TLALOC_SWITCH_ALL(t, "argmax", {
    *mutable_data<T>(out) = is_max ? Max<T>::store(Max<T>::init()) : Min<T>::store(Min<T>::init());
  })
  return out;
}

// Keeps the (value, index) pair that comes first: NaN beats any number, then the
// larger (smaller) value, then the smaller index, so the result is the library's
// "first extreme, NaN counts as the extreme" whatever order the pairs meet in.
template <bool is_max>
std::vector<Tensor> arg_body(std::span<const Tensor> a) {
  const Tensor &v = a[0], &i = a[1], &w = a[2], &j = a[3];
  const Tensor v_nan = v != v, w_nan = w != w;
  const Tensor beyond = is_max ? w > v : w < v;
  const Tensor same = (w == v) | (v_nan & w_nan);
  const Tensor take = (w_nan & !v_nan) | beyond | (same & (j < i));
  return {where(take, w, v), where(take, j, i)};
}

template <bool is_max>
std::vector<Tensor> lower_arg(std::span<const Tensor> in, const Attrs& attrs) {
  const char* name = is_max ? "argmax" : "argmin";
  ir::Builder& b = builder(name);
  const Tensor& x = in[0];
  const TensorType out = find_op(name)->infer(std::vector<TensorType>{type_of(x)}, attrs)[0];
  const std::int64_t axis = normalize_axis(name, attrs.get<std::int64_t>("axis"), x.rank());
  const Attrs iota_attrs{{"shape", x.shape()}, {"iota_dimension", axis}, {"dtype", DType::i64}};
  const Tensor index = b.record(*find_op("iota"), {}, iota_attrs, {{DType::i64, x.shape()}})[0];
  const TensorType scalars[] = {{x.dtype(), {}}, {DType::i64, {}}, {x.dtype(), {}}, {DType::i64, {}}};
  std::vector<ir::Region> regions;
  regions.push_back(b.region(scalars, arg_body<is_max>));
  Shape kept = x.shape();
  kept.erase(kept.begin() + axis);
  const Tensor operands[] = {x, index, arg_identity<is_max>(x.dtype()), zeros({}, DType::i64)};
  Tensor y = b.record(*find_op("reduce"), operands, {{"dimensions", I64s{axis}}},
                      {{x.dtype(), kept}, {DType::i64, kept}}, std::move(regions))[1];
  if (y.shape() != out.shape) y = reshape(y, out.shape);
  return {y};
}

}  // namespace

LowerFn lower_arg_reduce(bool is_max) {
  if (is_max) return lower_arg<true>;
  return lower_arg<false>;
}

LowerFn lower_scan(std::string op, ReduceBody body) {
  return [op = std::move(op), body](std::span<const Tensor> in, const Attrs& attrs) {
    ir::Builder& b = builder(op);
    const TensorType out = find_op(op)->infer(std::vector<TensorType>{type_of(in[0])}, attrs)[0];
    const Tensor x = in[0].dtype() == out.dtype ? in[0] : in[0].astype(out.dtype);
    const std::int64_t axis = normalize_axis(op, attrs.get<std::int64_t>("axis"), x.rank());
    const std::int64_t n = x.shape()[std::size_t(axis)];
    if (n == 0) return std::vector<Tensor>{x};
    I64s window(x.shape().size(), 1), padding(2 * x.shape().size(), 0);
    window[std::size_t(axis)] = n;
    padding[2 * std::size_t(axis)] = n - 1;
    const bool add = body == ReduceBody::add;
    const TensorType scalars[] = {{out.dtype, {}}, {out.dtype, {}}};
    const OpDef& combine = *find_op(add ? "add" : "mul");
    std::vector<ir::Region> regions;
    regions.push_back(b.region(scalars, [&](std::span<const Tensor> a) {
      return std::vector<Tensor>{call1(combine, {a[0], a[1]})};
    }));
    const Tensor operands[] = {x, add ? zeros({}, out.dtype) : ones({}, out.dtype)};
    return b.record(*find_op("reduce_window"), operands,
                    {{"window_dimensions", window}, {"padding", padding}}, {out}, std::move(regions));
  };
}

}  // namespace tlaloc::detail
