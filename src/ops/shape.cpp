// Ops that rearrange elements without computing on them: reshape (a view),
// transpose, broadcast_in_dim, and the public helpers built on them.
#include <fmt/format.h>

#include <algorithm>

#include "core/elementwise.hpp"
#include "core/layout.hpp"
#include "ir/op.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/like.hpp"
#include "ops/reduce_axes.hpp"
#include "ops/rule.hpp"
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
using Hlo = detail::StableHloAttr;
using Kind = detail::StableHloAttr::Kind;

// `shape` with its -1 (at most one) worked out from x's element count.
Shape resolved_shape(const Shape& shape, const Shape& of) {
  for (auto d : shape)
    if (d < -1) fail<ShapeError>("reshape", "invalid size {} in {}", d, shape_string(shape));
  Shape s = shape;
  const auto inferred = std::count(s.begin(), s.end(), -1);
  if (inferred > 1) fail<ShapeError>("reshape", "only one dimension of {} may be -1", shape_string(shape));
  if (inferred == 1) {
    Shape known_sizes;
    for (auto d : s)
      if (d != -1) known_sizes.push_back(d);
    const std::int64_t known = detail::numel_of(known_sizes);
    const std::int64_t n = detail::numel_of(of);
    if (known == 0 || n % known != 0)
      fail<ShapeError>("reshape", "cannot reshape {} into {}", shape_string(of), shape_string(shape));
    *std::find(s.begin(), s.end(), -1) = n / known;
  }
  return s;
}

// Recorded where types are known, the shape is the result's; recorded on a value of
// unknown type, it is as written (a -1 among its sizes).
const OpDef& reshape_op =
    def_op("reshape")
        .linear()
        .called_as({.names = {"reshape"}, .attributes = {"shape"}, .passes_on = true})
        .cpp([](detail::CppOp& op) {
          const std::string* written = detail::cpp_written(op.attrs(), "shape");
          return detail::cpp_call(
              "tl::reshape", op,
              {written != nullptr ? *written : detail::cpp_shape(op.result_type(0).shape)});
        })
        .inputs(1)
        .shape_rule([](std::span<const TensorType> in, const Attrs& attrs) {
          const Shape shape = resolved_shape(attrs.get<std::vector<std::int64_t>>("shape"), in[0].shape);
          if (detail::numel_of(shape) != detail::numel_of(in[0].shape))
            fail<ShapeError>("reshape", "cannot reshape {} into {}", shape_string(in[0].shape),
                             shape_string(shape));
          return std::vector<TensorType>{{in[0].dtype, shape}};
        })
        .kernel([](std::span<const Tensor> in, const Attrs&, std::span<const TensorType> out) {
          return std::vector<Tensor>{detail::view(in[0], out[0].shape)};
        })
        .jvp(detail::linear_jvp({0}))
        .vjp([](const detail::Rule& r) {
          return std::vector<Tensor>{detail::reshape_like(r.cotangent(), r.in(0))};
        })
        .stablehlo(
            {"stablehlo.reshape", {Hlo("result_shape", Kind::result_shape).as("shape")}, "elementwise"});

// squeeze's result shape: `axes` dropped (each of size 1), or every axis of size 1.
Shape squeezed(const Shape& shape, const Axes& axes) {
  std::vector<bool> drop(shape.size(), false);
  if (axes.all()) {
    for (std::size_t d = 0; d < drop.size(); ++d) drop[d] = shape[d] == 1;
  } else {
    for (auto a : detail::normalize_axes("squeeze", axes.list(), std::int64_t(shape.size()))) {
      if (shape[std::size_t(a)] != 1)
        fail<ShapeError>("squeeze", "axis {} of {} has size {}, not 1", a, shape_string(shape),
                         shape[std::size_t(a)]);
      drop[std::size_t(a)] = true;
    }
  }
  Shape s;
  for (std::size_t d = 0; d < drop.size(); ++d)
    if (!drop[d]) s.push_back(shape[d]);
  return s;
}
Shape expanded(const Shape& shape, std::int64_t axis) {
  const std::int64_t a = detail::normalize_axis("expand_dims", axis, std::int64_t(shape.size()) + 1);
  Shape s = shape;
  s.insert(s.begin() + a, 1);
  return s;
}

