// Ops that cut a box out of a tensor or put one into a bigger tensor: slice, pad,
// reverse, dynamic_slice, dynamic_update_slice; and iota. All are StableHLO ops of
// the same names and attributes. Data movement ignores the element type: kernels
// copy elements of the dtype's size, so every dtype works.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "core/check.hpp"
#include "core/convert.hpp"
#include "core/dispatch_type.hpp"
#include "core/layout.hpp"
#include "core/parallel.hpp"
#include "core/tensor_impl.hpp"
#include "ir/op.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/like.hpp"
#include "ops/rule.hpp"
#include "ops/untyped_calls.hpp"
#include "tlaloc/derivatives.hpp"
#include "tlaloc/lax.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc {
namespace {

using detail::Attrs;
using detail::call1;
using detail::def_op;
using detail::fail;
using detail::OpDef;
using detail::TensorType;
using Ints = std::vector<std::int64_t>;
using Hlo = detail::StableHloAttr;
using Kind = detail::StableHloAttr::Kind;
using detail::Rule;

// Derivative rules, defined after the ops (each uses ops declared further down).
std::vector<Tensor> slice_vjp(const Rule& r);
std::vector<Tensor> pad_vjp(const Rule& r);
std::vector<Tensor> reverse_vjp(const Rule& r);
std::vector<Tensor> dynamic_slice_vjp(const Rule& r);
std::vector<Tensor> dynamic_update_slice_vjp(const Rule& r);

// ---- the one copy loop --------------------------------------------------------

// Index i of `shape` maps to src[src_base + Σ i_d src_st_d] and dst[dst_base + Σ i_d dst_st_d]
// (strides in elements, possibly negative).
struct Box {
  Shape shape;
  std::int64_t src_base = 0, dst_base = 0;
  Ints src_st, dst_st;
};

// Rows [begin, end) of the box (a row runs along the last axis).
template <class E>
void copy_rows(const E* src, E* dst, const Box& b, std::int64_t begin, std::int64_t end) {
  const std::size_t r = b.shape.size();
  const std::int64_t inner = b.shape[r - 1], si = b.src_st[r - 1], di = b.dst_st[r - 1];
  // Decompose the first row once, then step the outer index like an odometer.
  Ints idx(r, 0);
  std::int64_t s = b.src_base, d = b.dst_base, rem = begin;
  for (std::size_t k = r - 1; k-- > 0;) {
    idx[k] = rem % b.shape[k];
    rem /= b.shape[k];
    s += idx[k] * b.src_st[k];
    d += idx[k] * b.dst_st[k];
  }
  for (std::int64_t row = begin; row < end; ++row) {
    if (si == 1 && di == 1) {
      std::copy(src + s, src + s + inner, dst + d);
    } else {
      for (std::int64_t i = 0; i < inner; ++i) dst[d + i * di] = src[s + i * si];
    }
    for (std::size_t k = r - 1; k-- > 0;) {
      s += b.src_st[k];
      d += b.dst_st[k];
      if (++idx[k] < b.shape[k]) break;
      s -= idx[k] * b.src_st[k];
      d -= idx[k] * b.dst_st[k];
      idx[k] = 0;
    }
  }
}

template <class E>
void copy_box_as(const E* src, E* dst, const Box& b) {
  const std::int64_t inner = b.shape.back();
  detail::parallel_for(
      detail::numel_of(b.shape) / inner, std::max<std::int64_t>(1, detail::kElementwiseGrain / inner),
      [src, dst, &b](std::int64_t begin, std::int64_t end) { copy_rows(src, dst, b, begin, end); });
}

void copy_box(const Tensor& src, const Tensor& dst, Box b) {
  if (detail::numel_of(b.shape) == 0) return;
  if (b.shape.empty()) b = {{1}, b.src_base, b.dst_base, {0}, {0}};
  detail::with_element_size(itemsize(src.dtype()), [&](auto tag) {
    using E = decltype(tag);
    copy_box_as(static_cast<const E*>(src.raw_data()), static_cast<E*>(dst.impl().data()), b);
  });
}

// A tensor sharing x's storage: `shape` elements starting `offset` elements in.
Tensor offset_view(const Tensor& x, const Shape& shape, std::int64_t offset) {
  auto impl = std::make_shared<detail::TensorImpl>(x.impl());
  impl->shape = shape;
  impl->numel = detail::numel_of(shape);
  impl->offset += std::size_t(offset) * itemsize(x.dtype());
  return Tensor(std::move(impl));
}

// The box [start, start + out * step) of x, as a view when those elements are
// contiguous in x (e.g. any range of rows), else as a copy.
Tensor strided_box(const Tensor& x, const Ints& start, const Ints& step, const Shape& out) {
  const Shape& s = x.shape();
  const Ints st = detail::strides_of(s);
  std::int64_t base = 0;
  for (std::size_t d = 0; d < s.size(); ++d) base += start[d] * st[d];
  // Contiguous: after the last partial axis k every axis is whole, and before it every size is 1.
  std::size_t k = s.size();
  while (k > 0 && out[k - 1] == s[k - 1] && (step[k - 1] == 1 || s[k - 1] <= 1)) --k;
  bool contiguous = k == 0 || step[k - 1] == 1 || out[k - 1] <= 1;
  for (std::size_t d = 0; contiguous && d + 1 < k; ++d) contiguous = out[d] == 1;
  if (contiguous && detail::numel_of(out) > 0) return offset_view(x, out, base);
  Tensor y = detail::empty(out, x.dtype());
  Box b{out, base, 0, Ints(s.size()), detail::strides_of(out)};
  for (std::size_t d = 0; d < s.size(); ++d) b.src_st[d] = st[d] * step[d];
  copy_box(x, y, std::move(b));
  return y;
}

void check_count(std::string_view op, const char* what, const Ints& v, std::size_t rank) {
  if (v.size() != rank) fail<ValueError>(op, "expects {} {} (one per axis), got {}", rank, what, v.size());
}

// ---- slice ----------------------------------------------------------------------

// StableHLO slice: result axis d holds x[start_d, start_d + stride_d, ...] below limit_d.
const OpDef& slice_op =
    def_op("slice")
        .linear()
        .cpp([](detail::CppOp& op) {
          const Ints& starts = op.attrs().get<Ints>("start_indices");
          // One axis: {0}, {5}, {2} would pick slice(x, axis, start, stop), so the
          // starts name their type.
          const std::string first = starts.size() == 1
                                        ? "std::vector<std::int64_t>" + detail::cpp_ints(starts)
                                        : detail::cpp_ints(starts);
          return detail::cpp_call("tl::slice", op,
                                  {first, detail::cpp_ints(op.attrs().get<Ints>("limit_indices")),
                                   detail::cpp_ints(op.attrs().get<Ints>("strides"))});
        })
        .inputs(1)
        .shape_rule([](std::span<const TensorType> in, const Attrs& attrs) {
          const Shape& s = in[0].shape;
          const auto& start = attrs.get<Ints>("start_indices");
          const auto& limit = attrs.get<Ints>("limit_indices");
          const auto& stride = attrs.get<Ints>("strides");
          check_count("slice", "starts", start, s.size());
          check_count("slice", "stops", limit, s.size());
          check_count("slice", "steps", stride, s.size());
          Shape out(s.size());
          for (std::size_t d = 0; d < s.size(); ++d) {
            if (stride[d] < 1) fail<ValueError>("slice", "step {} on axis {} is not positive", stride[d], d);
            if (start[d] < 0 || start[d] > limit[d] || limit[d] > s[d])
              fail<AxisError>("slice", "range [{}, {}) on axis {} does not fit {}", start[d], limit[d], d,
                              shape_string(s));
            out[d] = (limit[d] - start[d] + stride[d] - 1) / stride[d];
          }
          return std::vector<TensorType>{{in[0].dtype, out}};
        })
        .kernel([](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType> out) {
          return std::vector<Tensor>{
              strided_box(in[0], attrs.get<Ints>("start_indices"), attrs.get<Ints>("strides"), out[0].shape)};
        })
        .jvp(detail::linear_jvp({0}))
        .vjp(slice_vjp)
        .stablehlo({"stablehlo.slice",
                    {Hlo("start_indices", Kind::i64_array), Hlo("limit_indices", Kind::i64_array),
                     Hlo("strides", Kind::i64_array)},
                    "slice"});

// ---- pad ------------------------------------------------------------------------

// Every element of dst set to the element at `value` (same dtype).
void fill_bytes(const Tensor& dst, const void* value) {
  detail::with_element_size(itemsize(dst.dtype()), [&](auto tag) {
    using E = decltype(tag);
    E v;
    std::memcpy(&v, value, sizeof(E));
    E* d = static_cast<E*>(dst.impl().data());
    detail::parallel_for(dst.numel(), detail::kElementwiseGrain,
                         [d, v](std::int64_t b, std::int64_t e) { std::fill(d + b, d + e, v); });
  });
}

// StableHLO pad. The padding value is the second input, a rank-0 tensor of x's
// dtype, as in StableHLO: it can then be a traced value and get a gradient.
// Negative edge padding removes elements from the padded result, as in StableHLO.
const OpDef& pad_op =
    def_op("pad")
        .linear()
        .cpp([](detail::CppOp& op) {
          return detail::cpp_call("tl::lax::pad", op, {detail::cpp_ints(op.attrs().get<std::vector<std::int64_t>>("edge_padding_low")), detail::cpp_ints(op.attrs().get<std::vector<std::int64_t>>("edge_padding_high")), detail::cpp_ints(op.attrs().get<std::vector<std::int64_t>>("interior_padding"))});
        })
        .inputs(2)
        .shape_rule([](std::span<const TensorType> in, const Attrs& attrs) {
          const Shape& s = in[0].shape;
          const auto& lo = attrs.get<Ints>("edge_padding_low");
          const auto& hi = attrs.get<Ints>("edge_padding_high");
          const auto& interior = attrs.get<Ints>("interior_padding");
          check_count("pad", "low widths", lo, s.size());
          check_count("pad", "high widths", hi, s.size());
          check_count("pad", "interior widths", interior, s.size());
          if (!in[1].shape.empty() || in[1].dtype != in[0].dtype)
            fail<DTypeError>("pad", "the padding value must be a rank-0 {} tensor, got {} {}", in[0].dtype,
                             in[1].dtype, shape_string(in[1].shape));
          Shape out(s.size());
          for (std::size_t d = 0; d < s.size(); ++d) {
            if (interior[d] < 0)
              fail<ValueError>("pad", "negative interior padding {} on axis {}", interior[d], d);
            out[d] = lo[d] + s[d] + hi[d] + std::max<std::int64_t>(s[d] - 1, 0) * interior[d];
            if (out[d] < 0)
              fail<ShapeError>("pad", "padding ({}, {}, interior {}) removes more than axis {} of {} holds",
                               lo[d], hi[d], interior[d], d, shape_string(s));
          }
          detail::numel_of(out);  // refuses a size that overflows
          return std::vector<TensorType>{{in[0].dtype, out}};
        })
        .kernel([](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType> out) {
          const Tensor& x = in[0];
          const auto& lo = attrs.get<Ints>("edge_padding_low");
          const auto& hi = attrs.get<Ints>("edge_padding_high");
          const auto& interior = attrs.get<Ints>("interior_padding");
          // Pad by the positive widths, then crop where a width is negative.
          const std::size_t r = lo.size();
          Shape full(r);
          Ints crop(r, 0);
          bool cropped = false;
          for (std::size_t d = 0; d < r; ++d) {
            crop[d] = std::max<std::int64_t>(-lo[d], 0);
            cropped = cropped || lo[d] < 0 || hi[d] < 0;
            full[d] = out[0].shape[d] + crop[d] + std::max<std::int64_t>(-hi[d], 0);
          }
          Tensor y = detail::empty(full, x.dtype());
          fill_bytes(y, in[1].raw_data());
          const Ints yst = detail::strides_of(full);
          Box b{x.shape(), 0, 0, detail::strides_of(x.shape()), Ints(r)};
          for (std::size_t d = 0; d < r; ++d) {
            b.dst_base += std::max<std::int64_t>(lo[d], 0) * yst[d];
            b.dst_st[d] = (interior[d] + 1) * yst[d];
          }
          copy_box(x, y, std::move(b));
          if (cropped) y = strided_box(y, crop, Ints(r, 1), out[0].shape);
          return std::vector<Tensor>{y};
        })
        // Linear in the operand and the padding value together.
        .jvp(detail::linear_jvp({0, 1}))
        .vjp(pad_vjp)
        .stablehlo({"stablehlo.pad",
                    {Hlo("edge_padding_low", Kind::i64_array).pretty("low"),
                     Hlo("edge_padding_high", Kind::i64_array).pretty("high"),
                     Hlo("interior_padding", Kind::i64_array).pretty("interior")},
                    "keywords"});

// ---- reverse --------------------------------------------------------------------

// The axes a reverse flips. Recorded where types are known, they are checked and
// normalised; recorded on a value of unknown type, they are as written (negative axes
// count from the end) or absent (every axis: tl::reverse(x, {})).
Ints dimensions_of(const Attrs& attrs, std::size_t rank) {
  Ints dims;
  for (std::size_t d = 0; d < rank; ++d) dims.push_back(std::int64_t(d));
  if (attrs.has("dimensions")) dims = attrs.get<Ints>("dimensions");
  for (auto& d : dims)
    if (d < 0) d += std::int64_t(rank);
  Ints sorted = dims;
  std::sort(sorted.begin(), sorted.end());
  const bool ok = (sorted.empty() || (sorted.front() >= 0 && sorted.back() < std::int64_t(rank))) &&
                  std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
  if (!ok) fail<AxisError>("reverse", "dimensions {} are not distinct axes of a rank-{} tensor", dims, rank);
  return dims;
}

const OpDef& reverse_op =
    def_op("reverse")
        .linear()
        .called_as({.names = {"reverse"}, .attributes = {"dimensions"}, .passes_on = true})
        .cpp([](detail::CppOp& op) {
          const Attrs& a = op.attrs();
          const std::string* written = detail::cpp_written(a, "dimensions");
          const std::string dims = written != nullptr    ? *written
                                   : a.has("dimensions") ? detail::cpp_axes(a.get<Ints>("dimensions"))
                                                         : std::string("tl::Axes()");
          return detail::cpp_call("tl::reverse", op, {dims});
        })
        .inputs(1)
        .shape_rule([](std::span<const TensorType> in, const Attrs& attrs) {
          dimensions_of(attrs, in[0].shape.size());
          return std::vector<TensorType>{in[0]};
        })
        .kernel([](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType>) {
          const Tensor& x = in[0];
          Tensor y = detail::empty(x.shape(), x.dtype());
          Box b{x.shape(), 0, 0, detail::strides_of(x.shape()), detail::strides_of(x.shape())};
          for (auto d : dimensions_of(attrs, x.shape().size())) {
            const auto k = std::size_t(d);
            b.src_base += (x.shape()[k] - 1) * b.src_st[k];
            b.src_st[k] = -b.src_st[k];
          }
          copy_box(x, y, std::move(b));
          return std::vector<Tensor>{y};
        })
        .jvp(detail::linear_jvp({0}))
        .vjp(reverse_vjp)
        .stablehlo({"stablehlo.reverse", {Hlo("dimensions", Kind::i64_array).pretty("dims")}, "keywords"});

// ---- dynamic_slice / dynamic_update_slice -----------------------------------------

// Starts are moved into [0, size - window] so the window fits, as StableHLO defines it.
// `fn(lead operands..., {starts...}, extra...)`: the starts as one list.
std::string dynamic_spelling(std::string_view fn, detail::CppOp& op, std::size_t lead, const std::vector<std::string>& extra) {
  std::vector<std::string> args, starts;
  for (std::size_t i = 0; i < op.num_operands(); ++i) (i < lead ? args : starts).push_back(op.operand(i));
  args.push_back(fmt::format("{{{}}}", detail::cpp_list(starts)));
  args.insert(args.end(), extra.begin(), extra.end());
  return fmt::format("{}({})", fn, detail::cpp_list(args));
}

Ints clamped_starts(const Ints& start, const Shape& s, const Shape& window) {
  Ints c(start.size());
  for (std::size_t d = 0; d < c.size(); ++d) c[d] = std::clamp<std::int64_t>(start[d], 0, s[d] - window[d]);
  return c;
}

void check_window(std::string_view op, const Shape& s, const Shape& window) {
  bool ok = window.size() == s.size();
  // A size known only at run time (negative) is checked when the op runs.
  for (std::size_t d = 0; ok && d < s.size(); ++d) ok = window[d] >= 0 && (s[d] < 0 || window[d] <= s[d]);
  if (!ok) fail<ShapeError>(op, "a window of {} does not fit in {}", shape_string(window), shape_string(s));
}

// The start indices are rank-0 integer operands after the first `lead` inputs, one
// per axis of `s`, all of one dtype, as in StableHLO.
void check_starts(std::string_view op, std::span<const TensorType> in, std::size_t lead, const Shape& s) {
  if (in.size() != lead + s.size())
    fail<ValueError>(op, "expects {} start indices (one per axis of {}), got {}", s.size(), shape_string(s),
                     in.size() - std::min(in.size(), lead));
  for (std::size_t i = lead; i < in.size(); ++i)
    if (!in[i].shape.empty() || !is_integral(in[i].dtype) || in[i].dtype != in[lead].dtype)
      fail<DTypeError>(op, "start index {} is {} {}; starts must be rank-0 integers of one dtype", i - lead,
                       in[i].dtype, shape_string(in[i].shape));
}

Ints start_values(std::span<const Tensor> in, std::size_t lead) {
  Ints v;
  for (std::size_t i = lead; i < in.size(); ++i)
    v.push_back(in[i].astype(DType::i64).data<std::int64_t>()[0]);
  return v;
}

const OpDef& dynamic_slice_op =
    def_op("dynamic_slice")
        .linear({0})
        .cpp([](detail::CppOp& op) { return dynamic_spelling("tl::lax::dynamic_slice", op, 1, {detail::cpp_shape(op.attrs().get<std::vector<std::int64_t>>("slice_sizes"))}); })
        .inputs(-1)
        .shape_rule([](std::span<const TensorType> in, const Attrs& attrs) {
          if (in.empty()) fail<ValueError>("dynamic_slice", "needs an operand");
          const auto& sizes = attrs.get<Ints>("slice_sizes");
          check_starts("dynamic_slice", in, 1, in[0].shape);
          check_window("dynamic_slice", in[0].shape, sizes);
          return std::vector<TensorType>{{in[0].dtype, sizes}};
        })
        .kernel([](std::span<const Tensor> in, const Attrs&, std::span<const TensorType> out) {
          const Tensor& x = in[0];
          const Ints start = clamped_starts(start_values(in, 1), x.shape(), out[0].shape);
          return std::vector<Tensor>{strided_box(x, start, Ints(start.size(), 1), out[0].shape)};
        })
        .jvp(detail::linear_jvp({0}))
        .vjp(dynamic_slice_vjp)
        .stablehlo(
            {"stablehlo.dynamic_slice", {Hlo("slice_sizes", Kind::i64_array).pretty("sizes")}, "keywords"});

const OpDef& dynamic_update_slice_op =
    def_op("dynamic_update_slice")
        .linear({0, 1})
        .cpp([](detail::CppOp& op) { return dynamic_spelling("tl::lax::dynamic_update_slice", op, 2, {}); })
        .inputs(-1)
        .shape_rule([](std::span<const TensorType> in, const Attrs&) {
          if (in.size() < 2) fail<ValueError>("dynamic_update_slice", "needs an operand and an update");
          if (in[1].dtype != in[0].dtype)
            fail<DTypeError>("dynamic_update_slice", "the update is {}, the operand {}", in[1].dtype,
                             in[0].dtype);
          check_starts("dynamic_update_slice", in, 2, in[0].shape);
          check_window("dynamic_update_slice", in[0].shape, in[1].shape);
          return std::vector<TensorType>{in[0]};
        })
        .kernel([](std::span<const Tensor> in, const Attrs&, std::span<const TensorType>) {
          const Tensor &x = in[0], &u = in[1];
          Tensor y = detail::empty(x.shape(), x.dtype());
          if (x.numel() > 0)
            std::memcpy(y.impl().data(), x.raw_data(), std::size_t(x.numel()) * itemsize(x.dtype()));
          const Ints start = clamped_starts(start_values(in, 2), x.shape(), u.shape());
          const Ints yst = detail::strides_of(x.shape());
          Box b{u.shape(), 0, 0, detail::strides_of(u.shape()), yst};
          for (std::size_t d = 0; d < yst.size(); ++d) b.dst_base += start[d] * yst[d];
          copy_box(u, y, std::move(b));
          return std::vector<Tensor>{y};
        })
        .jvp(detail::linear_jvp({0, 1}))
        .vjp(dynamic_update_slice_vjp)
        .stablehlo({"stablehlo.dynamic_update_slice", {}, "elementwise"});

// ---- iota -------------------------------------------------------------------------

const OpDef& iota_op =
    def_op("iota")
        .no_derivative()  // no operands
        .cpp([](detail::CppOp& op) {
          return fmt::format("tl::iota({}, {}, {})", detail::cpp_shape(op.result_type(0).shape), op.attrs().get<std::int64_t>("iota_dimension"), detail::cpp_dtype(op.result_type(0).dtype));
        })
        .inputs(0)
        .shape_rule([](std::span<const TensorType>, const Attrs& attrs) {
          const auto& shape = attrs.get<Ints>("shape");
          const auto axis = attrs.get<std::int64_t>("iota_dimension");
          const auto t = attrs.get<DType>("dtype");
          if (axis < 0 || axis >= std::int64_t(shape.size()))
            fail<AxisError>("iota", "axis {} is out of range for shape {}", axis, shape_string(shape));
          if (t == DType::boolean) fail<DTypeError>("iota", "cannot count in bool");
          detail::numel_of(shape);  // refuses negative sizes
          return std::vector<TensorType>{{t, shape}};
        })
        .kernel([](std::span<const Tensor>, const Attrs& attrs, std::span<const TensorType> out) {
          const Shape& s = out[0].shape;
          const auto axis = std::size_t(attrs.get<std::int64_t>("iota_dimension"));
          const std::int64_t inner = detail::strides_of(s)[axis], n = s[axis];
          Tensor y = detail::empty(s, out[0].dtype);
          if (y.numel() == 0) return std::vector<Tensor>{y};
          // One period (each value repeated `inner` times) is written, then copied.
          const std::int64_t period = n * inner, copies = y.numel() / period;
          TLALOC_SWITCH_WITH_COMPLEX(out[0].dtype, "iota", {
            T* p = detail::mutable_data<T>(y);
            detail::parallel_for(n, std::max<std::int64_t>(1, detail::kElementwiseGrain / inner),
                                 [&](std::int64_t b, std::int64_t e) {
                                   for (std::int64_t j = b; j < e; ++j)
                                     std::fill(p + j * inner, p + (j + 1) * inner,
                                               detail::convert_value<T>(j));
                                 });
            detail::parallel_for(copies - 1, std::max<std::int64_t>(1, detail::kElementwiseGrain / period),
                                 [&](std::int64_t b, std::int64_t e) {
                                   for (std::int64_t c = b + 1; c <= e; ++c)
                                     std::copy(p, p + period, p + c * period);
                                 });
          })
          return std::vector<Tensor>{y};
        })
        .stablehlo({"stablehlo.iota",
                    {Hlo("iota_dimension", Kind::i64).pretty("dim"),
                     Hlo("result_shape", Kind::result_shape).as("shape"),
                     Hlo("result_dtype", Kind::result_dtype).as("dtype")},
                    "keywords"});

// ---- derivatives ------------------------------------------------------------------
// All five ops only move elements, so they are linear in their data operands (the
// start indices are integers and get no cotangent); each VJP puts the cotangent
// back where its elements came from, with zeros elsewhere.

Tensor zero_of(const Tensor& like) { return scalar_tensor(0, like.dtype()); }

// The transpose of slice: g spread back to x's shape by a zero pad whose interior
// padding leaves stride - 1 zeros between the elements that were taken.
Tensor spread_slice(const Tensor& g, const Shape& x_shape, const Ints& start, const Ints& stride) {
  const std::size_t rank = start.size();
  Ints lo = start, hi(rank), interior(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    const std::int64_t n = g.shape()[d];
    interior[d] = stride[d] - 1;
    hi[d] = x_shape[d] - start[d] - (n > 0 ? (n - 1) * stride[d] + 1 : 0);
  }
  return call1(pad_op, {g, zero_of(g)},
               {{"edge_padding_low", lo}, {"edge_padding_high", hi}, {"interior_padding", interior}});
}
std::vector<Tensor> slice_vjp(const Rule& r) {
  if (!r.cotangent().defined()) return {Tensor()};
  return {spread_slice(r.cotangent(), r.in(0).shape(), r.attr<Ints>("start_indices"), r.attr<Ints>("strides"))};
}

// g without its `lo` first and `hi` last elements along each axis: a pad by the
// negated widths.
Tensor crop(const Tensor& g, const Ints& lo, const Ints& hi) {
  Ints neg_lo(lo.size()), neg_hi(hi.size());
  for (std::size_t d = 0; d < lo.size(); ++d) {
    neg_lo[d] = -lo[d];
    neg_hi[d] = -hi[d];
  }
  return call1(pad_op, {g, zero_of(g)},
               {{"edge_padding_low", neg_lo},
                {"edge_padding_high", neg_hi},
                {"interior_padding", Ints(lo.size(), 0)}});
}

// The transpose of pad (as JAX's): negated edge widths crop what was padded and
// put back, as zeros, what negative widths had cut; a slice with step interior + 1
// then drops the interior padding. The padding value receives every other element,
// i.e. the cotangent's total less what went to the operand.
std::vector<Tensor> pad_vjp(const Rule& r) {
  const Tensor& g = r.cotangent();
  std::vector<Tensor> out(2);
  if (!g.defined()) return out;
  const auto& lo = r.attr<Ints>("edge_padding_low");
  const auto& hi = r.attr<Ints>("edge_padding_high");
  const auto& interior = r.attr<Ints>("interior_padding");
  const std::size_t rank = lo.size();
  Ints step(rank);
  bool edges = false, strided = false;
  for (std::size_t d = 0; d < rank; ++d) {
    step[d] = interior[d] + 1;
    edges = edges || lo[d] != 0 || hi[d] != 0;
    strided = strided || interior[d] != 0;
  }
  Tensor gx = g;
  if (edges) gx = crop(gx, lo, hi);
  if (strided)
    gx = call1(slice_op, {gx}, {{"start_indices", Ints(rank, 0)}, {"limit_indices", gx.shape()}, {"strides", step}});
  if (r.wants(1)) out[1] = sum(g) - sum(gx);
  if (r.wants(0)) out[0] = gx;
  return out;
}

std::vector<Tensor> reverse_vjp(const Rule& r) {
  if (!r.has_cotangent()) return {Tensor()};
  return {call1(reverse_op, {r.cotangent()}, r.attrs())};
}

// The window goes back where it was read, at the same (clamped) starts: the
// update's window has the same size, so dynamic_update_slice clamps them alike.
std::vector<Tensor> dynamic_slice_vjp(const Rule& r) {
  std::vector<Tensor> out(r.num_in());
  if (!r.has_cotangent() || !r.wants(0)) return out;
  std::vector<Tensor> in{zeros_like(r.in(0)), r.cotangent()};
  for (std::size_t i = 1; i < r.num_in(); ++i) in.push_back(r.in(i));
  out[0] = call1(dynamic_update_slice_op, in);
  return out;
}

// The operand gets g with the window zeroed (those elements were overwritten);
// the update gets the window of g.
std::vector<Tensor> dynamic_update_slice_vjp(const Rule& r) {
  std::vector<Tensor> out(r.num_in());
  if (!r.has_cotangent()) return out;
  const Tensor& g = r.cotangent();
  std::vector<Tensor> starts;
  for (std::size_t i = 2; i < r.num_in(); ++i) starts.push_back(r.in(i));
  if (r.wants(0)) {
    std::vector<Tensor> in{g, zeros_like(r.in(1))};
    in.insert(in.end(), starts.begin(), starts.end());
    out[0] = call1(dynamic_update_slice_op, in);
  }
  if (r.wants(1)) {
    std::vector<Tensor> in{g};
    in.insert(in.end(), starts.begin(), starts.end());
    out[1] = call1(dynamic_slice_op, in, {{"slice_sizes", r.in(1).shape()}});
  }
  return out;
}

// Python's rule for one slice bound: negative counts from the end, then clamp to [0, n].
std::int64_t python_bound(std::int64_t v, std::int64_t n) {
  return std::clamp<std::int64_t>(v < 0 ? v + n : v, 0, n);
}

// A slice's box in a tensor of `shape`, its bounds clamped to it; `whole` when it
// takes every element (then no op is recorded).
struct SliceBox {
  Ints start, limit, step;
  bool whole = true;
};
SliceBox box_of(const char* op, const Shape& shape, const Ints& starts, const Ints& stops,
                const Ints& steps) {
  const std::size_t r = shape.size();
  check_count(op, "starts", starts, r);
  check_count(op, "stops", stops, r);
  SliceBox b{Ints(r), Ints(r), steps.empty() ? Ints(r, 1) : steps};
  check_count(op, "steps", b.step, r);
  for (std::size_t d = 0; d < r; ++d) {
    const std::int64_t n = shape[d];
    if (starts[d] < 0 || stops[d] < 0)
      fail<ValueError>(op, "negative bound in [{}, {}) on axis {}", starts[d], stops[d], d);
    if (b.step[d] < 1) fail<ValueError>(op, "step {} on axis {} is not positive", b.step[d], d);
    b.start[d] = std::min(starts[d], n);
    b.limit[d] = std::clamp(stops[d], b.start[d], n);
    b.whole = b.whole && b.start[d] == 0 && b.limit[d] == n && (b.step[d] == 1 || n <= 1);
  }
  return b;
}
// One axis, Python's bounds (negative ones count from the end).
SliceBox box_of(const char* op, const Shape& shape, std::int64_t axis, std::int64_t start, std::int64_t stop,
                std::int64_t step) {
  const auto rank = std::int64_t(shape.size());
  if (rank == 0) fail<AxisError>(op, "cannot slice a rank-0 tensor");
  const auto a = std::size_t(detail::normalize_axis(op, axis, rank));
  if (step < 1) fail<ValueError>(op, "step {} is not positive", step);
  const std::int64_t n = shape[a];
  Ints starts(shape.size(), 0), stops = shape, steps(shape.size(), 1);
  starts[a] = python_bound(start, n);
  stops[a] = std::max(python_bound(stop, n), starts[a]);
  steps[a] = step;
  return box_of(op, shape, starts, stops, steps);
}
// The shape of the elements box b takes.
Shape taken_by(const SliceBox& b) {
  Shape taken(b.start.size());
  for (std::size_t d = 0; d < taken.size(); ++d)
    taken[d] = b.limit[d] > b.start[d] ? (b.limit[d] - b.start[d] + b.step[d] - 1) / b.step[d] : 0;
  return taken;
}
Tensor slice_in(const Tensor& x, const SliceBox& b) {
  if (b.whole) return x;
  return call1(slice_op, {x}, {{"start_indices", b.start}, {"limit_indices", b.limit}, {"strides", b.step}});
}

}  // namespace

