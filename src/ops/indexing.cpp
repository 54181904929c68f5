// Gathering and scattering along one axis. Four primitives of fixed form, each a
// special case of StableHLO gather/scatter with fixed dimension numbers:
//   take             out[o, j.., i] = x[o, idx[j..], i]        (idx any rank)
//   take_along_axis  out[o, j, i]   = x[o, idx[o, j, i], i]    (idx has x's rank)
//   index_add        the inverse of take:            out[o, idx[j..], i] += u[o, j.., i]
//   scatter_add      the inverse of take_along_axis: out[o, idx[o, j, i], i] += u[o, j, i]
// where x is seen as [outer, n, inner] around the axis. Indices may be any integer
// dtype; negative ones count from the end as in NumPy. An index outside [-n, n) is
// refused with an AxisError naming it (no clamping as JAX does, no dropping): a
// silent wrong answer is worse than an error here. Duplicate indices add up, in
// index order, so results do not depend on the thread count.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <complex>
#include <cstring>
#include <type_traits>

#include "core/check.hpp"
#include "core/layout.hpp"
#include "core/parallel.hpp"
#include "core/tensor_impl.hpp"
#include "core/wrapping.hpp"
#include "ir/op.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/indexing_lower.hpp"
#include "ops/like.hpp"
#include "ops/rule.hpp"
#include "ops/untyped_calls.hpp"
#include "tlaloc/derivatives.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc {
namespace {

using detail::Attrs;
using detail::call1;
using detail::def_op;
using detail::fail;
using detail::OpDef;
using detail::TensorType;

struct AxisView {
  std::int64_t outer = 1, n = 1, inner = 1;
};
AxisView around(const Shape& s, std::size_t axis) {
  AxisView v;
  v.n = s[axis];
  for (std::size_t d = 0; d < s.size(); ++d) {
    if (d < axis) v.outer *= s[d];
    if (d > axis) v.inner *= s[d];
  }
  return v;
}

// ---- dispatch -------------------------------------------------------------------

template <class F>
void with_index_type(DType t, F&& f) {
  switch (t) {
    case DType::i8:
      f(std::int8_t{});
      break;
    case DType::i16:
      f(std::int16_t{});
      break;
    case DType::i32:
      f(std::int32_t{});
      break;
    case DType::i64:
      f(std::int64_t{});
      break;
    case DType::u8:
      f(std::uint8_t{});
      break;
    case DType::u16:
      f(std::uint16_t{});
      break;
    case DType::u32:
      f(std::uint32_t{});
      break;
    case DType::u64:
      f(std::uint64_t{});
      break;
    default:
      fail<DTypeError>("indices", "{} is not an integer dtype", t);
  }
}
// The index types the gather and scatter loops are built for; checked_indices
// converts the others, so that each loop is not compiled eight times.
bool has_index_kernel(DType t) {
  return t == DType::i8 || t == DType::i32 || t == DType::i64 || t == DType::u8;
}
template <class F>
void with_kernel_index_type(DType t, F&& f) {
  switch (t) {
    case DType::i8:
      f(std::int8_t{});
      break;
    case DType::i32:
      f(std::int32_t{});
      break;
    case DType::u8:
      f(std::uint8_t{});
      break;
    default:
      f(std::int64_t{});
      break;
  }
}

// Adding needs f32, f64, bool, or for integers only the width: wrapping addition
// gives the same bits signed or unsigned.
template <class F>
void with_add_type(DType t, F&& f) {
  if (t == DType::f32)
    f(float{});
  else if (t == DType::f64)
    f(double{});
  else if (t == DType::boolean)
    f(bool{});
  else if (t == DType::c64)
    f(std::complex<float>{});
  else if (t == DType::c128)
    f(std::complex<double>{});
  else if (itemsize(t) == 1)
    f(std::uint8_t{});
  else if (itemsize(t) == 2)
    f(std::uint16_t{});
  else if (itemsize(t) == 4)
    f(std::uint32_t{});
  else
    f(std::uint64_t{});
}

// ---- index checks -------------------------------------------------------------------

// An index as a 64-bit number of its own signedness (for range checks and messages).
template <class I>
using wide_t = std::conditional_t<std::is_unsigned_v<I>, std::uint64_t, std::int64_t>;

template <class I>
bool in_range(I v, std::int64_t n) {
  if constexpr (std::is_unsigned_v<I>)
    return std::uint64_t(v) < std::uint64_t(n);
  else
    return std::int64_t(v) >= -n && std::int64_t(v) < n;
}

// Only for indices that passed check_indices: they fit in i64.
template <class I>
std::int64_t wrap(I v, std::int64_t n) {
  const auto k = std::int64_t(v);
  return k < 0 ? k + n : k;
}

// Throws for the first index outside [-n, n), before anything is written.
template <class I>
void check_indices(std::string_view op, const Tensor& idx, std::int64_t n, std::size_t axis, const Shape& s) {
  const I* p = idx.data<I>();
  std::atomic<bool> bad{false};
  detail::parallel_for(idx.numel(), detail::kElementwiseGrain, [&](std::int64_t b, std::int64_t e) {
    I lo = p[b], hi = p[b];  // a min/max scan vectorizes; the range then says if any is bad
    for (std::int64_t i = b; i < e; ++i) {
      const I v = p[i];
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
    // The valid indices are an interval of I, so its ends decide.
    if (!in_range(lo, n) || !in_range(hi, n)) bad = true;
  });
  if (!bad) return;
  for (std::int64_t i = 0; i < idx.numel(); ++i)
    if (!in_range(p[i], n))
      fail<AxisError>(op, "index {} is out of range for axis {} of size {} in {}", wide_t<I>(p[i]), axis, n,
                      shape_string(s));
}

// The indices, checked in their own dtype, in a dtype with_kernel_index_type runs:
// others become i64, which every checked index fits.
Tensor checked_indices(std::string_view op, const Tensor& idx, std::int64_t n, std::size_t axis,
                       const Shape& s) {
  with_index_type(idx.dtype(), [&](auto itag) { check_indices<decltype(itag)>(op, idx, n, axis, s); });
  return has_index_kernel(idx.dtype()) ? idx : idx.astype(DType::i64);
}

// ---- gather ---------------------------------------------------------------------

// Where the data lie: x is [outer, n, inner], indices and the gathered or scattered
// rows are [outer, k, inner] (idx only [k] for take / index_add). Passed by value so
// the inner loops keep everything in registers.
template <class E, class I>
struct Plan {
  E* out;
  const E* src;
  const I* idx;
  std::int64_t n, k, inner;
};

// Output rows (o, j) in [b, e), each of `inner` elements. Runs of j within one o
// keep divisions out of the inner loops.
template <bool along, class E, class I>
void gather_rows(const Plan<E, I> p, std::int64_t b, std::int64_t e) {
  for (std::int64_t r = b; r < e;) {
    const std::int64_t o = r / p.k, j0 = r % p.k, j1 = std::min(p.k, j0 + (e - r));
    const E* base = p.src + o * p.n * p.inner;
    E* dst = p.out + o * p.k * p.inner;
    for (std::int64_t j = j0; j < j1; ++j) {
      if constexpr (along) {
        const I* ix = p.idx + (o * p.k + j) * p.inner;
        for (std::int64_t i = 0; i < p.inner; ++i)
          dst[j * p.inner + i] = base[wrap(ix[i], p.n) * p.inner + i];
      } else if (p.inner == 1) {
        dst[j] = base[wrap(p.idx[j], p.n)];
      } else {
        const E* row = base + wrap(p.idx[j], p.n) * p.inner;
        std::copy(row, row + p.inner, dst + j * p.inner);
      }
    }
    r += j1 - j0;
  }
}

template <bool along>
std::vector<Tensor> gather_kernel(std::string_view op, const Tensor& x, const Tensor& idx, std::size_t axis,
                                  const TensorType& out_type) {
  const AxisView v = around(x.shape(), axis);
  const std::int64_t k = along ? idx.shape()[axis] : idx.numel();
  Tensor y = detail::empty(out_type.shape, out_type.dtype);
  const Tensor ix = checked_indices(op, idx, v.n, axis, x.shape());
  if (y.numel() == 0) return {y};
  with_kernel_index_type(ix.dtype(), [&](auto itag) {
    using I = decltype(itag);
    detail::with_element_size(itemsize(x.dtype()), [&](auto etag) {
      using E = decltype(etag);
      const Plan<E, I> p{static_cast<E*>(y.impl().data()),
                         static_cast<const E*>(x.raw_data()),
                         ix.data<I>(),
                         v.n,
                         k,
                         v.inner};
      // Rows never overlap, so any split works.
      detail::parallel_for(v.outer * k, std::max<std::int64_t>(1, detail::kElementwiseGrain / v.inner),
                           [p](std::int64_t b, std::int64_t e) { gather_rows<along>(p, b, e); });
    });
  });
  return {y};
}

// ---- scatter-add ---------------------------------------------------------------------

// out[o, idx, i] += u[o, j, i] for columns (o, i) in [b, e). Columns are
// independent; within one, updates j are added in order, so duplicates add up the
// same way whatever the split.
template <bool along, class T, class I>
void scatter_add_columns(const Plan<T, I> p, std::int64_t b, std::int64_t e) {
  for (std::int64_t c = b; c < e;) {
    const std::int64_t o = c / p.inner, i0 = c % p.inner, i1 = std::min(p.inner, i0 + (e - c));
    T* dst = p.out + o * p.n * p.inner;
    for (std::int64_t j = 0; j < p.k; ++j) {
      const T* upd = p.src + (o * p.k + j) * p.inner;
      if constexpr (along) {
        const I* ix = p.idx + (o * p.k + j) * p.inner;
        for (std::int64_t i = i0; i < i1; ++i) {
          T& d = dst[wrap(ix[i], p.n) * p.inner + i];
          d = detail::wrapping_add(d, upd[i]);
        }
      } else {
        T* row = dst + wrap(p.idx[j], p.n) * p.inner;
        for (std::int64_t i = i0; i < i1; ++i) row[i] = detail::wrapping_add(row[i], upd[i]);
      }
    }
    c += i1 - i0;
  }
}

template <bool along>
std::vector<Tensor> scatter_kernel(std::string_view op, const Tensor& x, const Tensor& idx, const Tensor& u,
                                   std::size_t axis) {
  // 16-bit floats add in f32, so duplicates round once.
  const DType t = is_half(x.dtype()) ? DType::f32 : x.dtype();
  const Tensor xc = x.astype(t), uc = u.astype(t);
  const AxisView v = around(x.shape(), axis);
  const std::int64_t k = along ? idx.shape()[axis] : idx.numel();
  Tensor y = detail::empty(x.shape(), t);
  if (x.numel() > 0) std::memcpy(y.impl().data(), xc.raw_data(), std::size_t(x.numel()) * itemsize(t));
  const Tensor ix = checked_indices(op, idx, v.n, axis, x.shape());
  if (uc.numel() == 0) return {y.astype(x.dtype())};
  with_kernel_index_type(ix.dtype(), [&](auto itag) {
    using I = decltype(itag);
    with_add_type(t, [&](auto ttag) {
      using T = decltype(ttag);
      const Plan<T, I> p{
          detail::mutable_data<T>(y), static_cast<const T*>(uc.raw_data()), ix.data<I>(), v.n, k, v.inner};
      detail::parallel_for(
          v.outer * v.inner,
          std::max<std::int64_t>(1, detail::kElementwiseGrain / std::max<std::int64_t>(k, 1)),
          [p](std::int64_t b, std::int64_t e) { scatter_add_columns<along>(p, b, e); });
    });
  });
  return {y.astype(x.dtype())};
}

// ---- shape rules -------------------------------------------------------------------

// The axis attribute: normalised where types are known, as written (negative counting
// from the end) where the op was recorded on values of unknown type.
std::int64_t axis_in(const Attrs& attrs, std::size_t rank) {
  const auto axis = attrs.get<std::int64_t>("axis");
  return axis < 0 ? axis + std::int64_t(rank) : axis;
}

std::size_t rule_axis(std::string_view op, const Attrs& attrs, const TensorType& x, const TensorType& idx) {
  const auto axis = axis_in(attrs, x.shape.size());
  if (x.shape.empty()) fail<AxisError>(op, "needs a tensor of rank 1 or more, got rank 0");
  if (axis < 0 || axis >= std::int64_t(x.shape.size()))
    fail<AxisError>(op, "axis {} is out of range for rank {}", axis, x.shape.size());
  if (!is_integral(idx.dtype)) fail<DTypeError>(op, "indices must have an integer dtype, got {}", idx.dtype);
  return std::size_t(axis);
}

// x's shape with axis replaced by the index shape: what take returns.
Shape take_shape(const Shape& x, const Shape& idx, std::size_t axis) {
  Shape s(x.begin(), x.begin() + std::ptrdiff_t(axis));
  s.insert(s.end(), idx.begin(), idx.end());
  s.insert(s.end(), x.begin() + std::ptrdiff_t(axis) + 1, x.end());
  return s;
}

void check_along(std::string_view op, const Shape& x, const Shape& idx, std::size_t axis) {
  bool ok = idx.size() == x.size();
  for (std::size_t d = 0; ok && d < x.size(); ++d) ok = d == axis || idx[d] == x[d];
  if (!ok)
    fail<ShapeError>(op, "indices {} must have the shape of {} except on axis {}", shape_string(idx),
                     shape_string(x), axis);
}

void check_updates(std::string_view op, const TensorType& x, const TensorType& u, const Shape& expected) {
  if (u.dtype != x.dtype) fail<DTypeError>(op, "updates are {}, the operand {}", u.dtype, x.dtype);
  if (u.shape != expected)
    fail<ShapeError>(op, "updates have shape {}, expected {}", shape_string(u.shape), shape_string(expected));
}

// ---- derivatives ----------------------------------------------------------------------
// All four are linear in their data operands (x, and the updates of the scatters);
// the indices get no cotangent. Each pair is the other's transpose: the cotangent
// of take is an index_add into zeros, whose updates' cotangent is a take, and so
// on; duplicate indices add up, as the derivative of a repeated read must.
using detail::Rule;

std::int64_t axis_of(const Rule& r) { return r.attr<std::int64_t>("axis"); }

// Where a type or the axis is known at run time only (a build-time trace), take's
// and index_add's rules record each other's ops, the axis passed on as it is.
bool unresolved(const Rule& r) { return detail::unresolved(r.cotangent(), r.attrs()); }
const OpDef& take_def();
const OpDef& index_add_def();
const OpDef& take_along_axis_def();

std::vector<Tensor> take_vjp(const Rule& r) {
  std::vector<Tensor> g(2);
  if (!r.has_cotangent() || !r.wants(0)) return g;
  // The cotangent has x's dtype: index_add converts nothing.
  if (unresolved(r))
    g[0] = call1(index_add_def(), {zeros_like(r.in(0)), r.in(1), r.cotangent()}, r.attrs());
  else
    g[0] = index_add(zeros_like(r.in(0)), r.in(1), r.cotangent(), axis_of(r));
  return g;
}
std::vector<Tensor> take_along_axis_vjp(const Rule& r) {
  std::vector<Tensor> g(2);
  if (r.has_cotangent() && r.wants(0))
    g[0] = scatter_add(zeros_like(r.in(0)), r.in(1), r.cotangent(), axis_of(r));
  return g;
}
std::vector<Tensor> index_add_vjp(const Rule& r) {
  std::vector<Tensor> g(3);
  if (!r.has_cotangent()) return g;
  if (r.wants(0)) g[0] = r.cotangent();
  if (r.wants(2))
    g[2] = unresolved(r) ? call1(take_def(), {r.cotangent(), r.in(1)}, r.attrs())
                         : take(r.cotangent(), r.in(1), axis_of(r));
  return g;
}
std::vector<Tensor> scatter_add_vjp(const Rule& r) {
  std::vector<Tensor> g(3);
  if (!r.has_cotangent()) return g;
  if (r.wants(0)) g[0] = r.cotangent();
  // Off the axis, the indices match x (check_along): nothing is broadcast.
  if (r.wants(2))
    g[2] = unresolved(r) ? call1(take_along_axis_def(), {r.cotangent(), r.in(1)}, r.attrs())
                         : take_along_axis(r.cotangent(), r.in(1), axis_of(r));
  return g;
}

const OpDef& take_op =
    def_op("take")
        .linear({0})
        .called_as(
            {.names = {"take", "embedding"}, .attributes = {"axis"}, .defaults = {{"axis", std::int64_t{0}}}})
        .cpp([](detail::CppOp& op) {
          return detail::cpp_call("tl::take", op, {detail::cpp_attr(op.attrs(), "axis")});
        })
        .inputs(2)
        .shape_rule([](std::span<const TensorType> in, const Attrs& attrs) {
          const std::size_t axis = rule_axis("take", attrs, in[0], in[1]);
          return std::vector<TensorType>{{in[0].dtype, take_shape(in[0].shape, in[1].shape, axis)}};
        })
        .kernel([](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType> out) {
          return gather_kernel<false>("take", in[0], in[1], std::size_t(axis_in(attrs, in[0].shape().size())),
                                      out[0]);
        })
        .jvp(detail::linear_jvp({0}))
        .vjp(take_vjp)
        .lower(detail::lower_take(false));

const OpDef& take_along_axis_op =
    def_op("take_along_axis")
        .linear({0})
        .cpp([](detail::CppOp& op) {
          return detail::cpp_call("tl::take_along_axis", op, {detail::cpp_attr(op.attrs(), "axis")});
        })
        .inputs(2)
        .shape_rule([](std::span<const TensorType> in, const Attrs& attrs) {
          const std::size_t axis = rule_axis("take_along_axis", attrs, in[0], in[1]);
          check_along("take_along_axis", in[0].shape, in[1].shape, axis);
          return std::vector<TensorType>{{in[0].dtype, in[1].shape}};
        })
        .kernel([](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType> out) {
          return gather_kernel<true>("take_along_axis", in[0], in[1],
                                     std::size_t(axis_in(attrs, in[0].shape().size())), out[0]);
        })
        .jvp(detail::linear_jvp({0}))
        .vjp(take_along_axis_vjp)
        .lower(detail::lower_take(true));

const OpDef& index_add_op =
    def_op("index_add")
        .linear({0, 2})
        .called_as({.names = {"index_add"}, .attributes = {"axis"}, .converted = {{2, 0}}})
        .cpp([](detail::CppOp& op) {
          return detail::cpp_call("tl::index_add", op, {detail::cpp_attr(op.attrs(), "axis")});
        })
        .inputs(3)
        .shape_rule([](std::span<const TensorType> in, const Attrs& attrs) {
          const std::size_t axis = rule_axis("index_add", attrs, in[0], in[1]);
          check_updates("index_add", in[0], in[2], take_shape(in[0].shape, in[1].shape, axis));
          return std::vector<TensorType>{in[0]};
        })
        .kernel([](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType>) {
          return scatter_kernel<false>("index_add", in[0], in[1], in[2],
                                       std::size_t(axis_in(attrs, in[0].shape().size())));
        })
        .jvp(detail::linear_jvp({0, 2}))
        .vjp(index_add_vjp)
        .lower(detail::lower_index_add(false));

const OpDef& scatter_add_op =
    def_op("scatter_add")
        .linear({0, 2})
        .called_as({.names = {"scatter_add"}, .attributes = {"axis"}, .converted = {{2, 0}}})
        .cpp([](detail::CppOp& op) {
          return detail::cpp_call("tl::scatter_add", op, {detail::cpp_attr(op.attrs(), "axis")});
        })
        .inputs(3)
        .shape_rule([](std::span<const TensorType> in, const Attrs& attrs) {
          const std::size_t axis = rule_axis("scatter_add", attrs, in[0], in[1]);
          check_along("scatter_add", in[0].shape, in[1].shape, axis);
          check_updates("scatter_add", in[0], in[2], in[1].shape);
          return std::vector<TensorType>{in[0]};
        })
        .kernel([](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType>) {
          return scatter_kernel<true>("scatter_add", in[0], in[1], in[2],
                                      std::size_t(axis_in(attrs, in[0].shape().size())));
        })
        .jvp(detail::linear_jvp({0, 2}))
        .vjp(scatter_add_vjp)
        .lower(detail::lower_index_add(true));

const OpDef& take_def() { return take_op; }
const OpDef& take_along_axis_def() { return take_along_axis_op; }
const OpDef& index_add_def() { return index_add_op; }

std::int64_t public_axis(std::string_view op, const Tensor& x, std::int64_t axis) {
  if (x.rank() == 0) fail<AxisError>(op, "needs a tensor of rank 1 or more, got rank 0");
  return detail::normalize_axis(op, axis, x.rank());
}

}  // namespace

Tensor take(const Tensor& x, const Tensor& indices, std::int64_t axis) {
  if (detail::is_untyped(x)) return call1(take_op, {x, indices}, {{"axis", axis}});
  return call1(take_op, {x, indices}, {{"axis", public_axis("take", x, axis)}});
}

// Non-axis dims of x and indices broadcast against each other, as in NumPy.
detail::AlongShapes detail::along_shapes(const Shape& x, const Shape& indices, std::int64_t axis) {
  if (x.empty()) fail<AxisError>("take_along_axis", "needs a tensor of rank 1 or more, got rank 0");
  const auto a = std::size_t(normalize_axis("take_along_axis", axis, std::int64_t(x.size())));
  if (indices.size() != x.size())
    fail<ShapeError>("take_along_axis", "indices {} must have the rank of {}", shape_string(indices),
                     shape_string(x));
  Shape xs = x, is = indices;
  xs[a] = is[a] = 1;
  const Shape common = broadcast_shapes("take_along_axis", xs, is);
  AlongShapes s{common, common, std::int64_t(a)};
  s.x[a] = x[a];
  s.indices[a] = indices[a];
  return s;
}

Tensor take_along_axis(const Tensor& x, const Tensor& indices, std::int64_t axis) {
  if (detail::is_untyped(x) || detail::is_untyped(indices))
    return detail::record_take_along_axis(x, indices, axis);
  const detail::AlongShapes s = detail::along_shapes(x.shape(), indices.shape(), axis);
  // A bad index dtype is refused by the rule, which names it.
  const Tensor xb = broadcast_to(x, s.x);
  const Tensor ib = broadcast_to(indices, s.indices);
  return call1(take_along_axis_op, {xb, ib}, {{"axis", s.axis}});
}

// The engine's rules of what tl::take_along_axis records, in its order: the scatter of
// g into zeros of the broadcast x, then summed back to x's shape.
Tensor derivatives::take_along_axis_backward(const Tensor& g, const Shape& shape, const Tensor& indices,
                                             std::int64_t axis) {
  const detail::AlongShapes s = detail::along_shapes(shape, indices.shape(), axis);
  const Tensor spread = scatter_add(zeros(s.x, g.dtype()), broadcast_to(indices, s.indices), g, s.axis);
  return sum_to_size(spread, shape);
}

// Updates take x's dtype, as an assignment into x would.
Tensor scatter_add(const Tensor& x, const Tensor& indices, const Tensor& updates, std::int64_t axis) {
  if (detail::is_untyped(x))
    return call1(scatter_add_op, {x, indices, detail::astype_like(updates, x)}, {{"axis", axis}});
  const std::int64_t a = public_axis("scatter_add", x, axis);
  return call1(scatter_add_op, {x, indices, updates.astype(x.dtype())}, {{"axis", a}});
}

Tensor index_add(const Tensor& x, const Tensor& indices, const Tensor& updates, std::int64_t axis) {
  if (detail::is_untyped(x))
    return call1(index_add_op, {x, indices, detail::astype_like(updates, x)}, {{"axis", axis}});
  const std::int64_t a = public_axis("index_add", x, axis);
  return call1(index_add_op, {x, indices, updates.astype(x.dtype())}, {{"axis", a}});
}

}  // namespace tlaloc
