// Ops whose result takes its shape or dtype from an operand. Where types are known,
// the public functions they stand for (sum_to_shape_of, broadcast_to_shape_of,
// zeros_like, ones_like, a weak scalar beside a tensor, a conversion to another
// value's dtype, and the reductions' rules sum_backward, extreme_backward and
// extreme_jvp) read the shapes and record ordinary ops. A value traced at build time has its type known only
// at run time (docs/ENGINE_AT_BUILD_TIME.md): those functions record these ops instead, and each prints as
// the public call it stands for. Run or lowered with types known, each is that call.
#include "ops/like.hpp"

#include <optional>

#include <fmt/format.h>

#include "core/tensor_impl.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/elementwise_rules.hpp"
#include "ops/reduce_axes.hpp"
#include "ops/rule.hpp"
#include "ops/scalar_attr.hpp"
#include "tlaloc/derivatives.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::detail {
namespace {

using Public = Tensor (*)(const Tensor&, const Tensor&);

// The result has the second operand's type, and is `fn` of the two operands.
OpDef& def_like(std::string_view name, Public fn) {
  return def_op(name)
      .inputs(2)
      .shape_rule([](std::span<const TensorType> in, const Attrs&) { return std::vector<TensorType>{in[1]}; })
      .kernel([fn](std::span<const Tensor> in, const Attrs&, std::span<const TensorType>) {
        return std::vector<Tensor>{fn(in[0], in[1])};
      })
      .lower([fn](std::span<const Tensor> in, const Attrs&) { return std::vector<Tensor>{fn(in[0], in[1])}; })
      .type_origin(OpDef::TypeOrigin{1, 1})
      .cpp(cpp_fn(fmt::format("tl::{}", name)));
}

// The second operand gives only a shape and a dtype: no derivative flows to it.
const OpDef& sum_to_shape_of_op =
    def_like("sum_to_shape_of", sum_to_shape_of)
        .identity_where_same_type()
        .called_as({.names = {"sum_to_shape_of"}, .attributes = {}, .passes_on = true})
        .jvp([](const Rule& r) { return std::vector<Tensor>{sum_to_shape_of(r.tangent(0), r.in(1))}; })
        .vjp([](const Rule& r) {
          return std::vector<Tensor>{r.wants(0) ? broadcast_to_shape_of(r.cotangent(), r.in(0)) : Tensor(),
                                     Tensor()};
        });
const OpDef& broadcast_to_shape_of_op =
    def_like("broadcast_to_shape_of", broadcast_to_shape_of)
        .identity_where_same_type()
        .called_as({.names = {"broadcast_to_shape_of"}, .attributes = {}, .passes_on = true})
        .jvp([](const Rule& r) { return std::vector<Tensor>{broadcast_to_shape_of(r.tangent(0), r.in(1))}; })
        // As the convert and the broadcast it records where types are known transpose:
        // converted back to t's dtype first, then summed in it.
        .vjp([](const Rule& r) {
          return std::vector<Tensor>{
              r.wants(0) ? sum_to_shape_of(astype_like(r.cotangent(), r.in(0)), r.in(0)) : Tensor(),
              Tensor()};
        });

// broadcast_to(x, shape) and sum_to_size(x, shape) recorded on a value of unknown type,
// the shape as written; each is the other's transpose, taking x's shape and dtype
// (`transpose`: broadcast_to_shape_of or sum_to_shape_of). Where types are known the
// public functions record a broadcast_in_dim, and a sum and a reshape.
// Where types are known the shape rule checks that the larger shape broadcasts from
// the smaller (tlaloc-grad reads it at build time, tools/tlaloc-grad/shapes.cpp).
using ToShape = Tensor (*)(const Tensor&, const Shape&);
OpDef& def_to_shape(std::string_view name, ToShape fn, Public transpose, bool grows) {
  return def_op(name)
      .linear()
      .inputs(1)
      .called_as({.names = {std::string(name)}, .attributes = {"shape"}, .passes_on = true})
      .shape_rule([name = std::string(name), grows](std::span<const TensorType> in, const Attrs& attrs) {
        const Shape shape = attrs.get<std::vector<std::int64_t>>("shape");
        const Shape& larger = grows ? shape : in[0].shape;
        const Shape& smaller = grows ? in[0].shape : shape;
        if (broadcast_shapes(name, smaller, larger) != larger)
          fail<ShapeError>(name, "cannot broadcast {} to {}", shape_string(smaller), shape_string(larger));
        return std::vector<TensorType>{{in[0].dtype, shape}};
      })
      .kernel([fn](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType>) {
        return std::vector<Tensor>{fn(in[0], attrs.get<std::vector<std::int64_t>>("shape"))};
      })
      .jvp(linear_jvp({0}))
      .vjp([transpose](const Rule& r) { return std::vector<Tensor>{transpose(r.cotangent(), r.in(0))}; })
      .cpp([name = fmt::format("tl::{}", name)](CppOp& op) {
        const std::string* written = cpp_written(op.attrs(), "shape");
        return cpp_call(name, op, {written != nullptr ? *written : cpp_shape(op.result_type(0).shape)});
      });
}
const OpDef& broadcast_to_op = def_to_shape("broadcast_to", broadcast_to, sum_to_shape_of, true);
const OpDef& sum_to_size_op = def_to_shape("sum_to_size", sum_to_size, broadcast_to_shape_of, false);

// t in like's shape; the transpose reshapes back.
Tensor reshape_to(const Tensor& t, const Tensor& like) { return reshape(t, like.shape()); }
const OpDef& reshape_like_op =
    def_like("reshape_like", reshape_to)
        .type_origin(OpDef::TypeOrigin{1, 0})
        .shape_rule([](std::span<const TensorType> in, const Attrs&) {
          return std::vector<TensorType>{{in[0].dtype, in[1].shape}};
        })
        .jvp([](const Rule& r) { return std::vector<Tensor>{reshape_like(r.tangent(0), r.in(1))}; })
        .vjp([](const Rule& r) {
          return std::vector<Tensor>{r.wants(0) ? reshape_like(r.cotangent(), r.in(0)) : Tensor(), Tensor()};
        })
        .cpp([](CppOp& op) {
          return fmt::format("tl::reshape({}, {}.shape())", op.operand(0), op.operand(1));
        });

// t in like's dtype; the transpose converts back.
Tensor convert_to(const Tensor& t, const Tensor& like) { return t.astype(like.dtype()); }
const OpDef& convert_like_op =
    def_op("convert_like")
        .identity_where_same_type()
        .inputs(2)
        .shape_rule([](std::span<const TensorType> in, const Attrs&) {
          return std::vector<TensorType>{{in[1].dtype, in[0].shape}};
        })
        .kernel([](std::span<const Tensor> in, const Attrs&, std::span<const TensorType>) {
          return std::vector<Tensor>{convert_to(in[0], in[1])};
        })
        .lower([](std::span<const Tensor> in, const Attrs&) {
          return std::vector<Tensor>{convert_to(in[0], in[1])};
        })
        .type_origin(OpDef::TypeOrigin{0, 1})
        .jvp([](const Rule& r) { return std::vector<Tensor>{astype_like(r.tangent(0), r.in(1))}; })
        .vjp([](const Rule& r) {
          return std::vector<Tensor>{r.wants(0) ? astype_like(r.cotangent(), r.in(0)) : Tensor(), Tensor()};
        })
        .cpp([](CppOp& op) { return fmt::format("{}.astype({}.dtype())", op.operand(0), op.operand(1)); });

// A reduction's cotangent g spread back over x's shape (sum's rule); its transpose
// sums over the same axes.
Tensor spread_back(const Tensor& g, const Tensor& x, const Attrs& attrs) {
  return derivatives::sum_backward(g, x.shape(), axes_of(attrs), attrs.get<bool>("keepdims"));
}
const OpDef& sum_backward_op =
    def_op("sum_backward")
        .inputs(2)
        .called_as({.names = {"sum_backward"},
                    .attributes = {"axes", "keepdims"},
                    .defaults = {{"keepdims", false}},
                    .by_shape = {1}})
        .shape_rule([](std::span<const TensorType> in, const Attrs&) {
          return std::vector<TensorType>{{in[0].dtype, in[1].shape}};
        })
        .kernel([](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType>) {
          return std::vector<Tensor>{spread_back(in[0], in[1], attrs)};
        })
        .lower([](std::span<const Tensor> in, const Attrs& attrs) {
          return std::vector<Tensor>{spread_back(in[0], in[1], attrs)};
        })
        .type_origin(OpDef::TypeOrigin{1, 0})
        .jvp([](const Rule& r) {
          return std::vector<Tensor>{r.has_tangent(0) ? call1(*r.op(), {r.tangent(0), r.in(1)}, r.attrs())
                                                      : Tensor()};
        })
        .vjp([](const Rule& r) {
          if (!r.wants(0)) return std::vector<Tensor>(2);
          const Tensor summed = call1(*find_op("reduce_sum"), {r.cotangent()}, r.attrs());
          return std::vector<Tensor>{astype_like(summed, r.in(0)), Tensor()};
        })
        .cpp([](CppOp& op) {
          return fmt::format("tl::derivatives::sum_backward({}, {}.shape(), {}, {})", op.operand(0),
                             op.operand(1), cpp_axes_of(op.attrs()), cpp_attr(op.attrs(), "keepdims"));
        });

// max's and min's rules, each linear in its first operand; x and y only route it (no
// derivative flows to them). The result has operand `like`'s shape and the first
// operand's dtype.
using Extreme = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, Axes, bool);
Tensor extreme(Extreme fn, std::span<const Tensor> in, const Attrs& attrs) {
  return fn(in[0], in[1], in[2], axes_of(attrs), attrs.get<bool>("keepdims"));
}
// Each is the other's transpose in the first operand (`transpose` names it).
OpDef& def_extreme(std::string_view name, Extreme fn, std::size_t like, std::string_view transpose) {
  return def_op(name)
      .inputs(3)
      .type_origin(OpDef::TypeOrigin{int(like), 0})
      .shape_rule([like](std::span<const TensorType> in, const Attrs&) {
        return std::vector<TensorType>{{in[0].dtype, in[like].shape}};
      })
      .kernel([fn](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType>) {
        return std::vector<Tensor>{extreme(fn, in, attrs)};
      })
      .lower([fn](std::span<const Tensor> in, const Attrs& attrs) {
        return std::vector<Tensor>{extreme(fn, in, attrs)};
      })
      .called_as({.names = {std::string(name)},
                  .attributes = {"axes", "keepdims"},
                  .defaults = {{"keepdims", false}}})
      .jvp([](const Rule& r) {
        return std::vector<Tensor>{
            r.has_tangent(0) ? call1(*r.op(), {r.tangent(0), r.in(1), r.in(2)}, r.attrs()) : Tensor()};
      })
      .vjp([transpose = std::string(transpose)](const Rule& r) {
        std::vector<Tensor> g(3);
        if (r.wants(0)) g[0] = call1(*find_op(transpose), {r.cotangent(), r.in(1), r.in(2)}, r.attrs());
        return g;
      })
      .cpp([name = std::string(name)](CppOp& op) {
        return fmt::format("tl::derivatives::{}({}, {}, {}, {}, {})", name, op.operand(0), op.operand(1),
                           op.operand(2), cpp_axes_of(op.attrs()), cpp_attr(op.attrs(), "keepdims"));
      });
}
const OpDef& extreme_backward_op = def_extreme("extreme_backward", derivatives::extreme_backward, 1, "extreme_jvp");
const OpDef& extreme_jvp_op = def_extreme("extreme_jvp", derivatives::extreme_jvp, 2, "extreme_backward");