Tensor slice(const Tensor& x, const Ints& starts, const Ints& stops, const Ints& steps) {
  if (detail::is_untyped(x))
    return detail::record_slice(
        x, {{"axis_or_starts", starts}, {"start_or_stops", stops}, {"stop_or_steps", steps}});
  return slice_in(x, box_of("slice", x.shape(), starts, stops, steps));
}

Tensor slice(const Tensor& x, std::int64_t axis, std::int64_t start, std::int64_t stop, std::int64_t step) {
  if (detail::is_untyped(x))
    return detail::record_slice(
        x, {{"axis_or_starts", axis}, {"start_or_stops", start}, {"stop_or_steps", stop}, {"step", step}});
  return slice_in(x, box_of("slice", x.shape(), axis, start, stop, step));
}

Shape detail::sliced_shape(const Shape& shape, const Ints& starts, const Ints& stops, const Ints& steps) {
  return taken_by(box_of("slice", shape, starts, stops, steps));
}
Shape detail::sliced_shape(const Shape& shape, std::int64_t axis, std::int64_t start, std::int64_t stop,
                           std::int64_t step) {
  return taken_by(box_of("slice", shape, axis, start, stop, step));
}

namespace {
// g, of the shape of box b of a tensor of `shape`, put back where the box took it.
// `slice` says which slice, for the error.
template <class Describe>
Tensor spread_box(const Tensor& g, const Shape& shape, const SliceBox& b, Describe slice) {
  const Shape taken = taken_by(b);
  if (g.shape() != taken)
    fail<ShapeError>("slice_backward", "g is {}, but the slice of {} {} is {}", shape_string(g.shape()),
                     shape_string(shape), slice(), shape_string(taken));
  if (b.whole) return g;
  return spread_slice(g, shape, b.start, b.step);
}
}  // namespace