// squeeze and expand_dims recorded on a value of unknown type, their axes as written
// (reduce_axes.hpp); where types are known, each records a reshape. Each is a
// reshape, whose transpose reshapes back.
OpDef& def_reshaping(std::string_view name, std::vector<std::string> attributes, bool passes_on,
                     Shape (*shape_of)(const Shape&, const Attrs&)) {
  return def_op(name)
      .linear()
      .inputs(1)
      .called_as({.names = {std::string(name)}, .attributes = std::move(attributes), .passes_on = passes_on})
      .shape_rule([shape_of](std::span<const TensorType> in, const Attrs& attrs) {
        return std::vector<TensorType>{{in[0].dtype, shape_of(in[0].shape, attrs)}};
      })
      .kernel([](std::span<const Tensor> in, const Attrs&, std::span<const TensorType> out) {
        return std::vector<Tensor>{reshape(in[0], out[0].shape)};
      })
      .jvp(detail::linear_jvp({0}))
      .vjp([](const detail::Rule& r) {
        return std::vector<Tensor>{detail::reshape_like(r.cotangent(), r.in(0))};
      });
}
const OpDef& squeeze_op = def_reshaping("squeeze", {"axes"}, true, [](const Shape& s, const Attrs& a) {
                            return squeezed(s, detail::axes_of(a));
                          }).cpp([](detail::CppOp& op) {
  const std::string* written = detail::cpp_written(op.attrs(), "axes");
  return detail::cpp_call("tl::squeeze", op,
                          {written != nullptr ? *written : detail::cpp_axes_of(op.attrs())});
});
const OpDef& expand_dims_op =
    def_reshaping("expand_dims", {"axis"}, false, [](const Shape& s, const Attrs& a) {
      return expanded(s, a.get<std::int64_t>("axis"));
    }).cpp([](detail::CppOp& op) {
      const std::string* written = detail::cpp_written(op.attrs(), "axis");
      return detail::cpp_call(
          "tl::expand_dims", op,
          {written != nullptr ? *written : std::to_string(op.attrs().get<std::int64_t>("axis"))});
    });

void check_permutation(std::string_view op, const std::vector<std::int64_t>& perm, std::size_t rank) {
  std::vector<bool> seen(rank, false);
  bool ok = perm.size() == rank;
  for (auto p : perm) {
    ok = ok && p >= 0 && std::size_t(p) < rank && !seen[std::size_t(p)];
    if (ok) seen[std::size_t(p)] = true;
  }
  if (!ok) fail<AxisError>(op, "{} is not a permutation of {} axes", perm, rank);
}

// The permutation of a transpose of `rank` axes. Recorded where types are known, it is
// checked and normalised; recorded on a value of unknown type, it is as written
// (negative axes count from the end) or absent (the axes reversed: tl::transpose(x)).
std::vector<std::int64_t> permutation_of(std::string_view op, const Attrs& attrs, std::size_t rank) {
  std::vector<std::int64_t> p(rank);
  for (std::size_t i = 0; i < rank; ++i) p[i] = std::int64_t(rank - 1 - i);
  if (attrs.has("permutation")) p = attrs.get<std::vector<std::int64_t>>("permutation");
  for (auto& a : p)
    if (a < 0) a += std::int64_t(rank);
  check_permutation(op, p, rank);
  return p;
}
std::vector<std::int64_t> inverse_of(const std::vector<std::int64_t>& p) {
  std::vector<std::int64_t> inverse(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) inverse[std::size_t(p[i])] = std::int64_t(i);
  return inverse;
}
Shape permuted(const Shape& s, const std::vector<std::int64_t>& perm) {
  Shape r(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) r[i] = s[std::size_t(perm[i])];
  return r;
}
// `fn(x, perm)`, or `tl::transpose(x)` where the axes are reversed.
std::string permuted_spelling(std::string_view fn, detail::CppOp& op) {
  if (!op.attrs().has("permutation")) return detail::cpp_call("tl::transpose", op);
  return detail::cpp_call(fn, op, {detail::cpp_attr(op.attrs(), "permutation")});
}

Tensor transposed(const Tensor& g, const Attrs& attrs);
Tensor transposed_back(const Tensor& g, const Attrs& attrs);

