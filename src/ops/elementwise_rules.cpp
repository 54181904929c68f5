#include "ops/elementwise_rules.hpp"

namespace tlaloc::detail {

DType result_dtype(std::string_view op, ResultType rule, DType in) {
  switch (rule) {
    case ResultType::same:
      if (in == DType::boolean) fail<DTypeError>(op, "does not accept bool tensors");
      return in;
    case ResultType::same_or_bool: return in;
    case ResultType::floating:
      return is_inexact(in) ? in : DType::f32;
    case ResultType::boolean: return DType::boolean;
  }
  return in;
}

ShapeRule unary_rule(std::string op, ResultType rule) {
  return [op = std::move(op), rule](std::span<const TensorType> in, const Attrs&) {
    return std::vector<TensorType>{{result_dtype(op, rule, in[0].dtype), in[0].shape}};
  };
}

ShapeRule real_only(std::string op, ShapeRule rule) {
  return [op = std::move(op), rule = std::move(rule)](std::span<const TensorType> in, const Attrs& a) {
    for (const TensorType& t : in)
      if (is_complex(t.dtype)) fail<DTypeError>(op, "does not accept complex operands ({})", t.dtype);
    return rule(in, a);
  };
}

ShapeRule broadcast_rule(std::string op, ResultType rule, std::size_t first_typed) {
  return [op = std::move(op), rule, first_typed](std::span<const TensorType> in, const Attrs&) {
    Shape shape = in[0].shape;
    for (std::size_t i = 1; i < in.size(); ++i) shape = broadcast_shapes(op, shape, in[i].shape);
    DType t = in[first_typed].dtype;
    for (std::size_t i = first_typed + 1; i < in.size(); ++i) t = promote_for(op, t, in[i].dtype);
    return std::vector<TensorType>{{result_dtype(op, rule, t), std::move(shape)}};
  };
}

DType promote_for(std::string_view op, DType a, DType b) {
  try {
    return promote_types(a, b);
  } catch (const DTypeError&) {
    fail<DTypeError>(
        op, "{} and {} have no common dtype (no integer type holds both); convert one with astype", a, b);
  }
}

DType weak_scalar_dtype(Scalar s, DType t) {
  switch (s.kind()) {
    case Scalar::Kind::floating:
      return is_inexact(t) ? t : DType::f32;
    case Scalar::Kind::integer: return t == DType::boolean ? DType::i64 : t;
    case Scalar::Kind::boolean: return t;
  }
  return t;
}

}  // namespace tlaloc::detail