Tensor derivatives::slice_backward(const Tensor& g, const Shape& shape, std::int64_t axis, std::int64_t start,
                      std::int64_t stop, std::int64_t step) {
  return spread_box(g, shape, box_of("slice_backward", shape, axis, start, stop, step),
                    [&] { return fmt::format("on axis {} from {} to {} step {}", axis, start, stop, step); });
}

Tensor derivatives::slice_backward(const Tensor& g, const Shape& shape, const Ints& starts, const Ints& stops,
                      const Ints& steps) {
  return spread_box(g, shape, box_of("slice_backward", shape, starts, stops, steps),
                    [&] { return fmt::format("from {} to {} step {}", starts, stops, steps); });
}

namespace {
struct PadWidths {
  Ints lo, hi;
  bool none = true;
};
PadWidths pad_widths(std::string_view fn, std::size_t rank,
                     const std::vector<std::pair<std::int64_t, std::int64_t>>& widths) {
  if (widths.size() != rank)
    fail<ValueError>(fn, "expects {} width pairs (one per axis), got {}", rank, widths.size());
  PadWidths w{Ints(rank), Ints(rank)};
  for (std::size_t d = 0; d < rank; ++d) {
    w.lo[d] = widths[d].first;
    w.hi[d] = widths[d].second;
    if (w.lo[d] < 0 || w.hi[d] < 0)
      fail<ValueError>(fn, "negative width ({}, {}) on axis {}", w.lo[d], w.hi[d], d);
    w.none = w.none && w.lo[d] == 0 && w.hi[d] == 0;
  }
  return w;
}

}  // namespace

