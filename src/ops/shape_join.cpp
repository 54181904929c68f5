// Joining and repeating: concat is the StableHLO primitive "concatenate"; stack,
// split, tile and repeat are composites of it, slice, reshape and broadcast_to.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "core/check.hpp"
#include "core/parallel.hpp"
#include "core/tensor_impl.hpp"
#include "ir/op.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/elementwise_rules.hpp"
#include "ops/like.hpp"
#include "ops/rule.hpp"
#include "ops/untyped_calls.hpp"
#include "tlaloc/derivatives.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc {
namespace {

using detail::Attrs;
using detail::def_op;
using detail::fail;
using detail::OpDef;
using detail::TensorType;
using Ints = std::vector<std::int64_t>;

// Seen as [outer, rest] around the axis, each row of y is the inputs' rows one
// after another: whole rows are copied as bytes, whatever the dtype.
void concat_rows(std::span<const Tensor> in, const Tensor& y, std::size_t axis) {
  std::int64_t outer = 1;
  for (std::size_t d = 0; d < axis; ++d) outer *= y.shape()[d];
  if (y.numel() == 0) return;
  const std::size_t item = itemsize(y.dtype()), row = std::size_t(y.numel() / outer) * item;
  std::vector<const char*> src(in.size());
  std::vector<std::size_t> chunk(in.size());
  for (std::size_t k = 0; k < in.size(); ++k) {
    src[k] = static_cast<const char*>(in[k].raw_data());
    chunk[k] = std::size_t(in[k].numel() / outer) * item;
  }
  char* dst = static_cast<char*>(y.impl().data());
  // Parts of about as many bytes as an elementwise f32 op uses.
  const auto grain = std::max<std::int64_t>(1, detail::kElementwiseGrain * 4 / std::int64_t(row));
  detail::parallel_for(outer, grain, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t o = b; o < e; ++o) {
      char* p = dst + std::size_t(o) * row;
      for (std::size_t k = 0; k < src.size(); ++k) {
        if (chunk[k] > 0) std::memcpy(p, src[k] + std::size_t(o) * chunk[k], chunk[k]);
        p += chunk[k];
      }
    }
  });
}

// Every operand's cotangent is its slice of g along the axis.
std::vector<Tensor> concatenate_vjp(const detail::Rule& r) {
  std::vector<Tensor> out(r.num_in());
  if (!r.has_cotangent()) return out;
  const Tensor& g = r.cotangent();
  const auto axis = std::size_t(r.attr<std::int64_t>("dimension"));
  Ints starts(g.shape().size(), 0), stops = g.shape();
  for (std::size_t i = 0; i < r.num_in(); ++i) {
    stops[axis] = starts[axis] + r.in(i).shape()[axis];
    if (r.wants(i)) out[i] = slice(g, starts, stops);
    starts[axis] = stops[axis];
  }
  return out;
}

// Linear in all its operands, however many: the tangents concatenated, zeros for
// operands without one (unless none has one).
std::vector<Tensor> concatenate_jvp(const detail::Rule& r) {
  std::vector<Tensor> t(r.num_in());
  bool any = false;
  for (std::size_t i = 0; i < t.size(); ++i) {
    any = any || r.has_tangent(i);
    t[i] = r.has_tangent(i) ? r.tangent(i) : zeros_like(r.in(i));
  }
  if (!any) return std::vector<Tensor>(1);
  return {detail::call1(*r.op(), t, r.attrs())};
}

