// StableHLO gather with its full dimension numbers (batching dims included).
// Start indices are clamped so each slice fits in the operand, as the spec says.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "ir/builder.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/gather_scatter.hpp"
#include "ops/lax_attrs.hpp"
#include "ops/rule.hpp"
#include "tlaloc/lax.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc {
namespace {

using detail::Attrs;
using detail::contains;
using detail::fail;
using detail::Ints;
using detail::ints_or_empty;
using detail::TensorType;
using Hlo = detail::StableHloAttr;

struct GatherDims {
  Ints offset, collapsed, operand_batching, indices_batching, start_index_map, slice_sizes;
  std::int64_t index_vector_dim = 0;
};

GatherDims gather_dims(const Attrs& a) {
  return {ints_or_empty(a, "offset_dims"),           ints_or_empty(a, "collapsed_slice_dims"),
          ints_or_empty(a, "operand_batching_dims"), ints_or_empty(a, "start_indices_batching_dims"),
          ints_or_empty(a, "start_index_map"),       a.get<Ints>("slice_sizes"),
          a.get<std::int64_t>("index_vector_dim")};
}

void check_axes(const char* what, const Ints& v, std::size_t rank) {
  for (auto d : v)
    if (d < 0 || std::size_t(d) >= rank || std::count(v.begin(), v.end(), d) != 1)
      fail<AxisError>("gather", "{} {} are not distinct axes below {}", what, v, rank);
}

Shape gather_shape(const TensorType& x, const TensorType& idx, const GatherDims& g) {
  const Shape& s = idx.shape;
  if (!is_integral(idx.dtype))
    fail<DTypeError>("gather", "start indices must be integers, got {}", idx.dtype);
  if (g.index_vector_dim < 0 || std::size_t(g.index_vector_dim) > s.size())
    fail<AxisError>("gather", "index_vector_dim {} is out of range for indices {}", g.index_vector_dim,
                    shape_string(s));
  Shape batch;
  for (std::size_t d = 0; d < s.size(); ++d)
    if (std::int64_t(d) != g.index_vector_dim) batch.push_back(s[d]);
  const std::int64_t n = std::size_t(g.index_vector_dim) < s.size() ? s[std::size_t(g.index_vector_dim)] : 1;
  if (std::int64_t(g.start_index_map.size()) != n)
    fail<ShapeError>("gather", "start_index_map {} needs {} entries", g.start_index_map, n);
  if (g.slice_sizes.size() != x.shape.size())
    fail<ShapeError>("gather", "slice_sizes {} need one size per axis of {}", g.slice_sizes,
                     shape_string(x.shape));
  for (std::size_t d = 0; d < x.shape.size(); ++d)
    if (g.slice_sizes[d] < 0 || g.slice_sizes[d] > x.shape[d])
      fail<ShapeError>("gather", "slice_sizes {} do not fit in {}", g.slice_sizes, shape_string(x.shape));
  check_axes("collapsed_slice_dims", g.collapsed, x.shape.size());
  check_axes("operand_batching_dims", g.operand_batching, x.shape.size());
  check_axes("start_index_map", g.start_index_map, x.shape.size());
  check_axes("start_indices_batching_dims", g.indices_batching, s.size());
  if (g.operand_batching.size() != g.indices_batching.size() ||
      contains(g.indices_batching, g.index_vector_dim))
    fail<ShapeError>("gather", "operand_batching_dims {} and start_indices_batching_dims {} do not pair up",
                     g.operand_batching, g.indices_batching);
  Shape offset_sizes;
  for (std::size_t d = 0; d < x.shape.size(); ++d) {
    const bool dropped =
        contains(g.collapsed, std::int64_t(d)) || contains(g.operand_batching, std::int64_t(d));
    if (dropped && g.slice_sizes[d] > 1)
      fail<ShapeError>("gather", "axis {} is collapsed or batching but its slice size is {}", d,
                       g.slice_sizes[d]);
    if (!dropped) offset_sizes.push_back(g.slice_sizes[d]);
  }
  const std::size_t rank = batch.size() + g.offset.size();
  check_axes("offset_dims", g.offset, rank);
  if (offset_sizes.size() != g.offset.size() || !std::is_sorted(g.offset.begin(), g.offset.end()))
    fail<ShapeError>("gather", "offset_dims {} must be sorted, one per uncollapsed axis ({})", g.offset,
                     offset_sizes.size());
  Shape out(rank);
  for (std::size_t d = 0, b = 0, o = 0; d < rank; ++d)
    out[d] = contains(g.offset, std::int64_t(d)) ? offset_sizes[o++] : batch[b++];
  return out;
}

// The operand index that result index r reads, per the spec's formula.
Ints operand_index(const Ints& r, const GatherDims& g, const detail::IndexTable& t, const Shape& x) {
  Ints batch, offset;
  for (std::size_t d = 0; d < r.size(); ++d)
    (contains(g.offset, std::int64_t(d)) ? offset : batch).push_back(r[d]);
  const Ints vec = t.vector_at(batch);
  Ints at(x.size(), 0);
  for (std::size_t k = 0; k < vec.size(); ++k) {
    const auto d = std::size_t(g.start_index_map[k]);
    at[d] = std::clamp<std::int64_t>(vec[k], 0, x[d] - g.slice_sizes[d]);
  }
  for (std::size_t i = 0; i < g.operand_batching.size(); ++i) {
    const std::int64_t ds = g.indices_batching[i];
    at[std::size_t(g.operand_batching[i])] += batch[std::size_t(ds < g.index_vector_dim ? ds : ds - 1)];
  }
  for (std::size_t d = 0, o = 0; d < x.size(); ++d)
    if (!contains(g.collapsed, std::int64_t(d)) && !contains(g.operand_batching, std::int64_t(d)))
      at[d] += offset[o++];
  return at;
}

// ---- derivatives ------------------------------------------------------------------
// gather is linear in its operand (JVP: the gather of the tangent). Its transpose
// is a scatter with an `add` update computation into zeros of the operand's shape,
// with the dimension numbers renamed (offset dims are the update window dims,
// collapsed dims the inserted ones, ...). gather clamps each start so the slice
// fits while scatter would skip an update that does not fit, so the rule clamps
// the starts first, as JAX's transpose does for its clamping mode. The scatter's
// own rules (scatter_rules.cpp) differentiate this gradient again.

// The start indices (as i64) clamped into [0, size - slice size] of the operand
// axis each index vector component addresses.
Tensor clamped_starts(const Tensor& idx, const Shape& x, const GatherDims& g) {
  const Tensor i = idx.astype(DType::i64);
  Ints bound;
  for (const auto d : g.start_index_map) bound.push_back(x[std::size_t(d)] - g.slice_sizes[std::size_t(d)]);
  Shape bound_shape(idx.shape().size(), 1);
  if (std::size_t(g.index_vector_dim) < bound_shape.size())
    bound_shape[std::size_t(g.index_vector_dim)] = std::int64_t(bound.size());
  else
    bound_shape = {};  // one component per index: a scalar bound
  return minimum(maximum(i, 0), tensor(bound, bound_shape));
}

std::vector<Tensor> gather_vjp(const detail::Rule& r) {
  std::vector<Tensor> out(2);
  if (!r.has_cotangent() || !r.wants(0)) return out;
  const Tensor &x = r.in(0), &ct = r.cotangent();
  if (x.numel() == 0 || ct.numel() == 0) {
    out[0] = zeros_like(x);
    return out;
  }
  const GatherDims g = gather_dims(r.attrs());
  const Tensor operands[] = {x, r.in(1), ct};
  ir::Builder* b = ir::owner_of(operands);
  if (b == nullptr) fail("gather", "its gradient is built only while tracing");
  const Attrs attrs{{"update_window_dims", g.offset},
                    {"inserted_window_dims", g.collapsed},
                    {"input_batching_dims", g.operand_batching},
                    {"scatter_indices_batching_dims", g.indices_batching},
                    {"scatter_dims_to_operand_dims", g.start_index_map},
                    {"index_vector_dim", g.index_vector_dim}};
  const TensorType scalar{x.dtype(), {}};
  const TensorType scalars[] = {scalar, scalar};
  std::vector<ir::Region> regions;
  regions.push_back(b->region(scalars, [](std::span<const Tensor> s) { return std::vector<Tensor>{add(s[0], s[1])}; }));
  const Tensor in[] = {zeros_like(x), clamped_starts(r.in(1), x.shape(), g), ct};
  out[0] = b->record(*detail::find_op("scatter"), in, attrs, {{x.dtype(), x.shape()}}, std::move(regions))[0];
  return out;
}

// tl::lax::gather with the dimension numbers as a designated initializer.
std::string gather_spelling(detail::CppOp& op) {
  const Attrs& a = op.attrs();
  const bool sorted = a.has("indices_are_sorted") && a.get<bool>("indices_are_sorted");
  return detail::cpp_call("tl::lax::gather", op,
                          {detail::cpp_gather_dimension_numbers(a),
                           detail::cpp_axes(gather_dims(a).slice_sizes), detail::cpp_bool(sorted)});
}

const detail::OpDef& gather_op =
    detail::def_op("gather")
        .linear({0})
        .inputs(2)
        .shape_rule([](std::span<const TensorType> in, const Attrs& attrs) {
          return std::vector<TensorType>{{in[0].dtype, gather_shape(in[0], in[1], gather_dims(attrs))}};
        })
        .kernel([](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType> out) {
          const GatherDims g = gather_dims(attrs);
          const Tensor& x = in[0];
          Tensor y = detail::empty(out[0].shape, x.dtype());
          if (y.numel() == 0) return std::vector<Tensor>{y};
          const detail::IndexTable t = detail::index_table(in[1], g.index_vector_dim);
          const std::size_t item = itemsize(x.dtype());
          const char* src = static_cast<const char*>(x.raw_data());
          char* dst = static_cast<char*>(y.impl().data());
          Ints r(out[0].shape.size(), 0);
          std::size_t k = 0;
          do {
            const std::int64_t from = detail::flat_index(operand_index(r, g, t, x.shape()), x.shape());
            std::memcpy(dst + item * k++, src + item * std::size_t(from), item);
          } while (detail::next_index(r, out[0].shape));
          return std::vector<Tensor>{y};
        })
        .jvp(detail::linear_jvp({0}))
        .vjp(gather_vjp)
        .stablehlo({"stablehlo.gather",
                    {Hlo("dimension_numbers", Hlo::Kind::gather_dimension_numbers),
                     Hlo("slice_sizes", Hlo::Kind::i64_array),
                     Hlo("indices_are_sorted", Hlo::Kind::boolean).optional()},
                    ""})
        .cpp(gather_spelling);

}  // namespace

