// Reductions over any set of axes, arg-reductions and scans. Primitive reductions
// (sum, prod, max, min) have kernels; mean, var, std, logsumexp, any and all are
// composites of them.
#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <type_traits>

#include "core/convert.hpp"
#include "core/dispatch_type.hpp"
#include "core/layout.hpp"
#include "core/reduce_kernels.hpp"
#include "core/tensor_impl.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/elementwise_rules.hpp"
#include "ops/like.hpp"
#include "ops/reduce_axes.hpp"
#include "ops/reduce_lower.hpp"
#include "ops/rule.hpp"
#include "tlaloc/derivatives.hpp"
#include "tlaloc/ops.hpp"
#include "tlaloc/transforms.hpp"

namespace tlaloc {
namespace {

using detail::Attrs;
using detail::call1;
using detail::def_op;
using detail::OpDef;
using detail::TensorType;

// Where the reduced elements lie: x seen as [outer, r, inner], after an optional permutation.
struct ReduceLayout {
  std::vector<std::int64_t> perm;  // empty: no permutation needed
  std::int64_t outer = 1, r = 1, inner = 1;
};

ReduceLayout layout_for(const Shape& s, const std::vector<std::int64_t>& axes) {
  ReduceLayout l;
  const bool contiguous = axes.empty() || axes.back() - axes.front() + 1 == std::int64_t(axes.size());
  if (contiguous) {
    const std::int64_t a0 = axes.empty() ? std::int64_t(s.size()) : axes.front();
    const std::int64_t a1 = axes.empty() ? a0 - 1 : axes.back();
    for (std::int64_t d = 0; d < std::int64_t(s.size()); ++d) {
      auto& part = d < a0 ? l.outer : d <= a1 ? l.r : l.inner;
      part *= s[std::size_t(d)];
    }
    return l;
  }
  std::vector<bool> reduced(s.size(), false);
  for (auto a : axes) reduced[std::size_t(a)] = true;
  for (std::size_t d = 0; d < s.size(); ++d)
    if (!reduced[d]) { l.perm.push_back(std::int64_t(d)); l.outer *= s[d]; }
  for (auto a : axes) { l.perm.push_back(a); l.r *= s[std::size_t(a)]; }
  return l;
}

Shape reduced_shape(const Shape& s, const std::vector<std::int64_t>& axes, bool keepdims) {
  Shape out;
  std::size_t k = 0;
  for (std::size_t d = 0; d < s.size(); ++d) {
    const bool reduced = k < axes.size() && axes[k] == std::int64_t(d);
    if (reduced) ++k;
    if (!reduced) out.push_back(s[d]);
    else if (keepdims) out.push_back(1);
  }
  return out;
}

// The accumulation dtype of sum/prod/cumsum/cumprod: integers and bool widen to
// i64, except u64, which i64 cannot hold: it accumulates in itself (wrapping).
// Floating and complex types accumulate in themselves.
DType widened(DType t) { return is_inexact(t) || t == DType::u64 ? t : DType::i64; }

enum class ReduceDType { widen, same, boolean };

detail::ShapeRule reduce_rule(std::string op, ReduceDType rule) {
  return [op = std::move(op), rule](std::span<const TensorType> in, const Attrs& attrs) {
    const auto axes = detail::reduced_axes(op, attrs, std::int64_t(in[0].shape.size()));
    const DType t = rule == ReduceDType::widen ? widened(in[0].dtype)
                    : rule == ReduceDType::boolean ? DType::boolean
                                                   : in[0].dtype;
    return std::vector<TensorType>{{t, reduced_shape(in[0].shape, axes, attrs.get<bool>("keepdims"))}};
  };
}

// The dtypes sum, prod and the scans return (widened): only they need kernels.
#define TLALOC_SWITCH_WIDENED(dtype, op, ...)                                      \
  switch (dtype) {                                                                 \
    TLALOC_DTYPE_CASE(::tlaloc::DType::f32, float, __VA_ARGS__)                    \
    TLALOC_DTYPE_CASE(::tlaloc::DType::f64, double, __VA_ARGS__)                   \
    TLALOC_DTYPE_CASE(::tlaloc::DType::bf16, ::tlaloc::bf16, __VA_ARGS__)          \
    TLALOC_DTYPE_CASE(::tlaloc::DType::f16, ::tlaloc::f16, __VA_ARGS__)            \
    TLALOC_DTYPE_CASE(::tlaloc::DType::i64, std::int64_t, __VA_ARGS__)             \
    TLALOC_DTYPE_CASE(::tlaloc::DType::u64, std::uint64_t, __VA_ARGS__)            \
    TLALOC_SWITCH_COMPLEX_CASES(__VA_ARGS__)                                       \
    default:                                                                       \
      ::tlaloc::detail::fail<::tlaloc::DTypeError>(op, "no kernel for {}", dtype); \
  }

template <template <class> class Op>
std::vector<Tensor> reduce_kernel(std::string_view name, const Tensor& x, const Attrs& attrs,
                                  const TensorType& out_type) {
  const auto axes = detail::reduced_axes(name, attrs, x.rank());
  // 16-bit floats are read as they are and accumulate in f32; other types convert first.
  Tensor src = is_half(out_type.dtype) ? x : x.astype(out_type.dtype);
  const ReduceLayout l = layout_for(src.shape(), axes);
  if (!l.perm.empty()) src = detail::permute_copy(src, l.perm);
  Tensor out = detail::empty(out_type.shape, out_type.dtype);
  auto run = [&]<class T>() {
    using A = detail::compute_t<T>;
    detail::reduce_3d<Op<A>, A, T, T>(src.data<T>(), detail::mutable_data<T>(out), l.outer, l.r, l.inner,
                                      +[](A a) { return detail::convert_value<T>(a); });
  };
  constexpr bool widens =
      std::is_same_v<Op<float>, detail::SumOp<float>> || std::is_same_v<Op<float>, detail::ProdOp<float>>;
  if constexpr (widens) {
    TLALOC_SWITCH_WIDENED(out_type.dtype, name, run.template operator()<T>())
  } else {
    TLALOC_SWITCH_ALL(out_type.dtype, name, run.template operator()<T>())
  }
  return {out};
}

// ---- derivatives ------------------------------------------------------------------
using detail::Rule;

// A reduction's cotangent spread over x's shape (a public function, which generated
// gradients call).
Tensor spread(const Tensor& g, const Rule& r) { return detail::sum_backward_like(g, r.in(0), r.attrs()); }

std::vector<Tensor> sum_vjp(const Rule& r) {
  return {detail::astype_like(spread(r.cotangent(), r), r.in(0))};
}

// max's and min's rules are public functions (below), which generated gradients call too;
// like.cpp records them as ops where a type is unknown.
std::vector<Tensor> extreme_jvp(const Rule& r) {
  return {detail::extreme_jvp_like(r.tangent(0), r.in(0), r.out(0), r.attrs())};
}
std::vector<Tensor> extreme_vjp(const Rule& r) {
  return {detail::extreme_backward_like(r.cotangent(), r.in(0), r.out(0), r.attrs())};
}

// x shifted one place along its last axis, the vacated place holding 1:
// [1, x_0, ..., x_{R-2}]. One pad op (negative high padding drops the last element).
Tensor shifted_in_one(const Tensor& x) {
  static const OpDef& pad = *detail::find_op("pad");
  const std::size_t rank = std::size_t(x.rank());
  std::vector<std::int64_t> lo(rank, 0), hi(rank, 0);
  lo.back() = 1;
  hi.back() = -1;
  return call1(pad, {x, scalar_tensor(1, x.dtype())},
               {{"edge_padding_low", lo}, {"edge_padding_high", hi}, {"interior_padding", std::vector<std::int64_t>(rank, 0)}});
}

// reduce_prod: dy/dx_j is the product of all the other reduced elements. With the
// reduced axes moved last and flattened, that is (x_0 ... x_{j-1}) (x_{j+1} ...
// x_{R-1}): exclusive cumulative products from both ends, exact when elements are
// zero (y / x_j would divide by zero).
Tensor prod_of_others(const Tensor& x, const std::vector<std::int64_t>& axes) {
  if (axes.empty()) return ones_like(x);
  std::vector<std::int64_t> perm;
  Shape moved;
  std::vector<bool> reduced(std::size_t(x.rank()), false);
  for (auto a : axes) reduced[std::size_t(a)] = true;
  for (std::int64_t d = 0; d < x.rank(); ++d)
    if (!reduced[std::size_t(d)]) { perm.push_back(d); moved.push_back(x.shape()[std::size_t(d)]); }
  Shape flat = moved;
  flat.push_back(-1);
  for (auto a : axes) { perm.push_back(a); moved.push_back(x.shape()[std::size_t(a)]); }
  bool identity = true;
  for (std::size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == std::int64_t(i);
  const Tensor xt = reshape(identity ? x : transpose(x, perm), flat);
  const std::int64_t last = xt.rank() - 1;
  const Tensor before = cumprod(shifted_in_one(xt), last);
  const Tensor after = reverse(cumprod(shifted_in_one(reverse(xt, last)), last), last);
  const Tensor others = reshape(before * after, moved);
  if (identity) return others;
  std::vector<std::int64_t> inverse(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) inverse[std::size_t(perm[i])] = std::int64_t(i);
  return transpose(others, inverse);
}
// prod's and cumprod's rules are public functions (below), which generated gradients
// call too; at build time each is recorded as one op (prod_calls.cpp).
std::vector<Tensor> prod_jvp(const Rule& r) {
  return {detail::prod_jvp_like(r.tangent(0), r.in(0), r.attrs())};
}
std::vector<Tensor> prod_vjp(const Rule& r) {
  return {detail::prod_backward_like(r.cotangent(), r.in(0), r.attrs())};
}

// Scans. cumsum is linear; its transpose is the library's cumsum_backward (defined
// after the ops).
std::vector<Tensor> cumsum_vjp(const Rule& r);

// cumprod: y_k = x_0 ... x_k. Where no zero comes before or at j, dy_k/dx_j = y_k /
// x_j is exact. From a lane's first zero z on, y_k = x_z * y'_k, where y' is the
// cumprod of x' (x with x_z taken as 1): the rules there are x_z's share of that
// product plus x_z times the rule of x'. Their value is the same as writing zeros
// after z, but differentiated again they keep the terms through x_z itself, so second
// derivatives hold at zeros (and every order where a lane has one zero: x' has none).
struct ScanZeros {
  Tensor before;      // no zero at or before this position in its lane
  Tensor first_zero;  // the lane's first zero
  Tensor safe_x;      // x where `before`, 1 elsewhere
  Tensor skipped;     // x', x with the first zero taken as 1
  Tensor skip_zero;   // y', the cumprod of x'
};
ScanZeros scan_zeros(const Tensor& x, std::int64_t axis) {
  const Tensor zero = x == 0.0;
  const Tensor count = cumsum(zero.astype(DType::i64), axis);
  ScanZeros s;
  s.before = count == 0;
  s.first_zero = zero & (count == 1);
  s.safe_x = where(s.before, x, 1.0);
  s.skipped = where(s.first_zero, 1.0, x);
  s.skip_zero = cumprod(s.skipped, axis);
  return s;
}
// The lane's first zero x_z, along its lane (0 where it has none); its tangent is x_z's.
Tensor zero_of_lane(const Tensor& x, const ScanZeros& s, std::int64_t axis) {
  return sum(where(s.first_zero, x, 0.0), axis, true);
}
std::vector<Tensor> cumprod_jvp(const Rule& r) {
  return {detail::cumprod_jvp_like(r.tangent(0), r.in(0), r.out(0), r.attrs())};
}
std::vector<Tensor> cumprod_vjp(const Rule& r) {
  return {detail::cumprod_backward_like(r.cotangent(), r.in(0), r.out(0), r.attrs())};
}

// Printed as tl::sum(x) over all axes, else tl::sum(x, {axes}, keepdims); axes and
// keepdims known at run time only as written.
detail::CppSpelling reduce_spelling(std::string fn) {
  return [fn = std::move(fn)](detail::CppOp& op) {
    const Attrs& a = op.attrs();
    // Axes recorded where the rank is unknown say "all" either way, or are written.
    const bool all = detail::every_axis(a) ||
                     (!a.has("all") && !a.any_written() &&
                      a.get<std::vector<std::int64_t>>("axes").size() == op.operand_type(0).shape.size());
    const bool keep = a.any_written() || a.get<bool>("keepdims");
    if (!keep && all) return detail::cpp_call(fn, op);
    return detail::cpp_call(fn, op, {all ? "{}" : detail::cpp_axes_of(a), detail::cpp_attr(a, "keepdims")});
  };
}
detail::CppSpelling axis_spelling(std::string fn) {
  return [fn = std::move(fn)](detail::CppOp& op) {
    std::vector<std::string> extra{detail::cpp_attr(op.attrs(), "axis")};
    if (op.attrs().has("keepdims")) extra.push_back(detail::cpp_bool(op.attrs().get<bool>("keepdims")));
    return detail::cpp_call(fn, op, extra);
  };
}

// A reduction over every axis without keepdims gives rank 0; a floating one keeps
// its operand's dtype.
OpDef::TypeOrigin reduced_origin(const Attrs& attrs) {
  const bool rank0 = !attrs.any_written() && detail::every_axis(attrs) && !attrs.get<bool>("keepdims");
  return {rank0 ? OpDef::TypeOrigin::kRank0 : OpDef::TypeOrigin::kOwn, 0};
}

#define TLALOC_DEF_REDUCE(var, name, Op, rule, body, rules)                                    \
  const OpDef& var = def_op(name).inputs(1).shape_rule(reduce_rule(name, rule)).kernel(       \
      [](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType> out) {    \
        return reduce_kernel<Op>(name, in[0], attrs, out[0]);                                   \
      }).lower(detail::lower_to_reduce(name, detail::ReduceBody::body)) rules;
// tl::sum, tl::max and tl::min record one op each; tlaloc-grad records their axes and
// keepdims as written (absent axes: every axis).
OpDef::PublicCall reduction_call(std::string fn) {
  return {.names = {std::move(fn)}, .attributes = {"axes", "keepdims"}, .defaults = {{"keepdims", false}}};
}
TLALOC_DEF_REDUCE(reduce_sum_op, "reduce_sum", detail::SumOp, ReduceDType::widen, add,
                  .cpp(reduce_spelling("tl::sum"))
                      .called_as(reduction_call("sum"))
                      .type_origin(reduced_origin)
                      .linear()
                      .jvp(detail::linear_jvp({0}))
                      .vjp(sum_vjp))
TLALOC_DEF_REDUCE(reduce_prod_op, "reduce_prod", detail::ProdOp, ReduceDType::widen, mul,
                  .cpp(reduce_spelling("tl::prod"))
                      .called_as(reduction_call("prod"))
                      .type_origin(reduced_origin)
                      .jvp(prod_jvp)
                      .vjp(prod_vjp))
TLALOC_DEF_REDUCE(reduce_max_op, "reduce_max", detail::MaxOp, ReduceDType::same, max,
                  .cpp(reduce_spelling("tl::max"))
                      .called_as(reduction_call("max"))
                      .type_origin(reduced_origin)
                      .jvp(extreme_jvp)
                      .vjp(extreme_vjp))
TLALOC_DEF_REDUCE(reduce_min_op, "reduce_min", detail::MinOp, ReduceDType::same, min,
                  .cpp(reduce_spelling("tl::min"))
                      .called_as(reduction_call("min"))
                      .type_origin(reduced_origin)
                      .jvp(extreme_jvp)
                      .vjp(extreme_vjp))
#undef TLALOC_DEF_REDUCE

// argmax / argmin over one axis: the first extreme index; NaN counts as the extreme.
template <bool is_max> std::vector<Tensor> arg_kernel(const Tensor& x, const Attrs& attrs,
                                                      const TensorType& out_type) {
  const char* name = is_max ? "argmax" : "argmin";
  const std::int64_t axis = detail::normalize_axis(name, attrs.get<std::int64_t>("axis"), x.rank());
  const ReduceLayout l = layout_for(x.shape(), {axis});
  Tensor out = detail::empty(out_type.shape, DType::i64);
  std::int64_t* dst = detail::mutable_data<std::int64_t>(out);
  if (l.r == 0 && l.outer * l.inner > 0) detail::fail<ValueError>(name, "cannot reduce an empty axis");
  TLALOC_SWITCH_ALL(x.dtype(), name, {
    using A = detail::compute_t<T>;
    const T* src = x.data<T>();
    detail::parallel_for(l.outer * l.inner, 1024, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t u = b; u < e; ++u) {
        const std::int64_t o = u / l.inner, j = u % l.inner;
        const T* p = src + o * l.r * l.inner + j;
        A best = A(p[0]);
        std::int64_t at = 0;
        for (std::int64_t k = 1; k < l.r && best == best; ++k) {
          const A v = A(p[k * l.inner]);
          if (v != v || (is_max ? v > best : v < best)) { best = v; at = k; }
        }
        dst[u] = at;
      }
    });
  })
  return {out};
}

detail::ShapeRule arg_rule(std::string op) {
  return [op = std::move(op)](std::span<const TensorType> in, const Attrs& attrs) {
    const auto axis = detail::normalize_axis(op, attrs.get<std::int64_t>("axis"), std::int64_t(in[0].shape.size()));
    return std::vector<TensorType>{{DType::i64, reduced_shape(in[0].shape, {axis}, attrs.get<bool>("keepdims"))}};
  };
}
const OpDef& argmax_op =
    def_op("argmax")
        .no_derivative()
        .inputs(1)
        .shape_rule(arg_rule("argmax"))
        .kernel([](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType> out) {
          return arg_kernel<true>(in[0], attrs, out[0]);
        })
        .lower(detail::lower_arg_reduce(true))
        .cpp(axis_spelling("tl::argmax"));
const OpDef& argmin_op =
    def_op("argmin")
        .no_derivative()
        .inputs(1)
        .shape_rule(arg_rule("argmin"))
        .kernel([](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType> out) {
          return arg_kernel<false>(in[0], attrs, out[0]);
        })
        .lower(detail::lower_arg_reduce(false))
        .cpp(axis_spelling("tl::argmin"));

// Inclusive scans along one axis, accumulating in the result type.
template <template <class> class Op> std::vector<Tensor> scan_kernel(std::string_view name, const Tensor& x,
                                                                     const Attrs& attrs, const TensorType& out_type) {
  const std::int64_t axis = detail::normalize_axis(name, attrs.get<std::int64_t>("axis"), x.rank());
  const Tensor src = x.astype(out_type.dtype);
  const ReduceLayout l = layout_for(x.shape(), {axis});
  Tensor out = detail::empty(out_type.shape, out_type.dtype);
  TLALOC_SWITCH_WIDENED(out_type.dtype, name, {
    using A = detail::compute_t<T>;
    const T* s = src.data<T>();
    T* d = detail::mutable_data<T>(out);
    detail::parallel_for(l.outer, 1, [&](std::int64_t b, std::int64_t e) {
      auto acc = std::make_unique<A[]>(std::size_t(l.inner));  // not vector<bool>
      for (std::int64_t o = b; o < e; ++o) {
        std::fill(acc.get(), acc.get() + l.inner, Op<A>::init());
        for (std::int64_t k = 0; k < l.r; ++k) {
          const std::int64_t base = (o * l.r + k) * l.inner;
          for (std::int64_t j = 0; j < l.inner; ++j) {
            acc[std::size_t(j)] = Op<A>::combine(acc[std::size_t(j)], A(s[base + j]));
            d[base + j] = detail::convert_value<T>(acc[std::size_t(j)]);
          }
        }
      }
    });
  })
  return {out};
}

detail::ShapeRule scan_rule(std::string op) {
  return [op = std::move(op)](std::span<const TensorType> in, const Attrs& attrs) {
    detail::normalize_axis(op, attrs.get<std::int64_t>("axis"), std::int64_t(in[0].shape.size()));
    return std::vector<TensorType>{{widened(in[0].dtype), in[0].shape}};
  };
}
const OpDef& cumsum_op =
    def_op("cumsum")
        .linear()
        .inputs(1)
        .called_as({.names = {"cumsum"}, .attributes = {"axis"}})
        .shape_rule(scan_rule("cumsum"))
        .kernel([](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType> out) {
          return scan_kernel<detail::SumOp>("cumsum", in[0], attrs, out[0]);
        })
        .lower(detail::lower_scan("cumsum", detail::ReduceBody::add))
        .jvp(detail::linear_jvp({0}))
        .vjp(cumsum_vjp)
        .cpp(axis_spelling("tl::cumsum"));
// tl::derivatives::cumsum_backward recorded on a value of unknown type (or an axis
// known at run time only); its transpose is cumsum.
const OpDef& cumsum_backward_op =
    def_op("cumsum_backward")
        .linear()
        .inputs(1)
        .called_as({.names = {"cumsum_backward"}, .attributes = {"axis"}})
        .shape_rule([](std::span<const TensorType> in, const Attrs& attrs) {
          detail::normalize_axis("cumsum_backward", attrs.get<std::int64_t>("axis"),
                                 std::int64_t(in[0].shape.size()));
          return std::vector<TensorType>{in[0]};
        })
        .kernel([](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType>) {
          return std::vector<Tensor>{derivatives::cumsum_backward(in[0], attrs.get<std::int64_t>("axis"))};
        })
        .jvp(detail::linear_jvp({0}))
        .vjp([](const Rule& r) {
          if (detail::unresolved(r.cotangent(), r.attrs()))
            return std::vector<Tensor>{call1(cumsum_op, {r.cotangent()}, r.attrs())};
          return std::vector<Tensor>{cumsum(r.cotangent(), r.attr<std::int64_t>("axis"))};
        })
        .cpp(axis_spelling("tl::derivatives::cumsum_backward"));

std::vector<Tensor> cumsum_vjp(const Rule& r) {
  if (detail::unresolved(r.cotangent(), r.attrs()))
    return {call1(cumsum_backward_op, {r.cotangent()}, r.attrs())};
  return {derivatives::cumsum_backward(r.cotangent(), r.attr<std::int64_t>("axis"))};
}

const OpDef& cumprod_op =
    def_op("cumprod")
        .inputs(1)
        .shape_rule(scan_rule("cumprod"))
        .kernel([](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType> out) {
          return scan_kernel<detail::ProdOp>("cumprod", in[0], attrs, out[0]);
        })
        .lower(detail::lower_scan("cumprod", detail::ReduceBody::mul))
        .jvp(cumprod_jvp)
        .vjp(cumprod_vjp)
        .cpp(axis_spelling("tl::cumprod"))
        .called_as({.names = {"cumprod"}, .attributes = {"axis"}});

std::vector<std::int64_t> axes_list(std::int64_t rank, const Axes& axes) {
  if (!axes.all()) return axes.list();
  std::vector<std::int64_t> all(static_cast<std::size_t>(rank));
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = std::int64_t(i);
  return all;
}
}  // namespace