// Inputs share a dtype and all dims but `dimension` (public concat promotes first).
const OpDef& concatenate_op =
    def_op("concatenate")
        .linear()
        .cpp([](detail::CppOp& op) {
          std::vector<std::string> xs;
          for (std::size_t i = 0; i < op.num_operands(); ++i) xs.push_back(op.operand(i));
          return fmt::format("tl::concat({{{}}}, {})", detail::cpp_list(xs), op.attrs().get<std::int64_t>("dimension"));
        })
        .inputs(-1)
        .shape_rule([](std::span<const TensorType> in, const Attrs& attrs) {
          if (in.empty()) fail<ValueError>("concat", "needs at least one tensor");
          const Shape& s0 = in[0].shape;
          const auto axis = attrs.get<std::int64_t>("dimension");
          if (s0.empty()) fail<ShapeError>("concat", "cannot concatenate rank-0 tensors");
          if (axis < 0 || axis >= std::int64_t(s0.size()))
            fail<AxisError>("concat", "axis {} is out of range for rank {}", axis, s0.size());
          Shape out = s0;
          out[std::size_t(axis)] = 0;
          for (const auto& t : in) {
            if (t.dtype != in[0].dtype) fail<DTypeError>("concat", "mixes {} and {}", in[0].dtype, t.dtype);
            bool fits = t.shape.size() == s0.size();
            for (std::size_t d = 0; fits && d < s0.size(); ++d)
              fits = std::int64_t(d) == axis || t.shape[d] == s0[d];
            if (!fits)
              fail<ShapeError>("concat", "shapes {} and {} differ outside axis {}", shape_string(s0),
                               shape_string(t.shape), axis);
            out[std::size_t(axis)] += t.shape[std::size_t(axis)];
          }
          return std::vector<TensorType>{{in[0].dtype, out}};
        })
        .kernel([](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType> out) {
          Tensor y = detail::empty(out[0].shape, out[0].dtype);
          concat_rows(in, y, std::size_t(attrs.get<std::int64_t>("dimension")));
          return std::vector<Tensor>{y};
        })
        .jvp(concatenate_jvp)
        .vjp(concatenate_vjp)
        .stablehlo({"stablehlo.concatenate",
                    {detail::StableHloAttr("dimension", detail::StableHloAttr::Kind::i64).pretty("dim")},
                    "keywords"});

}  // namespace

Tensor concat(const std::vector<Tensor>& xs, std::int64_t axis) {
  if (xs.empty()) fail<ValueError>("concat", "needs at least one tensor");
  for (std::size_t k = 0; k < xs.size(); ++k)
    if (!xs[k].defined()) fail<ValueError>("concat", "tensor {} is undefined", k);
  if (std::any_of(xs.begin(), xs.end(), [](const Tensor& x) { return detail::is_untyped(x); }))
    return detail::record_concat(xs, axis);
  if (xs[0].rank() == 0) fail<ShapeError>("concat", "cannot concatenate rank-0 tensors");
  const std::int64_t a = detail::normalize_axis("concat", axis, xs[0].rank());
  if (xs.size() == 1) return xs[0];
  DType t = xs[0].dtype();
  for (const auto& x : xs) t = detail::promote_for("concat", t, x.dtype());
  std::vector<Tensor> in;
  in.reserve(xs.size());
  for (const auto& x : xs) in.push_back(x.astype(t));
  return detail::call1(concatenate_op, in, {{"dimension", a}});
}

Tensor stack(const std::vector<Tensor>& xs, std::int64_t axis) {
  if (xs.empty()) fail<ValueError>("stack", "needs at least one tensor");
  if (std::any_of(xs.begin(), xs.end(), [](const Tensor& x) { return x.defined() && detail::is_untyped(x); }))
    return detail::record_stack(xs, axis);
  for (std::size_t k = 0; k < xs.size(); ++k) {
    if (!xs[k].defined()) fail<ValueError>("stack", "tensor {} is undefined", k);
    if (xs[k].shape() != xs[0].shape())
      fail<ShapeError>("stack", "shapes {} and {} differ", shape_string(xs[0].shape()),
                       shape_string(xs[k].shape()));
  }
  const std::int64_t a = detail::normalize_axis("stack", axis, xs[0].rank() + 1);
  std::vector<Tensor> expanded;
  expanded.reserve(xs.size());
  for (const auto& x : xs) expanded.push_back(expand_dims(x, a));
  return concat(expanded, a);
}

Ints derivatives::split_offsets(const Shape& shape, const Ints& sizes, std::int64_t axis) {
  if (shape.empty()) fail<AxisError>("split", "cannot split a rank-0 tensor");
  const auto a = std::size_t(detail::normalize_axis("split", axis, std::int64_t(shape.size())));
  Ints offsets{0};
  for (auto n : sizes) {
    if (n < 0) fail<ValueError>("split", "negative size in {}", sizes);
    offsets.push_back(offsets.back() + n);
  }
  if (offsets.back() != shape[a])
    fail<ShapeError>("split", "sizes {} do not add up to {}, the size of axis {} of {}", sizes, shape[a], a,
                     shape_string(shape));
  return offsets;
}

Ints derivatives::split_offsets(const Shape& shape, std::int64_t sections, std::int64_t axis) {
  if (sections < 1) fail<ValueError>("split", "needs a positive number of sections, got {}", sections);
  if (shape.empty()) fail<AxisError>("split", "cannot split a rank-0 tensor");
  const std::int64_t n =
      shape[std::size_t(detail::normalize_axis("split", axis, std::int64_t(shape.size())))];
  if (n % sections != 0)
    fail<ShapeError>("split", "axis {} of {} does not divide into {} equal sections", axis,
                     shape_string(shape), sections);
  return derivatives::split_offsets(shape, Ints(std::size_t(sections), n / sections), axis);
}