Shape detail::padded_shape(std::string_view fn, const Shape& shape,
                           const std::vector<std::pair<std::int64_t, std::int64_t>>& widths) {
  const auto [lo, hi, none] = pad_widths(fn, shape.size(), widths);
  Shape padded = shape;
  for (std::size_t d = 0; d < shape.size(); ++d) padded[d] += lo[d] + hi[d];
  return padded;
}

namespace {
void check_edge_axis(std::string_view fn, const Shape& shape, std::size_t d) {
  if (shape[d] == 0)
    fail<ValueError>(fn, "edge mode cannot extend the empty axis {} of {}", d, shape_string(shape));
}

// The transpose of one axis of an edge pad, whose operand had shape `in`: its steps
// (below) taken back last first, as the engine's rules take them. concat gives each
// part its slice of g, in order, after what the operand had (so_far); a part that is y
// itself (a border of width 1 of an axis of size 1: no slice and no broadcast) adds
// its share there; the other borders sum their broadcast and put the sum back where
// their slice was, the last border first.
Tensor edge_axis_backward(const Tensor& g, const Shape& in, std::size_t d, std::int64_t lo, std::int64_t hi,
                          const Tensor& so_far) {
  const std::int64_t n = in[d];
  const auto a = std::int64_t(d);
  Ints starts(in.size(), 0), stops = g.shape();
  const auto part = [&](std::int64_t from, std::int64_t to) {
    starts[d] = from;
    stops[d] = to;
    return slice(g, starts, stops);
  };
  const Tensor low = part(0, lo), mid = part(lo, lo + n), high = part(lo + n, lo + n + hi);
  Shape one = in;
  one[d] = 1;
  Ints dims(in.size());
  for (std::size_t k = 0; k < dims.size(); ++k) dims[k] = std::int64_t(k);
  const auto border = [&](const Tensor& share, std::int64_t width, std::int64_t at) {
    const Tensor summed = width == 1 ? share : detail::unbroadcast(share, one, share.dtype(), dims);
    return derivatives::slice_backward(summed, in, a, at, at + 1);
  };
  const bool low_is_y = n == 1 && lo == 1, high_is_y = n == 1 && hi == 1;
  Tensor ct = low_is_y ? add(detail::add_tangents(so_far, low), mid) : detail::add_tangents(so_far, mid);
  ct = add(ct, high_is_y ? high : border(high, hi, n - 1));
  return low_is_y ? ct : add(ct, border(low, lo, 0));
}
}  // namespace