// zeros_like(x), ones_like(x) and full_like(x, value): x's shape, filled with one
// value, in the dtype given or else x's.
DType filled_dtype(DType x, const Attrs& attrs) { return attrs.has("dtype") ? attrs.get<DType>("dtype") : x; }
OpDef& def_filled(std::string_view name, std::optional<Scalar> value) {
  const auto filled = [name = std::string(name), value](std::span<const Tensor> in, const Attrs& attrs) {
    const Scalar v = value ? *value : scalar_attr(name, attrs, "value");
    return std::vector<Tensor>{full(in[0].shape(), v, filled_dtype(in[0].dtype(), attrs))};
  };
  std::vector<std::string> attributes{"dtype"};
  if (!value) attributes.insert(attributes.begin(), "value");
  return def_op(name)
      .inputs(1)
      .shape_rule([](std::span<const TensorType> in, const Attrs& attrs) {
        return std::vector<TensorType>{{filled_dtype(in[0].dtype, attrs), in[0].shape}};
      })
      .kernel([filled](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType>) {
        return filled(in, attrs);
      })
      .lower(filled)
      .no_derivative()
      .called_as({.names = {std::string(name)}, .attributes = attributes})
      .type_origin([](const Attrs& attrs) {
        return OpDef::TypeOrigin{0, attrs.has("dtype") ? OpDef::TypeOrigin::kOwn : 0};
      })
      .cpp(cpp_fn_with(fmt::format("tl::{}", name), attributes));
}
const OpDef& zeros_like_op = def_filled("zeros_like", Scalar(0));
const OpDef& ones_like_op = def_filled("ones_like", Scalar(1));
const OpDef& full_like_op = def_filled("full_like", std::nullopt);

