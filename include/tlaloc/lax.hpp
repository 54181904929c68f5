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

#include "tlaloc/export.hpp"
#include "tlaloc/ops.hpp"
#include "tlaloc/tensor.hpp"

TLALOC_PUBLIC_BEGIN
namespace tlaloc::lax {

// tl::dot_general whose result has element type preferred_element_type, which may
// differ from the operands' (i8 x i8 -> i32, bf16 x bf16 -> f32), as
// stablehlo.dot_general's result type allows.
Tensor dot_general(const Tensor& a, const Tensor& b, const DotDims& dims, DType preferred_element_type);

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
// Complex values (c64 holds f32 parts, c128 f64 ones): complex(re, im) of two f32 or
// two f64 tensors of one shape; real and imag give the parts (stablehlo.complex, real, imag).
Tensor complex(const Tensor& re, const Tensor& im);
Tensor real(const Tensor& z);
Tensor imag(const Tensor& z);
// The discrete Fourier transform over the last fft_length.size() (1 to 3) axes
// (stablehlo.fft): "FFT" and "IFFT" (scaled by 1/N) of complex x, "RFFT" of real x
// (the last axis keeps N/2 + 1 values), "IRFFT" back to real values of the lengths given.
Tensor fft(const Tensor& x, const std::string& fft_type, const Shape& fft_length);
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

// stablehlo.convolution's dimension numbers: where the batch, feature and spatial
// axes are in the input (lhs), the kernel (rhs) and the result. The defaults are
// NCHW / OIHW / NCHW for two spatial axes.
struct ConvDimensionNumbers {
  std::int64_t input_batch_dimension = 0;
  std::int64_t input_feature_dimension = 1;
  std::vector<std::int64_t> input_spatial_dimensions = {2, 3};
  std::int64_t kernel_input_feature_dimension = 1;
  std::int64_t kernel_output_feature_dimension = 0;
  std::vector<std::int64_t> kernel_spatial_dimensions = {2, 3};
  std::int64_t output_batch_dimension = 0;
  std::int64_t output_feature_dimension = 1;
  std::vector<std::int64_t> output_spatial_dimensions = {2, 3};
};
// StableHLO's general convolution (cross-correlation) of lhs with rhs, any number
// of spatial axes and any layout, one value per spatial axis for each of: window
// strides, low and high padding (negative crops), lhs and rhs dilation, and
// window_reversal (nonzero flips the kernel on that axis). The result has dtype
// result_element_type (stablehlo.convolution).
Tensor convolution(const Tensor& lhs, const Tensor& rhs, const ConvDimensionNumbers& dims,
                   const std::vector<std::int64_t>& window_strides,
                   const std::vector<std::int64_t>& padding_low,
                   const std::vector<std::int64_t>& padding_high,
                   const std::vector<std::int64_t>& lhs_dilation,
                   const std::vector<std::int64_t>& rhs_dilation,
                   const std::vector<std::int64_t>& window_reversal, std::int64_t feature_group_count,
                   std::int64_t batch_group_count, DType result_element_type);

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

// ---- bits --------------------------------------------------------------------------
// Integers as their two's-complement bit patterns, bool as one bit (logical);
// two operands broadcast and promote as tl's binary ops do (stablehlo.and, or,
// xor, not; StableHLO itself takes one shape and dtype). Shifts by an
// amount outside [0, bit width) give 0 (the arithmetic right shift the sign fill);
// counts are of an integer's bits (stablehlo.shift_left, shift_right_logical,
// shift_right_arithmetic, count_leading_zeros, popcnt).
Tensor bitwise_and(const Tensor& a, const Tensor& b);
Tensor bitwise_or(const Tensor& a, const Tensor& b);
Tensor bitwise_xor(const Tensor& a, const Tensor& b);
Tensor bitwise_not(const Tensor& x);
Tensor shift_left(const Tensor& x, const Tensor& n);
Tensor shift_right_logical(const Tensor& x, const Tensor& n);
Tensor shift_right_arithmetic(const Tensor& x, const Tensor& n);
Tensor count_leading_zeros(const Tensor& x);
Tensor popcnt(const Tensor& x);
// x's bits read as `dtype`; to a narrower type a last axis splits each value (stablehlo.bitcast_convert).
Tensor bitcast_convert(const Tensor& x, DType dtype);

// ---- random numbers ------------------------------------------------------------------
// Values of result_shape (the 1-D integer `shape` holds the same sizes), drawn
// from a fixed key, so equal calls give equal values (stablehlo.rng):
// distribution "UNIFORM" on [a, b), or "NORMAL" with mean a and deviation b.
Tensor rng(const Tensor& a, const Tensor& b, const Tensor& shape, const std::string& distribution,
           const Shape& result_shape);
// {the next state, random bits as a `dtype` tensor of `shape`} from a ui64[2] state
// (stablehlo.rng_bit_generator; algorithm "DEFAULT" or "THREE_FRY").
std::vector<Tensor> rng_bit_generator(const Tensor& state, const std::string& algorithm, const Shape& shape,
                                      DType dtype);

// {grad_operand, grad_scale, grad_offset} of batch_norm_training's result for its
// cotangent grad_output, at the given mean and variance (stablehlo.batch_norm_grad).
std::vector<Tensor> batch_norm_grad(const Tensor& x, const Tensor& scale, const Tensor& mean,
                                    const Tensor& variance, const Tensor& grad_output, double epsilon,
                                    std::int64_t feature_index);

// ---- shapes known at run time ----------------------------------------------------------
// Each is its static op with sizes (or paddings) read from a 1-D integer operand;
// result_shape is the result's declared dims, -1 where a size is known only when
// the op runs (stablehlo.dynamic_broadcast_in_dim, dynamic_reshape, dynamic_iota,
// dynamic_pad, dynamic_gather, dynamic_conv).
Tensor dynamic_broadcast_in_dim(const Tensor& x, const Tensor& output_dimensions,
                                const std::vector<std::int64_t>& broadcast_dimensions,
                                const Shape& result_shape,
                                const std::vector<std::int64_t>& known_expanding_dimensions = {},
                                const std::vector<std::int64_t>& known_nonexpanding_dimensions = {});
Tensor dynamic_reshape(const Tensor& x, const Tensor& output_shape, const Shape& result_shape);
Tensor dynamic_iota(const Tensor& output_shape, std::int64_t iota_dimension, DType dtype,
                    const Shape& result_shape);
Tensor dynamic_pad(const Tensor& x, const Tensor& value, const Tensor& edge_padding_low,
                   const Tensor& edge_padding_high, const Tensor& interior_padding,
                   const Shape& result_shape);
Tensor dynamic_gather(const Tensor& x, const Tensor& start_indices, const Tensor& slice_sizes,
                      const GatherDimensionNumbers& dims, bool indices_are_sorted, const Shape& result_shape);
// padding: an integer [spatial dims, 2] tensor of [low, high] rows.
Tensor dynamic_conv(const Tensor& lhs, const Tensor& rhs, const Tensor& padding,
                    const ConvDimensionNumbers& dims, const std::vector<std::int64_t>& window_strides,
                    const std::vector<std::int64_t>& lhs_dilation,
                    const std::vector<std::int64_t>& rhs_dilation,
                    const std::vector<std::int64_t>& window_reversal, std::int64_t feature_group_count,
                    std::int64_t batch_group_count, DType result_element_type, const Shape& result_shape);

// ---- checks ------------------------------------------------------------------------
// The assertions of StableHLO's conformance tests (check.expect_eq, ...; also met
// as custom_call @check.expect_eq): each throws tlaloc::Error naming the check and
// the first elements that differ. expect_eq compares exactly (NaN equals NaN);
// almost_eq floats within `tolerance`; close floats within [min, max] units in
// the last place. The _const forms compare with a constant `value`.
void check_expect_eq(const Tensor& actual, const Tensor& expected);
void check_expect_eq_const(const Tensor& actual, const Tensor& value);
void check_expect_almost_eq(const Tensor& actual, const Tensor& expected, double tolerance = 1e-4);
void check_expect_almost_eq_const(const Tensor& actual, const Tensor& value, double tolerance = 1e-4);
void check_expect_close(const Tensor& actual, const Tensor& expected, std::int64_t min_ulp_difference = 0,
                        std::int64_t max_ulp_difference = 3);

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

// inputs reduced window by window, as stablehlo.reduce_window: each result element
// combines, by `body` (as reduce's), the init values and the cells of one window of
// the inputs dilated by base_dilations (holes between elements) and padded
// (padding_low / padding_high per axis; holes and padding hold the init values).
// Windows of window_dimensions, window_dilations apart inside, window_strides apart.
std::vector<Tensor> reduce_window(const std::vector<Tensor>& inputs, const std::vector<Tensor>& inits,
                                  const std::vector<std::int64_t>& window_dimensions,
                                  const std::vector<std::int64_t>& window_strides,
                                  const std::vector<std::int64_t>& base_dilations,
                                  const std::vector<std::int64_t>& window_dilations,
                                  const std::vector<std::int64_t>& padding_low,
                                  const std::vector<std::int64_t>& padding_high, const Region& body);

// stablehlo.scatter's dimension numbers (gather's, seen from the updates): the
// updates' axes that index within a window (update_window_dims), the operand axes
// the windows leave out (inserted_window_dims), the batching axes the operand and
// the indices share, which operand axis each index component addresses
// (scatter_dims_to_operand_dims) and the indices' axis holding the components.
struct ScatterDimensionNumbers {
  std::vector<std::int64_t> update_window_dims = {};
  std::vector<std::int64_t> inserted_window_dims = {};
  std::vector<std::int64_t> input_batching_dims = {};
  std::vector<std::int64_t> scatter_indices_batching_dims = {};
  std::vector<std::int64_t> scatter_dims_to_operand_dims = {};
  std::int64_t index_vector_dim = 0;
};
// inputs with each element of updates combined into the element the indices name:
// update_computation(a) takes the current elements a[0..n) and the updates'
// a[n..2n) and returns the n new ones. Updates apply in the updates' row-major
// order; one whose target falls outside the operand is skipped
// (stablehlo.scatter; indices_are_sorted and unique_indices are promises a
// compiler may use, the host ignores them).
std::vector<Tensor> scatter(const std::vector<Tensor>& inputs, const Tensor& scatter_indices,
                            const std::vector<Tensor>& updates, const ScatterDimensionNumbers& dims,
                            const Region& update_computation, bool indices_are_sorted = false,
                            bool unique_indices = false);

// The scatter half of a max pool's gradient, as stablehlo.select_and_scatter: in
// each window of operand (window_dimensions, window_strides, padding_low /
// padding_high) `select` picks one cell (it takes the running pick and a cell,
// operand scalars, and returns true to keep the pick; the first cell starts it),
// and that source element is combined by `scatter` (two scalars to one) into a
// result of operand's shape filled with init_value.
Tensor select_and_scatter(const Tensor& operand, const Tensor& source, const Tensor& init_value,
                          const std::vector<std::int64_t>& window_dimensions,
                          const std::vector<std::int64_t>& window_strides,
                          const std::vector<std::int64_t>& padding_low,
                          const std::vector<std::int64_t>& padding_high, const Region& select,
                          const Region& scatter);

}  // namespace tlaloc::lax
TLALOC_PUBLIC_END