Tensor sum(const Tensor& x, Axes axes, bool keepdims) {
  return call1(reduce_sum_op, {x}, detail::reduction_attrs("sum", x, axes, keepdims));
}
Tensor sum_to_size(const Tensor& x, const Shape& shape) {
  if (detail::is_untyped(x)) return detail::to_shape(detail::ToShapeOp::sum_to_size, x, shape);
  if (x.shape() == shape) return x;
  const std::size_t rank = x.shape().size();
  if (shape.size() > rank) detail::fail<ShapeError>("sum_to_size", "{} has fewer axes than {}", shape_string(x.shape()), shape_string(shape));
  const std::size_t lead = rank - shape.size();
  std::vector<std::int64_t> axes;
  for (std::size_t i = 0; i < rank; ++i) {
    if (i < lead || (shape[i - lead] == 1 && x.shape()[i] != 1)) {
      axes.push_back(std::int64_t(i));
    } else if (shape[i - lead] != x.shape()[i]) {
      detail::fail<ShapeError>("sum_to_size", "{} does not broadcast to {}", shape_string(shape), shape_string(x.shape()));
    }
  }
  const Tensor r = axes.empty() ? x : sum(x, Axes(axes), true);
  return r.shape() == shape ? r : reshape(r, shape);
}
Tensor sum_to_shape_of(const Tensor& g, const Tensor& x) {
  if (!g.defined()) return g;
  if (detail::is_untyped(g) || detail::is_untyped(x))
    return detail::like_call(detail::LikeOp::sum_to_shape_of, g, x);
  const Tensor r = sum_to_size(g, x.shape());
  return r.dtype() == x.dtype() ? r : r.astype(x.dtype());
}
Tensor prod(const Tensor& x, Axes axes, bool keepdims) {
  return call1(reduce_prod_op, {x}, detail::reduction_attrs("prod", x, axes, keepdims));
}