Scalar value_attr(const Attrs& attrs) { return scalar_attr("weak_scalar", attrs, "value"); }
Tensor weak_scalar_of(const Tensor& like, const Attrs& attrs) {
  const Scalar s = value_attr(attrs);
  return scalar_tensor(s, weak_scalar_dtype(s, like.dtype()));
}
// weak_scalar_dtype in the public API.
std::string weak_dtype_spelling(const Scalar& s, const std::string& like) {
  switch (s.kind()) {
    case Scalar::Kind::floating:
      return fmt::format("tl::is_floating({0}.dtype()) ? {0}.dtype() : tl::DType::f32", like);
    case Scalar::Kind::integer:
      return fmt::format("{0}.dtype() == tl::DType::boolean ? tl::DType::i64 : {0}.dtype()", like);
    case Scalar::Kind::boolean:
      break;
  }
  return like + ".dtype()";
}

// A scalar written beside a tensor (`x * 2.0`): a rank-0 tensor whose dtype the
// tensor decides (weak typing, elementwise_rules.hpp).
const OpDef& weak_scalar_op =
    def_op("weak_scalar")
        .inputs(1)
        .shape_rule([](std::span<const TensorType> in, const Attrs& attrs) {
          return std::vector<TensorType>{{weak_scalar_dtype(value_attr(attrs), in[0].dtype), {}}};
        })
        .kernel([](std::span<const Tensor> in, const Attrs& attrs, std::span<const TensorType>) {
          return std::vector<Tensor>{weak_scalar_of(in[0], attrs)};
        })
        .lower([](std::span<const Tensor> in, const Attrs& attrs) {
          return std::vector<Tensor>{weak_scalar_of(in[0], attrs)};
        })
        .no_derivative()
        .type_origin(OpDef::TypeOrigin{OpDef::TypeOrigin::kRank0, 0})
        .cpp([](CppOp& op) {
          const Scalar s = value_attr(op.attrs());
          const std::string v = s.kind() == Scalar::Kind::floating  ? cpp_double(s.to_double())
                                : s.kind() == Scalar::Kind::integer ? std::to_string(s.to_int())
                                                                    : cpp_bool(s.to_int() != 0);
          return fmt::format("tl::scalar_tensor({}, {})", v, weak_dtype_spelling(s, op.operand(0)));
        });

}  // namespace

