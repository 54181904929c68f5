// Derivative helpers: the functions the ops' derivative rules call and that
// gradients written by tlaloc-grad call in turn (each `*_backward` is an op's
// transpose, each `*_jvp` a tangent). They are public so that generated code and
// custom rules can call them, and kept apart from the ops a user calls
// (tlaloc/ops.hpp). Each computes what the AD engine computes for its op, in the same
// order, so a generated gradient has the traced gradient's bits.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "tlaloc/export.hpp"
#include "tlaloc/ops.hpp"
#include "tlaloc/tensor.hpp"

TLALOC_PUBLIC_BEGIN
namespace tlaloc::derivatives {

// The derivatives of sum, cumsum, prod and cumprod (PyTorch's functions of these
// names). g is the
// result's cotangent, t x's tangent, y the result. sum_backward spreads g back over x's
// `shape` (max's and min's share too, times each tie's part); cumsum_backward sums
// each cotangent into every earlier position along the axis (a cumsum run from the
// end); prod's and cumprod's are exact where elements are zero (they never divide by x),
// and so are their derivatives in turn (a Hessian through a zero).
Tensor sum_backward(const Tensor& g, const Shape& shape, Axes axes = {}, bool keepdims = false);
Tensor cumsum_backward(const Tensor& g, std::int64_t axis);
Tensor prod_backward(const Tensor& g, const Tensor& x, Axes axes = {}, bool keepdims = false);
Tensor prod_jvp(const Tensor& t, const Tensor& x, Axes axes = {}, bool keepdims = false);
Tensor cumprod_backward(const Tensor& g, const Tensor& x, const Tensor& y, std::int64_t axis);
Tensor cumprod_jvp(const Tensor& t, const Tensor& x, const Tensor& y, std::int64_t axis);
// The derivatives of prod_backward and cumprod_backward along tangents of their tensor
// arguments (an undefined tangent is zero), as forward mode over the ops they record
// gives them: what tl::hessian of a function through prod or cumprod needs, in code
// that tlaloc-grad generates. Undefined where every tangent is.
Tensor prod_backward_jvp(const Tensor& g, const Tensor& tg, const Tensor& x, const Tensor& tx, Axes axes = {},
                         bool keepdims = false);
Tensor cumprod_backward_jvp(const Tensor& g, const Tensor& tg, const Tensor& x, const Tensor& tx,
                            const Tensor& y, const Tensor& ty, std::int64_t axis);
// The derivatives of max and min (y = max(x, axes, keepdims), or min): g goes to the
// elements of x equal to y, shared equally among ties (JAX's rule), and t is summed
// over them alike.
Tensor extreme_backward(const Tensor& g, const Tensor& x, const Tensor& y, Axes axes = {},
                        bool keepdims = false);
Tensor extreme_jvp(const Tensor& t, const Tensor& x, const Tensor& y, Axes axes = {}, bool keepdims = false);

// Operand `operand`'s (0: a, 1: b) share of g, the cotangent of matmul(a, b), for
// any ranks matmul takes (PyTorch's matmul backward): the transposes of matmul's own
// steps, so the same values as the AD engine's gradient of a traced matmul.
Tensor matmul_backward(const Tensor& g, const Tensor& a, const Tensor& b, int operand);

// Operand `operand`'s (0: a, 1: b) share of g, the cotangent of dot_general(a, b,
// dims): g contracted with the other operand over its free axes, in the operand's
// layout and dtype. The AD engine's rule for dot_general.
Tensor dot_general_backward(const Tensor& g, const Tensor& a, const Tensor& b, const DotDims& dims,
                            int operand);

// The transpose of transpose(x, perm) and permute(x, perm) (negative axes count from
// the end): g, of the result's shape, under the inverse permutation. It is what the
// engine's rule for transpose computes, and what tlaloc-grad writes.
Tensor transpose_backward(const Tensor& g, const std::vector<std::int64_t>& perm);

// Where split's parts of a tensor of `shape` start along the axis, and where the last
// one stops (one more offset than parts), after split's own checks: split takes its
// parts between them, and so does the code tlaloc-grad writes for a split.
std::vector<std::int64_t> split_offsets(const Shape& shape, std::int64_t sections, std::int64_t axis = 0);
std::vector<std::int64_t> split_offsets(const Shape& shape, const std::vector<std::int64_t>& sizes,
                                        std::int64_t axis);

// take_along_axis's transpose in x, x of `shape`: g added where x's elements were read
// (summed over what the indices broadcast x to).
Tensor take_along_axis_backward(const Tensor& g, const Shape& shape, const Tensor& indices,
                                std::int64_t axis);
// The transpose of either slice of a tensor of `shape` (PyTorch's slice_backward): g,
// the slice's shape, put where the slice took its elements, zeros elsewhere. It is
// what the engine's rule for slice computes, and what tlaloc-grad writes.
Tensor slice_backward(const Tensor& g, const Shape& shape, std::int64_t axis, std::int64_t start,
                      std::int64_t stop, std::int64_t step = 1);
Tensor slice_backward(const Tensor& g, const Shape& shape, const std::vector<std::int64_t>& starts,
                      const std::vector<std::int64_t>& stops, const std::vector<std::int64_t>& steps = {});

// The transpose of pad in either mode for x of `shape` (the value gets no share): in
// constant mode g without the border, in edge mode with each border's elements summed
// into the element it repeats. so_far, when defined, is the cotangent x has already
// (from its uses after the pad), and the result is x's cotangent after the pad's
// shares, summed in the engine's order: an edge pad gives x its shares one at a
// time, after so_far. What the engine computes for a pad, and what tlaloc-grad writes.
Tensor pad_backward(const Tensor& g, const Shape& shape,
                    const std::vector<std::pair<std::int64_t, std::int64_t>>& widths,
                    PadMode mode = PadMode::constant, const Tensor& so_far = Tensor());

// The transposes of tile and repeat of a tensor of `shape`: each element of x gets the
// sum of g over its copies, in the order of the AD engine's rules.
Tensor tile_backward(const Tensor& g, const Shape& shape, const std::vector<std::int64_t>& reps);
Tensor repeat_backward(const Tensor& g, const Shape& shape, std::int64_t repeats, std::int64_t axis);

// The derivatives of conv2d and the pools, computed with the AD engine's own rules
// (PyTorch's convolution_backward, max_pool2d_backward, avg_pool2d_backward): g is the
// result's cotangent, t x's tangent, y max_pool2d's result; conv2d_backward and
// conv_transpose2d_backward give x's share for operand 0 and w's for operand 1, each
// in its operand's dtype. avg_pool2d_jvp is the sum pool of t times the reciprocal of
// the window's size (avg_pool2d divides; the division's derivative multiplies).
Tensor conv2d_backward(const Tensor& g, const Tensor& x, const Tensor& w, const Conv2dOptions& opt,
                       int operand);
Tensor conv_transpose2d_backward(const Tensor& g, const Tensor& x, const Tensor& w,
                                 const ConvTranspose2dOptions& opt, int operand);
Tensor max_pool2d_backward(const Tensor& g, const Tensor& x, const Tensor& y, const Pool2dOptions& opt);
Tensor max_pool2d_jvp(const Tensor& t, const Tensor& x, const Tensor& y, const Pool2dOptions& opt);
Tensor avg_pool2d_backward(const Tensor& g, const Shape& shape, const Pool2dOptions& opt);
Tensor avg_pool2d_jvp(const Tensor& t, const Pool2dOptions& opt);

}  // namespace tlaloc::derivatives
TLALOC_PUBLIC_END
