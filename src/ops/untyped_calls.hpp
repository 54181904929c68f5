// Public functions recorded as one op each on values whose types are known at run
// time only (traced at build time, docs/ENGINE_AT_BUILD_TIME.md), their options
// field by field. Where types are known the functions record their own steps; these
// ops run those steps once the types are known. Each is defined beside its rules.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/op.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::detail {

// The public function's steps on the op's operands and attributes, types known.
using Steps = std::function<Tensor(std::span<const Tensor> in, const Attrs& attrs)>;
// An op whose kernel, and whose lowering under a trace, are `steps`: what each op
// below does once the types are known.
OpDef& def_steps(std::string_view name, int inputs, Steps steps);
// The op `def` on `first` and the operands of r's op after its first (the op applied
// to a tangent or a cotangent of its first operand, the others routing it).
Tensor with_first(const OpDef& def, const Tensor& first, const Rule& r);
// An op (g, like, ...) of like's shape and g's dtype, linear in g, reading like for
// its shape only and the others for where g goes (a transpose that puts g back into
// like's shape): its tangent is the op of g's tangent.
OpDef& shaped_like_second(OpDef& def);

// A pair field of an options struct (stride, padding, ...) as an attribute, the
// attribute read back (`op` names the function in the error), and the pair as C++.
using Pair = std::array<std::int64_t, 2>;
std::vector<std::int64_t> pair_attr(const Pair& p);
Pair attr_pair(std::string_view op, const Attrs& attrs, std::string_view name);
std::string cpp_pair(const Pair& p);  // {1, 2}

Tensor record_conv_transpose2d(const Tensor& x, const Tensor& w,
                               const ConvTranspose2dOptions& opt);    // conv_transpose.cpp
Tensor record_max_pool2d(const Tensor& x, const Pool2dOptions& opt);  // pool_call.cpp
Tensor record_avg_pool2d(const Tensor& x, const Pool2dOptions& opt);  // pool_call.cpp

// tl::slice's arguments after x as the slice op's attributes, either overload's:
// "axis_or_starts", "start_or_stops", "stop_or_steps" and (one axis) "step".
Tensor record_slice(const Tensor& x, const Attrs& arguments);  // slice_call.cpp
// The shape either tl::slice takes from a tensor of `shape` (shape_slice.cpp).
Shape sliced_shape(const Shape& shape, const std::vector<std::int64_t>& starts,
                   const std::vector<std::int64_t>& stops, const std::vector<std::int64_t>& steps);
Shape sliced_shape(const Shape& shape, std::int64_t axis, std::int64_t start, std::int64_t stop,
                   std::int64_t step);

Tensor record_dynamic_slice(const Tensor& x, const std::vector<std::int64_t>& starts,
                            const Shape& sizes);  // dynamic_slice_call.cpp
// The update converted to x's dtype first, as the function converts it.
Tensor record_dynamic_update_slice(const Tensor& x, const Tensor& update,
                                   const std::vector<std::int64_t>& starts);  // dynamic_slice_call.cpp

// tl::take_along_axis's shapes: x and the indices broadcast against each other off the
// normalized axis (indexing.cpp).
struct AlongShapes {
  Shape x, indices;
  std::int64_t axis;
};
AlongShapes along_shapes(const Shape& x, const Shape& indices, std::int64_t axis);
Tensor record_take_along_axis(const Tensor& x, const Tensor& indices,
                              std::int64_t axis);  // take_along_call.cpp
// tl::derivatives::take_along_axis_backward(g, x.shape(), indices, axis), x's shape read
// at run time.
Tensor record_take_along_axis_backward(const Tensor& g, const Tensor& x, const Tensor& indices,
                                       std::int64_t axis);  // take_along_call.cpp

// tl::pad's arguments as the pad op's attributes, and the op recorded (pad_call.cpp);
// x's shape padded by the widths (shape_slice.cpp).
Attrs pad_attrs(const std::vector<std::pair<std::int64_t, std::int64_t>>& widths, PadMode mode, Scalar value);
Tensor record_pad(const Tensor& x, const std::vector<std::pair<std::int64_t, std::int64_t>>& widths,
                  PadMode mode, Scalar value);
Shape padded_shape(std::string_view fn, const Shape& shape,
                   const std::vector<std::pair<std::int64_t, std::int64_t>>& widths);

Tensor record_concat(const std::vector<Tensor>& xs, std::int64_t axis);  // concat_call.cpp
Tensor record_stack(const std::vector<Tensor>& xs, std::int64_t axis);   // concat_call.cpp

}  // namespace tlaloc::detail