bool is_untyped(const Tensor& t) { return t.defined() && t.impl().untyped; }

Tensor like_call(LikeOp op, const Tensor& a, const Tensor& b) {
  switch (op) {
    case LikeOp::sum_to_shape_of:
      return call1(sum_to_shape_of_op, {a, b});
    case LikeOp::broadcast_to_shape_of:
      return call1(broadcast_to_shape_of_op, {a, b});
    case LikeOp::zeros_like:
      return call1(zeros_like_op, {a});
    case LikeOp::ones_like:
      return call1(ones_like_op, {a});
  }
  fail("like_call", "unknown op");
}

Tensor sum_backward_like(const Tensor& g, const Tensor& x, const Attrs& reduction) {
  if (!g.defined()) return g;
  if (is_untyped(g) || is_untyped(x)) return call1(sum_backward_op, {g, x}, reduction);
  return derivatives::sum_backward(g, x.shape(), axes_of(reduction), reduction.get<bool>("keepdims"));
}

Tensor extreme_backward_like(const Tensor& g, const Tensor& x, const Tensor& y, const Attrs& reduction) {
  if (is_untyped(g) || is_untyped(x) || is_untyped(y))
    return call1(extreme_backward_op, {g, x, y}, reduction);
  return derivatives::extreme_backward(g, x, y, axes_of(reduction), reduction.get<bool>("keepdims"));
}
Tensor extreme_jvp_like(const Tensor& t, const Tensor& x, const Tensor& y, const Attrs& reduction) {
  if (is_untyped(t) || is_untyped(x) || is_untyped(y)) return call1(extreme_jvp_op, {t, x, y}, reduction);
  return derivatives::extreme_jvp(t, x, y, axes_of(reduction), reduction.get<bool>("keepdims"));
}