// Edge mode repeats the border element: per axis, concat(first slice broadcast, x, last slice broadcast).
Tensor pad(const Tensor& x, const std::vector<std::pair<std::int64_t, std::int64_t>>& widths, PadMode mode,
           Scalar value) {
  if (detail::is_untyped(x)) return detail::record_pad(x, widths, mode, value);
  const std::size_t r = std::size_t(x.rank());
  const auto [lo, hi, none] = pad_widths("pad", r, widths);
  if (none) return x;
  if (mode == PadMode::constant)
    return call1(pad_op, {x, scalar_tensor(value, x.dtype())},
                 {{"edge_padding_low", lo}, {"edge_padding_high", hi}, {"interior_padding", Ints(r, 0)}});
  Tensor y = x;
  for (std::size_t d = 0; d < r; ++d) {
    if (lo[d] == 0 && hi[d] == 0) continue;
    check_edge_axis("pad", x.shape(), d);
    const std::int64_t n = y.shape()[d];
    const auto a = std::int64_t(d);
    Shape lo_shape = y.shape(), hi_shape = y.shape();
    lo_shape[d] = lo[d];
    hi_shape[d] = hi[d];
    y = concat({broadcast_to(slice(y, a, 0, 1), lo_shape), y, broadcast_to(slice(y, a, n - 1, n), hi_shape)},
               a);
  }
  return y;
}