const OpDef& transpose_op =
    def_op("transpose")
        .linear()
        .called_as({.names = {"transpose", "permute"}, .attributes = {"permutation"}, .passes_on = true})
        .cpp([](detail::CppOp& op) { return permuted_spelling("tl::transpose", op); })
        .inputs(1)
        .shape_rule([](std::span<const TensorType> in, const Attrs& attrs) {
          const auto perm = permutation_of("transpose", attrs, in[0].shape.size());
          return std::vector<TensorType>{{in[0].dtype, permuted(in[0].shape, perm)}};
        })
        .kernel([](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType>) {
          return std::vector<Tensor>{
              detail::permute_copy(in[0], permutation_of("transpose", attrs, std::size_t(in[0].rank())))};
        })
        .jvp(detail::linear_jvp({0}))
        .vjp([](const detail::Rule& r) {
          return std::vector<Tensor>{transposed_back(r.cotangent(), r.attrs())};
        })
        .stablehlo({"stablehlo.transpose", {Hlo("permutation", Kind::i64_array).pretty("dims")}, "keywords"});

// tl::derivatives::transpose_backward recorded on a value of unknown type: the
// transpose by the inverse permutation, whose own transpose is the transpose.
const OpDef& transpose_backward_op =
    def_op("transpose_backward")
        .linear()
        .called_as({.names = {"transpose_backward"}, .attributes = {"permutation"}, .passes_on = true})
        .cpp([](detail::CppOp& op) { return permuted_spelling("tl::derivatives::transpose_backward", op); })
        .inputs(1)
        .shape_rule([](std::span<const TensorType> in, const Attrs& attrs) {
          const auto perm = inverse_of(permutation_of("transpose_backward", attrs, in[0].shape.size()));
          return std::vector<TensorType>{{in[0].dtype, permuted(in[0].shape, perm)}};
        })
        .kernel([](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType>) {
          return std::vector<Tensor>{transposed_back(in[0], attrs)};
        })
        .jvp(detail::linear_jvp({0}))
        .vjp([](const detail::Rule& r) { return std::vector<Tensor>{transposed(r.cotangent(), r.attrs())}; });

Tensor transposed(const Tensor& g, const Attrs& attrs) {
  if (detail::unresolved(g, attrs)) return call1(transpose_op, {g}, attrs);
  return attrs.has("permutation") ? transpose(g, attrs.get<std::vector<std::int64_t>>("permutation"))
                                  : transpose(g);
}
Tensor transposed_back(const Tensor& g, const Attrs& attrs) {
  if (detail::unresolved(g, attrs)) return call1(transpose_backward_op, {g}, attrs);
  return attrs.has("permutation")
             ? derivatives::transpose_backward(g, attrs.get<std::vector<std::int64_t>>("permutation"))
             : transpose(g);
}

// x with its axes reordered so that their target dims ascend, and those dims.
std::pair<Tensor, std::vector<std::int64_t>> ascending_dims(const Tensor& x, std::vector<std::int64_t> dims) {
  if (std::is_sorted(dims.begin(), dims.end())) return {x, dims};
  std::vector<std::int64_t> perm(dims.size());
  for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = std::int64_t(i);
  std::sort(perm.begin(), perm.end(),
            [&](auto a, auto b) { return dims[std::size_t(a)] < dims[std::size_t(b)]; });
  std::sort(dims.begin(), dims.end());
  return {detail::permute_copy(x, perm), dims};
}

// Whether a broadcast to rank `rank` puts the operand's axes last (NumPy's broadcast).
bool trailing_dims(const std::vector<std::int64_t>& dims, std::size_t rank) {
  bool trailing = true;
  for (std::size_t i = 0; i < dims.size(); ++i)
    trailing = trailing && dims[i] == std::int64_t(rank - dims.size() + i);
  return trailing;
}

}  // namespace

Tensor detail::unbroadcast(const Tensor& g, const Shape& shape, DType dtype,
                           const std::vector<std::int64_t>& dims) {
  // NumPy's broadcast (x's axes last): sum_to_size, the function every other rule
  // sums a broadcast back with, so that generated gradients spell it the same way.
  if (trailing_dims(dims, std::size_t(g.rank()))) return sum_to_size(g, shape).astype(dtype);
  std::vector<std::int64_t> extra;
  for (std::int64_t a = 0; a < g.rank(); ++a)
    if (std::find(dims.begin(), dims.end(), a) == dims.end()) extra.push_back(a);
  Tensor r = extra.empty() ? g : sum(g, Axes(extra));
  // r's axes follow the ascending dims; x's follow dims as listed.
  std::vector<std::int64_t> perm(dims.size());
  for (std::size_t i = 0; i < dims.size(); ++i)
    perm[i] = std::count_if(dims.begin(), dims.end(), [&](std::int64_t d) { return d < dims[i]; });
  if (!std::is_sorted(dims.begin(), dims.end())) r = transpose(r, perm);
  std::vector<std::int64_t> ones;
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (shape[i] == 1 && r.shape()[i] != 1) ones.push_back(std::int64_t(i));
  if (!ones.empty()) r = sum(r, Axes(ones), true);
  return r.astype(dtype);
}