// ---- the derivatives of sum, cumsum, prod and cumprod -------------------------------------

Tensor derivatives::sum_backward(const Tensor& g, const Shape& shape, Axes axes, bool keepdims) {
  std::vector<std::int64_t> all(shape.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = std::int64_t(i);
  const auto a =
      detail::normalize_axes("sum_backward", axes.all() ? all : axes.list(), std::int64_t(shape.size()));
  const Shape want = reduced_shape(shape, a, keepdims);
  if (g.shape() != want)
    detail::fail<ShapeError>("sum_backward", "g is {}, but the sum of {} is {}", shape_string(g.shape()),
                             shape_string(shape), shape_string(want));
  return broadcast_to(keepdims ? g : reshape(g, reduced_shape(shape, a, true)), shape);
}

Tensor derivatives::cumsum_backward(const Tensor& g, std::int64_t axis) {
  if (detail::is_untyped(g)) return call1(cumsum_backward_op, {g}, {{"axis", axis}});
  const std::int64_t a = detail::normalize_axis("cumsum_backward", axis, g.rank());
  return reverse(cumsum(reverse(g, a), a), a);
}

namespace {
// The normalized axes of a reduction of x (prod, max, min), with a check that `t` (a cotangent
// of the result, or a tangent of x) has the shape it must have.
std::vector<std::int64_t> checked_axes(std::string_view fn, const Tensor& t, const Tensor& x,
                                       const Axes& axes, bool keepdims, bool of_result) {
  const auto a = detail::normalize_axes(fn, axes_list(x.rank(), axes), x.rank());
  const Shape want = of_result ? reduced_shape(x.shape(), a, keepdims) : x.shape();
  if (t.shape() != want)
    detail::fail<ShapeError>(fn, "{} is {}, but {} {}", of_result ? "g" : "t", shape_string(t.shape()),
                             of_result ? "the reduction of x is" : "x is", shape_string(want));
  return a;
}
void check_scan(std::string_view fn, const Tensor& t, const Tensor& x, const Tensor& y) {
  if (t.shape() != x.shape() || y.shape() != x.shape())
    detail::fail<ShapeError>(fn, "x is {}, but {} and y are {} and {}", shape_string(x.shape()),
                             fn == "cumprod_jvp" ? "t" : "g", shape_string(t.shape()),
                             shape_string(y.shape()));
}
}  // namespace

Tensor derivatives::prod_backward(const Tensor& g, const Tensor& x, Axes axes, bool keepdims) {
  const auto a = checked_axes("prod_backward", g, x, axes, keepdims, true);
  return derivatives::sum_backward(g, x.shape(), Axes(a), keepdims) * prod_of_others(x, a);
}
Tensor derivatives::prod_jvp(const Tensor& t, const Tensor& x, Axes axes, bool keepdims) {
  const auto a = checked_axes("prod_jvp", t, x, axes, keepdims, false);
  return sum(t * prod_of_others(x, a), Axes(a), keepdims);
}
namespace {
// The rules with zeros written after each lane's first zero: exact, but constant there
// when differentiated again (the rules below apply them to x', one zero fewer).
Tensor cumprod_backward_flat(const Tensor& g, const Tensor& x, const Tensor& y, std::int64_t axis) {
  const ScanZeros z = scan_zeros(x, axis);
  const Tensor early = derivatives::cumsum_backward(g * y, axis) / z.safe_x;
  const Tensor at_zero = derivatives::cumsum_backward(g * z.skip_zero, axis);
  return where(z.before, early, where(z.first_zero, at_zero, 0.0));
}
Tensor cumprod_jvp_flat(const Tensor& t, const Tensor& x, const Tensor& y, std::int64_t axis) {
  const ScanZeros z = scan_zeros(x, axis);
  const Tensor early = y * cumsum(where(z.before, t, 0.0) / z.safe_x, axis);
  const Tensor late = sum(where(z.first_zero, t, 0.0), axis, true) * z.skip_zero;
  return where(z.before, early, late);
}
}  // namespace

Tensor derivatives::cumprod_backward(const Tensor& g, const Tensor& x, const Tensor& y, std::int64_t axis) {
  check_scan("cumprod_backward", g, x, y);
  const ScanZeros z = scan_zeros(x, axis);
  const Tensor early = derivatives::cumsum_backward(g * y, axis) / z.safe_x;
  // From z on: d(x_z * y'_k)/dx_j is y'_k's own at j = z, and x_z * dy'_k/dx_j after.
  const Tensor primed = cumprod_backward_flat(g, z.skipped, z.skip_zero, axis);
  return where(z.before, early, primed * where(z.first_zero, 1.0, zero_of_lane(x, z, axis)));
}
Tensor derivatives::cumprod_jvp(const Tensor& t, const Tensor& x, const Tensor& y, std::int64_t axis) {
  check_scan("cumprod_jvp", t, x, y);
  const ScanZeros z = scan_zeros(x, axis);
  const Tensor early = y * cumsum(where(z.before, t, 0.0) / z.safe_x, axis);
  // From z on: d(x_z * y'_k) = t_z * y'_k + x_z * dy'_k, where x'_z is a constant 1.
  const Tensor primed = cumprod_jvp_flat(where(z.first_zero, 0.0, t), z.skipped, z.skip_zero, axis);
  const Tensor late =
      sum(where(z.first_zero, t, 0.0), axis, true) * z.skip_zero + zero_of_lane(x, z, axis) * primed;
  return where(z.before, early, late);
}
namespace {
// The normalized axes of y = max(x, axes, keepdims) (or min), with checks of y and of
// `t` (y's cotangent, or x's tangent).
std::vector<std::int64_t> extreme_axes(std::string_view fn, const Tensor& t, const Tensor& x, const Tensor& y,
                                       const Axes& axes, bool keepdims, bool of_result) {
  const auto a = checked_axes(fn, t, x, axes, keepdims, of_result);
  const Shape want = reduced_shape(x.shape(), a, keepdims);
  if (y.shape() != want)
    detail::fail<ShapeError>(fn, "y is {}, but the reduction of x is {}", shape_string(y.shape()),
                             shape_string(want));
  return a;
}
// Each element's part: 1 / (the number of ties) where x equals y, 0 elsewhere.
Tensor extreme_share(const Tensor& x, const Tensor& y, const std::vector<std::int64_t>& a, bool keepdims) {
  const Tensor hit = (x == (keepdims ? y : reshape(y, reduced_shape(x.shape(), a, true)))).astype(x.dtype());
  return hit / sum(hit, Axes(a), true);
}
}  // namespace

Tensor derivatives::extreme_backward(const Tensor& g, const Tensor& x, const Tensor& y, Axes axes, bool keepdims) {
  const auto a = extreme_axes("extreme_backward", g, x, y, axes, keepdims, true);
  const Tensor spread = derivatives::sum_backward(g, x.shape(), Axes(a), keepdims);
  return spread * extreme_share(x, y, a, keepdims);
}
Tensor derivatives::extreme_jvp(const Tensor& t, const Tensor& x, const Tensor& y, Axes axes, bool keepdims) {
  const auto a = extreme_axes("extreme_jvp", t, x, y, axes, keepdims, false);
  return sum(t * extreme_share(x, y, a, keepdims), Axes(a), keepdims);
}
Tensor max(const Tensor& x, Axes axes, bool keepdims) {
  return call1(reduce_max_op, {x}, detail::reduction_attrs("max", x, axes, keepdims));
}
Tensor min(const Tensor& x, Axes axes, bool keepdims) {
  return call1(reduce_min_op, {x}, detail::reduction_attrs("min", x, axes, keepdims));
}
Tensor any(const Tensor& x, Axes axes, bool keepdims) {
  return call1(reduce_max_op, {x.astype(DType::boolean)}, detail::reduction_attrs("any", x, axes, keepdims));
}
Tensor all(const Tensor& x, Axes axes, bool keepdims) {
  return call1(reduce_min_op, {x.astype(DType::boolean)}, detail::reduction_attrs("all", x, axes, keepdims));
}

// The sizes the derived ops (tlaloc/derived_ops.hpp) check and use.
std::int64_t detail::reduced_count(std::string_view op, const Shape& shape, const Axes& axes) {
  std::int64_t n = 1;
  for (auto a : normalize_axes(op, axes_list(std::int64_t(shape.size()), axes), std::int64_t(shape.size())))
    n *= shape[std::size_t(a)];
  return n;
}
Shape detail::reduction_shape(std::string_view op, const Shape& shape, const Axes& axes, bool keepdims) {
  const auto rank = std::int64_t(shape.size());
  return reduced_shape(shape, normalize_axes(op, axes_list(rank, axes), rank), keepdims);
}

Tensor argmax(const Tensor& x, std::int64_t axis, bool keepdims) {
  return call1(argmax_op, {x}, {{"axis", axis}, {"keepdims", keepdims}});
}
Tensor argmin(const Tensor& x, std::int64_t axis, bool keepdims) {
  return call1(argmin_op, {x}, {{"axis", axis}, {"keepdims", keepdims}});
}
Tensor argmax(const Tensor& x) { return argmax(reshape(x, {-1}), 0); }
Tensor argmin(const Tensor& x) { return argmin(reshape(x, {-1}), 0); }
Tensor cumsum(const Tensor& x, std::int64_t axis) { return call1(cumsum_op, {x}, {{"axis", axis}}); }
Tensor cumprod(const Tensor& x, std::int64_t axis) { return call1(cumprod_op, {x}, {{"axis", axis}}); }

}  // namespace tlaloc