// The last axis is taken back first: the first padded axis's operand is x itself,
// the only step whose shares join so_far.
Tensor derivatives::pad_backward(const Tensor& g, const Shape& shape,
                    const std::vector<std::pair<std::int64_t, std::int64_t>>& widths, PadMode mode,
                    const Tensor& so_far) {
  const auto [lo, hi, none] = pad_widths("pad_backward", shape.size(), widths);
  Shape padded = detail::padded_shape("pad_backward", shape, widths);
  if (g.shape() != padded)
    fail<ShapeError>("pad_backward", "g is {}, but {} padded by {} is {}", shape_string(g.shape()),
                     shape_string(shape), widths, shape_string(padded));
  if (so_far.defined() && so_far.shape() != shape)
    fail<ShapeError>("pad_backward", "so_far is {}, but the operand is {}", shape_string(so_far.shape()),
                     shape_string(shape));
  if (none) return detail::add_tangents(so_far, g);
  if (mode == PadMode::constant) return detail::add_tangents(so_far, crop(g, lo, hi));
  std::size_t first = 0;
  while (lo[first] == 0 && hi[first] == 0) ++first;
  Tensor ct = g;
  for (std::size_t d = shape.size(); d-- > first;) {
    if (lo[d] == 0 && hi[d] == 0) continue;
    check_edge_axis("pad_backward", shape, d);
    padded[d] = shape[d];
    ct = edge_axis_backward(ct, padded, d, lo[d], hi[d], d == first ? so_far : Tensor());
  }
  return ct;
}

