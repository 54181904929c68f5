// Shape/dtype rules shared by the elementwise op families.
#pragma once

#include "ir/op.hpp"

namespace tlaloc::detail {

enum class ResultType {
  same,          // the (promoted) input type; bool refused
  same_or_bool,  // the (promoted) input type; bool allowed
  floating,      // the input type if floating or complex, else f32
  boolean,       // bool (predicates and comparisons)
};

DType result_dtype(std::string_view op, ResultType rule, DType in);
ShapeRule unary_rule(std::string op, ResultType rule);
// `rule`, refusing complex operands by name (ops the spec defines on real values only).
ShapeRule real_only(std::string op, ShapeRule rule);
// Broadcasts all inputs and promotes their dtypes (the first `typed` inputs only:
// select's predicate takes no part in promotion).
ShapeRule broadcast_rule(std::string op, ResultType rule, std::size_t first_typed = 0);

// promote_types(a, b), but a pair with no common type (u64 with a signed integer)
// is refused naming op.
DType promote_for(std::string_view op, DType a, DType b);

// The dtype a C++ number takes next to a tensor of dtype t (docs/DTYPES.md):
// it adopts the tensor's dtype unless its kind is higher.
DType weak_scalar_dtype(Scalar s, DType t);

}  // namespace tlaloc::detail
