// tl::lax: the low-level op surface (as JAX's jax.lax). These are StableHLO-level
// ops that the user-level functions of ops.hpp are built from, with StableHLO's
// semantics and argument conventions: no broadcasting beyond what the op defines,
// no dtype promotion, axes as given (not negative). Derivative rules and printed
// gradients (tl::gradient_source) are written with them where no user-level
// function says the same thing. Like every op, each one computes on host tensors
// or records into the active trace, and checks its arguments (tlaloc::Error
// naming the op, the shapes and dtypes).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "tlaloc/tensor.hpp"

namespace tlaloc::lax {

// Operand axis i becomes result axis dims[i]; the operand's sizes are 1 or the
// result's size on that axis (stablehlo.broadcast_in_dim).
Tensor broadcast_in_dim(const Tensor& x, const Shape& shape, const std::vector<std::int64_t>& dims);

// a `direction` b elementwise with broadcasting, as stablehlo.compare.
// direction: "EQ", "NE", "GE", "GT", "LE", "LT". compare_type: "" (from the dtype:
// floats FLOAT, bool and unsigned UNSIGNED, else SIGNED), "FLOAT", "TOTALORDER"
// (floats ordered -NaN < -Inf < ... < -0 < +0 < ... < Inf < NaN), "SIGNED",
// "UNSIGNED".
Tensor compare(const Tensor& a, const Tensor& b, const std::string& direction, const std::string& compare_type = "");

// C's arithmetic (stablehlo.divide and stablehlo.remainder): integer division
// truncates toward zero, the remainder takes the dividend's sign.
Tensor div(const Tensor& a, const Tensor& b);
Tensor rem(const Tensor& a, const Tensor& b);
Tensor cbrt(const Tensor& x);
Tensor round_nearest_afz(const Tensor& x);  // halfway cases away from zero
// x rounded to a float type with the given exponent and mantissa bits, in x's type.
Tensor reduce_precision(const Tensor& x, std::int64_t exponent_bits, std::int64_t mantissa_bits);
// min(max(x, lo), hi) with NaN propagating; lo and hi may be scalars.
Tensor clamp(const Tensor& lo, const Tensor& x, const Tensor& hi);

// x padded with `value` (a scalar of x's dtype): low/high widths per axis (negative
// ones crop) and `interior` elements between neighbours (stablehlo.pad).
Tensor pad(const Tensor& x, const Tensor& value, const std::vector<std::int64_t>& low,
           const std::vector<std::int64_t>& high, const std::vector<std::int64_t>& interior);

// Windows at starts given as integer scalar tensors (computed values), clamped so
// the window fits (stablehlo.dynamic_slice / dynamic_update_slice).
Tensor dynamic_slice(const Tensor& x, const std::vector<Tensor>& starts, const Shape& sizes);
Tensor dynamic_update_slice(const Tensor& x, const Tensor& update, const std::vector<Tensor>& starts);

// The size of one axis as an i32 scalar (known only at run time for a tensor
// whose size a loop decides).
Tensor get_dimension_size(const Tensor& x, std::int64_t dimension);

// The identity, which a compiler may not look through (a scheduling fence).
std::vector<Tensor> optimization_barrier(const std::vector<Tensor>& xs);

// The factor of a = L L^T (lower) or a = U^T U (upper) of each matrix of a batch
// [..., N, N], read from that triangle of a; the other triangle of the result is
// zero and a matrix that is not positive definite gives NaN (stablehlo.cholesky).
Tensor cholesky(const Tensor& a, bool lower);
// x with op(a) x = b (left_side) or x op(a) = b, a triangular [..., N, N] read from
// its lower or upper triangle (its diagonal taken as ones when unit_diagonal).
// transpose_a: "NO_TRANSPOSE", "TRANSPOSE" or "ADJOINT" (stablehlo.triangular_solve).
Tensor triangular_solve(const Tensor& a, const Tensor& b, bool left_side, bool lower, bool unit_diagonal,
                        const std::string& transpose_a);

// Normalization along every axis but feature_index; scale, offset, mean and
// variance have one element per feature. Training normalizes with the batch's
// mean and biased variance and returns {result, mean, variance}
// (stablehlo.batch_norm_inference / batch_norm_training).
Tensor batch_norm_inference(const Tensor& x, const Tensor& scale, const Tensor& offset, const Tensor& mean,
                            const Tensor& variance, double epsilon, std::int64_t feature_index);
std::vector<Tensor> batch_norm_training(const Tensor& x, const Tensor& scale, const Tensor& offset, double epsilon,
                                        std::int64_t feature_index);

// The max or sum (reduction "max" or "sum") of each window of x [N, C, H, W], the
// padding filling with the reduction's identity (a reduce_window over the last two
// axes). Window sizes, strides and paddings are given for all four axes, those of
// N and C being 1, 1 and 0.
Tensor pool(const Tensor& x, const std::string& reduction, const std::vector<std::int64_t>& window_dimensions,
            const std::vector<std::int64_t>& window_strides, const std::vector<std::int64_t>& padding_low,
            const std::vector<std::int64_t>& padding_high);
// The cotangent of x for y = pool(x, "max", ...) and y's cotangent g: each element
// of g goes to the first maximum of its window (the pool's windows, given alike).
Tensor max_pool_grad(const Tensor& x, const Tensor& y, const Tensor& g,
                     const std::vector<std::int64_t>& window_dimensions, const std::vector<std::int64_t>& window_strides,
                     const std::vector<std::int64_t>& padding_low, const std::vector<std::int64_t>& padding_high);

// The 2-D convolution of x [N, C, H, W] with w [O, C / feature_group_count, kH,
// kW] (NCHW, OIHW; cross-correlation, as tl::conv2d) with two values per spatial
// axis for each of: window strides, low and high padding (negative crops), lhs
// dilation (holes between input elements, as a transposed convolution has) and
// rhs dilation (holes between kernel taps).
Tensor conv2d(const Tensor& x, const Tensor& w, const std::vector<std::int64_t>& window_strides,
              const std::vector<std::int64_t>& padding_low, const std::vector<std::int64_t>& padding_high,
              const std::vector<std::int64_t>& lhs_dilation, const std::vector<std::int64_t>& rhs_dilation,
              std::int64_t feature_group_count);

// stablehlo.gather's dimension numbers: which result axes are the slice's
// (offset_dims), which operand axes the slices drop (collapsed_slice_dims), the
// batching axes the operand and the indices share, which operand axis each index
// component starts (start_index_map) and the indices' axis holding the components
// (index_vector_dim; the indices' rank for scalar indices).
struct GatherDimensionNumbers {
  std::vector<std::int64_t> offset_dims = {};
  std::vector<std::int64_t> collapsed_slice_dims = {};
  std::vector<std::int64_t> operand_batching_dims = {};
  std::vector<std::int64_t> start_indices_batching_dims = {};
  std::vector<std::int64_t> start_index_map = {};
  std::int64_t index_vector_dim = 0;
};
// Slices of x of size slice_sizes starting at the indices, each start clamped so
// its slice fits (stablehlo.gather). indices_are_sorted is a promise a compiler
// may use; the host ignores it.
Tensor gather(const Tensor& x, const Tensor& start_indices, const GatherDimensionNumbers& dims,
              const std::vector<std::int64_t>& slice_sizes, bool indices_are_sorted = false);

// ---- ops with a region ---------------------------------------------------------------
// A region: a C++ callable from scalars (rank-0 tensors) to scalars, traced once
// into the op (on host tensors the op runs a one-op program of it; inside a
// trace the op is recorded with the traced region). It may use tensors it
// captures as constants.
using Region = std::function<std::vector<Tensor>(std::span<const Tensor>)>;

// inputs reduced over `dimensions` by `body`, starting from `inits` (one scalar
// per input): body(a) takes the accumulators a[0..n) (the inits' dtypes), then one
// element of each input a[n..2n), and returns the n new accumulators
// (stablehlo.reduce). The elements are combined in an unspecified order.
std::vector<Tensor> reduce(const std::vector<Tensor>& inputs, const std::vector<Tensor>& inits,
                           const std::vector<std::int64_t>& dimensions, const Region& body);

// inputs (of one shape) sorted together along `dimension`, ordered by
// `comparator`: it takes two elements of each input (a[2i] and a[2i+1] of input
// i) and returns a boolean scalar, true when the first goes before the second
// (stablehlo.sort). The sort is stable.
std::vector<Tensor> sort(const std::vector<Tensor>& inputs, std::int64_t dimension, const Region& comparator);

// `body` applied at each position to one element of each input (of one shape);
// it returns one scalar, whose dtype is the result's (stablehlo.map over all axes).
Tensor map(const std::vector<Tensor>& inputs, const Region& body);

}  // namespace tlaloc::lax