std::string detail::cpp_gather_dimension_numbers(const Attrs& a) {
  // Not gather_dims: dynamic_gather's slice sizes are an operand, not an attribute.
  return fmt::format(
      "tl::lax::GatherDimensionNumbers{{.offset_dims = {}, .collapsed_slice_dims = {}, "
      ".operand_batching_dims = {}, "
      ".start_indices_batching_dims = {}, .start_index_map = {}, .index_vector_dim = {}}}",
      cpp_ints(ints_or_empty(a, "offset_dims")), cpp_ints(ints_or_empty(a, "collapsed_slice_dims")),
      cpp_ints(ints_or_empty(a, "operand_batching_dims")),
      cpp_ints(ints_or_empty(a, "start_indices_batching_dims")),
      cpp_ints(ints_or_empty(a, "start_index_map")), a.get<std::int64_t>("index_vector_dim"));
}

Tensor lax::gather(const Tensor& x, const Tensor& start_indices, const GatherDimensionNumbers& dims,
                   const std::vector<std::int64_t>& slice_sizes, bool indices_are_sorted) {
  return detail::call1(gather_op, {x, start_indices}, detail::gather_attrs(dims, &slice_sizes, indices_are_sorted));
}

detail::Attrs detail::gather_attrs(const lax::GatherDimensionNumbers& dims,
                                   const std::vector<std::int64_t>* slice_sizes, bool indices_are_sorted) {
  Attrs a{{"offset_dims", dims.offset_dims},
          {"collapsed_slice_dims", dims.collapsed_slice_dims},
          {"operand_batching_dims", dims.operand_batching_dims},
          {"start_indices_batching_dims", dims.start_indices_batching_dims},
          {"start_index_map", dims.start_index_map},
          {"index_vector_dim", dims.index_vector_dim}};
  if (slice_sizes != nullptr) a.set("slice_sizes", *slice_sizes);
  a.set("indices_are_sorted", indices_are_sorted);
  return a;
}

}  // namespace tlaloc