namespace {
std::vector<Tensor> split_at(const Tensor& x, const Ints& offsets, std::int64_t axis) {
  const auto a = std::size_t(detail::normalize_axis("split", axis, x.rank()));
  std::vector<Tensor> parts;
  parts.reserve(offsets.size() - 1);
  Ints starts(std::size_t(x.rank()), 0), stops = x.shape();
  for (std::size_t k = 0; k + 1 < offsets.size(); ++k) {
    starts[a] = offsets[k];
    stops[a] = offsets[k + 1];
    parts.push_back(slice(x, starts, stops));
  }
  return parts;
}
}  // namespace

std::vector<Tensor> split(const Tensor& x, const Ints& sizes, std::int64_t axis) {
  return split_at(x, derivatives::split_offsets(x.shape(), sizes, axis), axis);
}

std::vector<Tensor> split(const Tensor& x, std::int64_t sections, std::int64_t axis) {
  return split_at(x, derivatives::split_offsets(x.shape(), sections, axis), axis);
}

namespace {

// tile and repeat: x seen as `seen` (size-1 axes inserted), broadcast to `spread`,
// and reshaped to `out`: one copy.
struct Spread {
  Shape seen, spread, out;
};

// NumPy's tile: reps and shape are aligned at the right, the shorter padded with 1s.
// x seen as [1, d0, 1, d1, ...] is broadcast to [r0, d0, r1, d1, ...].
Spread tile_steps(std::string_view fn, const Shape& shape, const Ints& reps) {
  for (auto r : reps)
    if (r < 0) fail<ValueError>(fn, "negative repetition in {}", reps);
  const std::size_t rank = std::max(reps.size(), shape.size());
  Shape dims(rank, 1), rs(rank, 1);
  std::copy(shape.begin(), shape.end(), dims.end() - std::ptrdiff_t(shape.size()));
  std::copy(reps.begin(), reps.end(), rs.end() - std::ptrdiff_t(reps.size()));
  Spread s;
  for (std::size_t d = 0; d < rank; ++d) {
    s.seen.insert(s.seen.end(), {1, dims[d]});
    s.spread.insert(s.spread.end(), {rs[d], dims[d]});
    s.out.push_back(rs[d] * dims[d]);
  }
  return s;
}

// Each element repeated along axis: [.., n, 1, inner..] broadcast to [.., n, r, inner..].
Spread repeat_steps(std::string_view fn, const Shape& shape, std::int64_t repeats, std::int64_t axis) {
  if (repeats < 0) fail<ValueError>(fn, "negative repetition {}", repeats);
  if (shape.empty()) fail<AxisError>(fn, "cannot repeat along an axis of a rank-0 tensor");
  const auto a = std::size_t(detail::normalize_axis(fn, axis, std::int64_t(shape.size())));
  Spread s{shape, shape, shape};
  s.seen.insert(s.seen.begin() + std::ptrdiff_t(a) + 1, 1);
  s.spread.insert(s.spread.begin() + std::ptrdiff_t(a) + 1, repeats);
  s.out[a] *= repeats;
  return s;
}

Tensor spread(const Tensor& x, const Spread& s) {
  return reshape(broadcast_to(reshape(x, s.seen), s.spread), s.out);
}

// The steps' transposes, last first, as the engine's rules take them: the reshape
// back, the broadcast's sum (unbroadcast) and the reshape to x's shape.
Tensor spread_back(std::string_view fn, const Tensor& g, const Shape& shape, const Spread& s) {
  if (g.shape() != s.out)
    fail<ShapeError>(fn, "g is {}, but the result for {} is {}", shape_string(g.shape()), shape_string(shape),
                     shape_string(s.out));
  std::vector<std::int64_t> dims(s.seen.size());
  for (std::size_t i = 0; i < dims.size(); ++i) dims[i] = std::int64_t(i);
  const Tensor at_spread = reshape(g, s.spread);
  const Tensor summed =
      s.seen == s.spread ? at_spread : detail::unbroadcast(at_spread, s.seen, g.dtype(), dims);
  return reshape(summed, shape);
}

// tile and repeat recorded on a value of unknown type, their arguments as written;
// where types are known they record a reshape, a broadcast and a reshape. Each
// one's transpose is an op of two operands (the cotangent, and x for its shape),
// `backward`, whose transpose is the op again.
using SpreadOf = Spread (*)(std::string_view fn, const Shape& shape, const Attrs& attrs);
struct SpreadOps {
  const OpDef* forward = nullptr;
  const OpDef* backward = nullptr;
};
std::string spread_arguments(detail::CppOp& op, const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& n : names) out.push_back(detail::cpp_attr(op.attrs(), n));
  return detail::cpp_list(out);
}
SpreadOps def_spread(const char* name, std::vector<std::string> attributes, SpreadOf steps) {
  static std::vector<std::unique_ptr<SpreadOps>> all;
  all.push_back(std::make_unique<SpreadOps>());
  SpreadOps* ops = all.back().get();
  const std::string backward = std::string(name) + "_backward";
  ops->forward =
      &def_op(name)
           .linear()
           .inputs(1)
           .called_as({.names = {name}, .attributes = attributes})
           .shape_rule([name, steps](std::span<const TensorType> in, const Attrs& a) {
             return std::vector<TensorType>{{in[0].dtype, steps(name, in[0].shape, a).out}};
           })
           .kernel([name, steps](std::span<const Tensor> in, const Attrs& a, std::span<const TensorType>) {
             return std::vector<Tensor>{spread(in[0], steps(name, in[0].shape(), a))};
           })
           .jvp(detail::linear_jvp({0}))
           .vjp([ops](const detail::Rule& r) {
             return std::vector<Tensor>{detail::call1(*ops->backward, {r.cotangent(), r.in(0)}, r.attrs())};
           })
           .cpp([name, attributes](detail::CppOp& op) {
             return fmt::format("tl::{}({}, {})", name, op.operand(0), spread_arguments(op, attributes));
           });
  ops->backward =
      &def_op(backward)
           .linear({0})
           .inputs(2)
           .called_as({.names = {backward}, .attributes = attributes, .by_shape = {1}})
           .type_origin(OpDef::TypeOrigin{1, 0})
           .shape_rule([](std::span<const TensorType> in, const Attrs&) {
             return std::vector<TensorType>{{in[0].dtype, in[1].shape}};
           })
           .kernel(
               [backward, steps](std::span<const Tensor> in, const Attrs& a, std::span<const TensorType>) {
                 return std::vector<Tensor>{
                     spread_back(backward, in[0], in[1].shape(), steps(backward, in[1].shape(), a))};
               })
           .jvp([ops](const detail::Rule& r) {
             return std::vector<Tensor>{
                 r.has_tangent(0) ? detail::call1(*ops->backward, {r.tangent(0), r.in(1)}, r.attrs())
                                  : Tensor()};
           })
           .vjp([ops](const detail::Rule& r) {
             return std::vector<Tensor>{
                 r.wants(0) ? detail::call1(*ops->forward, {r.cotangent()}, r.attrs()) : Tensor(), Tensor()};
           })
           .cpp([backward, attributes](detail::CppOp& op) {
             return fmt::format("tl::derivatives::{}({}, {}.shape(), {})", backward, op.operand(0),
                                op.operand(1), spread_arguments(op, attributes));
           });
  return *ops;
}
const SpreadOps tile_ops =
    def_spread("tile", {"reps"}, [](std::string_view fn, const Shape& shape, const Attrs& a) {
      return tile_steps(fn, shape, a.get<Ints>("reps"));
    });