namespace {

// NumPy-style (trailing axes) is tl::broadcast_to, the rest tl::lax::broadcast_in_dim.
std::string broadcast_spelling(detail::CppOp& op) {
  const auto& dims = op.attrs().get<std::vector<std::int64_t>>("dims");
  const Shape& shape = op.result_type(0).shape;
  if (trailing_dims(dims, shape.size()))
    return detail::cpp_call("tl::broadcast_to", op, {detail::cpp_shape(shape)});
  return detail::cpp_call("tl::lax::broadcast_in_dim", op, {detail::cpp_shape(shape), detail::cpp_ints(dims)});
}

// StableHLO's broadcast_in_dim: operand axis i becomes result axis dims[i].
const OpDef& broadcast_in_dim_op =
    def_op("broadcast_in_dim")
        .linear()
        .cpp(broadcast_spelling)
        .inputs(1)
        .stablehlo({"stablehlo.broadcast_in_dim",
                    {detail::StableHloAttr("broadcast_dimensions", detail::StableHloAttr::Kind::i64_array)
                         .as("dims")
                         .pretty("dims"),
                     detail::StableHloAttr("shape", detail::StableHloAttr::Kind::result_shape)},
                    "keywords"})
        .shape_rule([](std::span<const TensorType> in, const Attrs& attrs) {
          const auto& shape = attrs.get<std::vector<std::int64_t>>("shape");
          const auto& dims = attrs.get<std::vector<std::int64_t>>("dims");
          const Shape& s = in[0].shape;
          bool ok = dims.size() == s.size();
          std::vector<bool> used(shape.size(), false);
          for (std::size_t i = 0; ok && i < dims.size(); ++i) {
            ok = dims[i] >= 0 && std::size_t(dims[i]) < shape.size() && !used[std::size_t(dims[i])] &&
                 (s[i] == 1 || s[i] == shape[std::size_t(dims[i])]);
            if (ok) used[std::size_t(dims[i])] = true;
          }
          if (!ok)
            fail<ShapeError>("broadcast_to", "cannot broadcast {} to {} (dims {})", shape_string(s),
                             shape_string(shape), dims);
          return std::vector<TensorType>{{in[0].dtype, shape}};
        })
        .kernel([](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType> out) {
          // StableHLO allows dims in any order: a transpose first makes them ascending.
          const auto sorted = ascending_dims(in[0], attrs.get<std::vector<std::int64_t>>("dims"));
          const Tensor& x = sorted.first;
          const auto& dims = sorted.second;
          // Give the operand the result's rank (size-1 axes where it has none), then broadcast.
          Shape aligned(out[0].shape.size(), 1);
          for (std::size_t i = 0; i < dims.size(); ++i) aligned[std::size_t(dims[i])] = x.shape()[i];
          Tensor y = detail::empty(out[0].shape, x.dtype());
          const auto plan = detail::plan_broadcast<1>(out[0].shape, {&aligned});
          TLALOC_SWITCH_WITH_COMPLEX(x.dtype(), "broadcast_to", {
            const T* src = x.data<T>();
            T* dst = detail::mutable_data<T>(y);
            detail::for_each_row(plan,
                                 [&](std::int64_t o, std::int64_t n, const std::array<std::int64_t, 1>& off,
                                     const std::array<std::int64_t, 1>& st) {
                                   if (st[0] == 0)
                                     std::fill(dst + o, dst + o + n, src[off[0]]);
                                   else
                                     std::copy(src + off[0], src + off[0] + n, dst + o);
                                 });
          })
          return std::vector<Tensor>{y};
        })
        .jvp(detail::linear_jvp({0}))
        .vjp([](const detail::Rule& r) {
          // NumPy's broadcast is undone as tl::broadcast_to's rule undoes it, reading no
          // type (the result's rank is the shape attribute's).
          const auto& dims = r.attr<std::vector<std::int64_t>>("dims");
          if (trailing_dims(dims, r.attr<std::vector<std::int64_t>>("shape").size()))
            return std::vector<Tensor>{sum_to_shape_of(r.cotangent(), r.in(0))};
          return std::vector<Tensor>{
              detail::unbroadcast(r.cotangent(), r.in(0).shape(), r.in(0).dtype(), dims)};
        })
        .stablehlo({"stablehlo.broadcast_in_dim",
                    {Hlo("broadcast_dimensions", Kind::i64_array).as("dims").pretty("dims"),
                     Hlo("result_shape", Kind::result_shape).as("shape")},
                    "keywords"});

}  // namespace