Tensor reverse(const Tensor& x, Axes axes) {
  if (detail::is_untyped(x))
    return axes.all() ? call1(reverse_op, {x}) : call1(reverse_op, {x}, {{"dimensions", axes.list()}});
  Ints dims;
  if (axes.all()) {
    for (std::int64_t d = 0; d < x.rank(); ++d) dims.push_back(d);
  } else {
    dims = detail::normalize_axes("reverse", axes.list(), x.rank());
  }
  if (dims.empty()) return x;
  return call1(reverse_op, {x}, {{"dimensions", dims}});
}

namespace {
// `lead` followed by the starts as rank-0 i64 tensors.
std::vector<Tensor> with_starts(std::vector<Tensor> lead, const Ints& starts) {
  for (auto v : starts) lead.push_back(scalar_tensor(v, DType::i64));
  return lead;
}
}  // namespace

Tensor dynamic_slice(const Tensor& x, const Ints& starts, const Shape& sizes) {
  if (detail::is_untyped(x)) return detail::record_dynamic_slice(x, starts, sizes);
  return call1(dynamic_slice_op, with_starts({x}, starts), {{"slice_sizes", sizes}});
}

// The update takes x's dtype, as an assignment into x would.
Tensor dynamic_update_slice(const Tensor& x, const Tensor& update, const Ints& starts) {
  if (detail::is_untyped(x) || detail::is_untyped(update))
    return detail::record_dynamic_update_slice(x, update, starts);
  return call1(dynamic_update_slice_op, with_starts({x, update.astype(x.dtype())}, starts), {});
}