bool unresolved(const Tensor& t, const Attrs& attrs) { return is_untyped(t) || attrs.any_written(); }

Tensor to_shape(ToShapeOp op, const Tensor& x, const Shape& shape) {
  return call1(op == ToShapeOp::broadcast_to ? broadcast_to_op : sum_to_size_op, {x}, {{"shape", shape}});
}

Tensor reshape_like(const Tensor& t, const Tensor& like) {
  if (!t.defined()) return t;
  if (is_untyped(t) || is_untyped(like)) return call1(reshape_like_op, {t, like});
  return reshape(t, like.shape());
}

Tensor astype_like(const Tensor& t, const Tensor& like) {
  if (!t.defined()) return t;
  if (is_untyped(t) || is_untyped(like)) return call1(convert_like_op, {t, like});
  return t.astype(like.dtype());
}

Tensor weak_scalar(const Scalar& s, const Tensor& like) {
  AttrValue v = s.to_double();
  if (s.kind() == Scalar::Kind::integer) v = s.to_int();
  if (s.kind() == Scalar::Kind::boolean) v = s.to_int() != 0;
  return call1(weak_scalar_op, {like}, {{"value", v}});
}

}  // namespace tlaloc::detail

namespace tlaloc {

Tensor zeros_like(const Tensor& x) {
  return detail::is_untyped(x) ? detail::like_call(detail::LikeOp::zeros_like, x) : zeros(x.shape(), x.dtype());
}
Tensor ones_like(const Tensor& x) {
  return detail::is_untyped(x) ? detail::like_call(detail::LikeOp::ones_like, x) : ones(x.shape(), x.dtype());
}

}  // namespace tlaloc