Tensor reshape(const Tensor& x, const Shape& shape) {
  if (detail::is_untyped(x)) return call1(reshape_op, {x}, {{"shape", shape}});
  const Shape s = resolved_shape(shape, x.shape());
  if (s == x.shape()) return x;
  return call1(reshape_op, {x}, {{"shape", s}});
}

Tensor transpose(const Tensor& x, const std::vector<std::int64_t>& perm) {
  if (detail::is_untyped(x)) return call1(transpose_op, {x}, {{"permutation", perm}});
  const Attrs attrs{{"permutation", perm}};
  const std::vector<std::int64_t> p = permutation_of("transpose", attrs, std::size_t(x.rank()));
  bool identity = true;
  for (std::size_t i = 0; i < p.size(); ++i) identity = identity && p[i] == std::int64_t(i);
  if (identity && std::int64_t(p.size()) == x.rank()) return x;
  return call1(transpose_op, {x}, {{"permutation", p}});
}
Tensor transpose(const Tensor& x) {
  if (detail::is_untyped(x)) return call1(transpose_op, {x});
  return transpose(x, permutation_of("transpose", {}, std::size_t(x.rank())));
}
Tensor permute(const Tensor& x, const std::vector<std::int64_t>& perm) { return transpose(x, perm); }
Tensor derivatives::transpose_backward(const Tensor& g, const std::vector<std::int64_t>& perm) {
  if (detail::is_untyped(g)) return call1(transpose_backward_op, {g}, {{"permutation", perm}});
  const Attrs attrs{{"permutation", perm}};
  return transpose(g, inverse_of(permutation_of("transpose_backward", attrs, std::size_t(g.rank()))));
}

Tensor squeeze(const Tensor& x, Axes axes) {
  if (!detail::is_untyped(x)) return reshape(x, squeezed(x.shape(), axes));
  detail::Attrs a{{"axes", axes.list()}};
  if (axes.all()) a.set("all", true);
  return call1(squeeze_op, {x}, a);
}

Tensor expand_dims(const Tensor& x, std::int64_t axis) {
  if (detail::is_untyped(x)) return call1(expand_dims_op, {x}, {{"axis", axis}});
  return reshape(x, expanded(x.shape(), axis));
}

Tensor lax::broadcast_in_dim(const Tensor& x, const Shape& shape, const std::vector<std::int64_t>& dims) {
  return call1(broadcast_in_dim_op, {x}, {{"shape", shape}, {"dims", dims}});
}

Tensor broadcast_to(const Tensor& x, const Shape& shape) {
  if (detail::is_untyped(x)) return detail::to_shape(detail::ToShapeOp::broadcast_to, x, shape);
  if (x.shape() == shape) return x;
  for (auto d : shape)
    if (d < 0) fail<ShapeError>("broadcast_to", "invalid size {} in {}", d, shape_string(shape));
  if (x.rank() > std::int64_t(shape.size()))
    fail<ShapeError>("broadcast_to", "cannot broadcast {} to {}", shape_string(x.shape()),
                     shape_string(shape));
  std::vector<std::int64_t> dims(std::size_t(x.rank()));
  for (std::size_t i = 0; i < dims.size(); ++i) dims[i] = std::int64_t(shape.size() - dims.size() + i);
  return call1(broadcast_in_dim_op, {x}, {{"shape", shape}, {"dims", dims}});
}

Tensor broadcast_to_shape_of(const Tensor& t, const Tensor& y) {
  if (!t.defined()) return t;
  if (detail::is_untyped(t) || detail::is_untyped(y))
    return detail::like_call(detail::LikeOp::broadcast_to_shape_of, t, y);
  const Tensor r = broadcast_to(t, y.shape());
  return r.dtype() == y.dtype() ? r : r.astype(y.dtype());
}

}  // namespace tlaloc
