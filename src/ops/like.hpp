// Values traced at build time, whose rank, shape and dtype are known only at run
// time, and the ops that let the public functions reading those work on them
// (like.cpp, docs/ENGINE_AT_BUILD_TIME.md).
#pragma once

#include "ir/op.hpp"
#include "tlaloc/tensor.hpp"

namespace tlaloc::detail {

// A value traced at build time.
bool is_untyped(const Tensor& t);

// The ops standing for public functions that read an operand's shape or dtype:
// recorded where a value is untyped.
enum class LikeOp { sum_to_shape_of, broadcast_to_shape_of, zeros_like, ones_like };
Tensor like_call(LikeOp op, const Tensor& a, const Tensor& b = {});
// The rank-0 tensor holding s where it meets `like` in an elementwise op.
Tensor weak_scalar(const Scalar& s, const Tensor& like);
// The reductions' rules, `reduction` the reduction's attributes (reduce_axes.hpp):
// sum_backward(g, x.shape(), axes, keepdims), a reduction's cotangent spread back
// over x's shape; max's and min's extreme_backward(g, x, y, axes, keepdims) and
// extreme_jvp(t, x, y, axes, keepdims), y the extreme of x.
Tensor sum_backward_like(const Tensor& g, const Tensor& x, const Attrs& reduction);
Tensor extreme_backward_like(const Tensor& g, const Tensor& x, const Tensor& y, const Attrs& reduction);
Tensor extreme_jvp_like(const Tensor& t, const Tensor& x, const Tensor& y, const Attrs& reduction);
// prod's and cumprod's rules (prod_calls.cpp): prod_backward(g, x, axes, keepdims),
// prod_jvp(t, x, axes, keepdims), cumprod_backward(g, x, y, axis) and cumprod_jvp(t,
// x, y, axis), recorded as one op each where a type or an attribute is known at run
// time only, else the library's functions.
Tensor prod_backward_like(const Tensor& g, const Tensor& x, const Attrs& reduction);
Tensor prod_jvp_like(const Tensor& t, const Tensor& x, const Attrs& reduction);
Tensor cumprod_backward_like(const Tensor& g, const Tensor& x, const Tensor& y, const Attrs& scan);
Tensor cumprod_jvp_like(const Tensor& t, const Tensor& x, const Tensor& y, const Attrs& scan);
// broadcast_to(x, shape) and sum_to_size(x, shape) where x is untyped.
enum class ToShapeOp { broadcast_to, sum_to_size };
Tensor to_shape(ToShapeOp op, const Tensor& x, const Shape& shape);
// Whether a rule must record its op's transpose as an op itself, attributes passed on
// as they are: t's type, or an attribute, is known at run time only (a build-time
// trace). Otherwise it calls the public function, which reads the shapes.
bool unresolved(const Tensor& t, const Attrs& attrs);
// t reshaped to like's shape: `tl::reshape(t, like.shape())`, the rule of every
// function that records a reshape (reshape, squeeze, expand_dims).
Tensor reshape_like(const Tensor& t, const Tensor& like);
// t converted to like's dtype: `t.astype(like.dtype())`, which rules write this way
// so that they run where like's dtype is known only at run time.
Tensor astype_like(const Tensor& t, const Tensor& like);

}  // namespace tlaloc::detail