Tensor lax::pad(const Tensor& x, const Tensor& value, const Ints& low, const Ints& high, const Ints& interior) {
  return call1(pad_op, {x, value}, {{"edge_padding_low", low}, {"edge_padding_high", high}, {"interior_padding", interior}});
}

Tensor lax::dynamic_slice(const Tensor& x, const std::vector<Tensor>& starts, const Shape& sizes) {
  std::vector<Tensor> in{x};
  in.insert(in.end(), starts.begin(), starts.end());
  return call1(dynamic_slice_op, in, {{"slice_sizes", sizes}});
}

Tensor lax::dynamic_update_slice(const Tensor& x, const Tensor& update, const std::vector<Tensor>& starts) {
  std::vector<Tensor> in{x, update};
  in.insert(in.end(), starts.begin(), starts.end());
  return call1(dynamic_update_slice_op, in, {});
}

Tensor iota(const Shape& shape, std::int64_t axis, DType t) {
  for (auto d : shape)
    if (d < 0) fail<ValueError>("iota", "negative dimension in {}", shape_string(shape));
  const auto rank = std::int64_t(shape.size());
  if (axis < -rank || axis >= rank)
    fail<AxisError>("iota", "axis {} is out of range for shape {}", axis, shape_string(shape));
  return call1(iota_op, std::span<const Tensor>{},
               {{"shape", shape}, {"iota_dimension", axis < 0 ? axis + rank : axis}, {"dtype", t}});
}

}  // namespace tlaloc