const SpreadOps repeat_ops =
    def_spread("repeat", {"repeats", "axis"}, [](std::string_view fn, const Shape& shape, const Attrs& a) {
      return repeat_steps(fn, shape, a.get<std::int64_t>("repeats"), a.get<std::int64_t>("axis"));
    });

}  // namespace

Tensor tile(const Tensor& x, const Ints& reps) {
  if (detail::is_untyped(x)) return detail::call1(*tile_ops.forward, {x}, {{"reps", reps}});
  return spread(x, tile_steps("tile", x.shape(), reps));
}
Tensor derivatives::tile_backward(const Tensor& g, const Shape& shape, const Ints& reps) {
  return spread_back("tile_backward", g, shape, tile_steps("tile_backward", shape, reps));
}

Tensor repeat(const Tensor& x, std::int64_t repeats, std::int64_t axis) {
  if (detail::is_untyped(x))
    return detail::call1(*repeat_ops.forward, {x}, {{"repeats", repeats}, {"axis", axis}});
  return spread(x, repeat_steps("repeat", x.shape(), repeats, axis));
}
Tensor derivatives::repeat_backward(const Tensor& g, const Shape& shape, std::int64_t repeats, std::int64_t axis) {
  return spread_back("repeat_backward", g, shape, repeat_steps("repeat_backward", shape, repeats, axis));
}

}  // namespace tlaloc
