// The public op surface. Each function is the op's one entry point: it computes
// on host tensors, or records into the active trace when an input is symbolic.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "tlaloc/tensor.hpp"

namespace tlaloc {

// A set of axes. Default-constructed (also `{}`) it means "all axes".
class Axes {
 public:
  Axes() = default;
  Axes(std::int64_t axis) : all_(false), axes_{axis} {}  // NOLINT(google-explicit-constructor)
  Axes(int axis) : all_(false), axes_{axis} {}            // NOLINT(google-explicit-constructor)
  Axes(std::initializer_list<std::int64_t> axes) : all_(axes.size() == 0), axes_(axes) {}
  Axes(std::vector<std::int64_t> axes) : all_(false), axes_(std::move(axes)) {}  // NOLINT
  bool all() const { return all_; }
  const std::vector<std::int64_t>& list() const { return axes_; }

 private:
  bool all_ = true;
  std::vector<std::int64_t> axes_;
};

// ---- elementwise unary ------------------------------------------------------
// Float-valued functions of integer or bool inputs compute in f32.
Tensor neg(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor sign(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor expm1(const Tensor& x);
Tensor log(const Tensor& x);
Tensor log1p(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor rsqrt(const Tensor& x);
Tensor square(const Tensor& x);
Tensor reciprocal(const Tensor& x);
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
Tensor tan(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sinh(const Tensor& x);
Tensor cosh(const Tensor& x);
Tensor asin(const Tensor& x);
Tensor acos(const Tensor& x);
Tensor atan(const Tensor& x);
Tensor asinh(const Tensor& x);
Tensor acosh(const Tensor& x);
Tensor atanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor gelu(const Tensor& x, bool tanh_approximation = false);
Tensor silu(const Tensor& x);
Tensor softplus(const Tensor& x);
Tensor erf(const Tensor& x);
Tensor floor(const Tensor& x);
Tensor ceil(const Tensor& x);
Tensor round(const Tensor& x);  // half to even, as NumPy and JAX
Tensor logical_not(const Tensor& x);
Tensor isfinite(const Tensor& x);
Tensor isnan(const Tensor& x);

// ---- elementwise binary (NumPy broadcasting) --------------------------------
#define TLALOC_BINARY_DECL(name)                    \
  Tensor name(const Tensor& a, const Tensor& b);    \
  Tensor name(const Tensor& a, Scalar b);           \
  Tensor name(Scalar a, const Tensor& b);
TLALOC_BINARY_DECL(add)
TLALOC_BINARY_DECL(sub)
TLALOC_BINARY_DECL(mul)
TLALOC_BINARY_DECL(div)        // true division: integers divide in f32
TLALOC_BINARY_DECL(pow)
TLALOC_BINARY_DECL(maximum)    // NaN-propagating
TLALOC_BINARY_DECL(minimum)
TLALOC_BINARY_DECL(atan2)
TLALOC_BINARY_DECL(remainder)  // result has the sign of the divisor (Python's %)
TLALOC_BINARY_DECL(eq)
TLALOC_BINARY_DECL(ne)
TLALOC_BINARY_DECL(lt)
TLALOC_BINARY_DECL(le)
TLALOC_BINARY_DECL(gt)
TLALOC_BINARY_DECL(ge)
TLALOC_BINARY_DECL(logical_and)
TLALOC_BINARY_DECL(logical_or)
TLALOC_BINARY_DECL(logical_xor)
#undef TLALOC_BINARY_DECL

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
Tensor where(const Tensor& cond, const Tensor& a, Scalar b);
Tensor where(const Tensor& cond, Scalar a, const Tensor& b);
Tensor select(const Tensor& pred, const Tensor& on_true, const Tensor& on_false);  // = where
Tensor clamp(const Tensor& x, const Tensor& lo, const Tensor& hi);
Tensor clamp(const Tensor& x, Scalar lo, Scalar hi);

#define TLALOC_OPERATOR_DECL(op)                            \
  Tensor operator op(const Tensor& a, const Tensor& b);     \
  Tensor operator op(const Tensor& a, Scalar b);            \
  Tensor operator op(Scalar a, const Tensor& b);
TLALOC_OPERATOR_DECL(+)
TLALOC_OPERATOR_DECL(-)
TLALOC_OPERATOR_DECL(*)
TLALOC_OPERATOR_DECL(/)
TLALOC_OPERATOR_DECL(%)
TLALOC_OPERATOR_DECL(<)
TLALOC_OPERATOR_DECL(<=)
TLALOC_OPERATOR_DECL(>)
TLALOC_OPERATOR_DECL(>=)
TLALOC_OPERATOR_DECL(==)
TLALOC_OPERATOR_DECL(!=)
TLALOC_OPERATOR_DECL(&)  // logical and
TLALOC_OPERATOR_DECL(|)  // logical or
TLALOC_OPERATOR_DECL(^)  // logical xor
#undef TLALOC_OPERATOR_DECL
Tensor operator-(const Tensor& x);
Tensor operator!(const Tensor& x);

// ---- reductions ---------------------------------------------------------------
// mean, logsumexp, var and std, like softmax, log_softmax and outer below, are derived
// ops: their bodies are in tlaloc/derived_ops.hpp.
Tensor sum(const Tensor& x, Axes axes = {}, bool keepdims = false);
// x summed over the axes along which `shape` would broadcast to x's shape (PyTorch's
// sum_to_size): the reverse of broadcast_to, and how gradients undo broadcasting.
Tensor sum_to_size(const Tensor& x, const Shape& shape);
// g summed to x's shape (sum_to_size) and converted to x's dtype: x's share of the
// cotangent of an op that broadcast and promoted it (x + y with x of [3] in f32 and y
// of [2, 3] in f64 gives x sum_to_shape_of(g, x), of [3] in f32). The rule of the
// elementwise ops' gradients; an undefined g (a zero cotangent) stays undefined.
Tensor sum_to_shape_of(const Tensor& g, const Tensor& x);
inline Tensor mean(const Tensor& x, Axes axes = {}, bool keepdims = false);
Tensor prod(const Tensor& x, Axes axes = {}, bool keepdims = false);
Tensor max(const Tensor& x, Axes axes = {}, bool keepdims = false);
Tensor min(const Tensor& x, Axes axes = {}, bool keepdims = false);
inline Tensor logsumexp(const Tensor& x, Axes axes = {}, bool keepdims = false);
inline Tensor var(const Tensor& x, Axes axes = {}, bool keepdims = false, std::int64_t ddof = 0);
inline Tensor std(const Tensor& x, Axes axes = {}, bool keepdims = false, std::int64_t ddof = 0);
Tensor any(const Tensor& x, Axes axes = {}, bool keepdims = false);
Tensor all(const Tensor& x, Axes axes = {}, bool keepdims = false);
Tensor argmax(const Tensor& x, std::int64_t axis, bool keepdims = false);  // i64, first maximum
Tensor argmin(const Tensor& x, std::int64_t axis, bool keepdims = false);
Tensor argmax(const Tensor& x);  // over the flattened tensor
Tensor argmin(const Tensor& x);
Tensor cumsum(const Tensor& x, std::int64_t axis);
Tensor cumprod(const Tensor& x, std::int64_t axis);
// The derivatives of sum, cumsum, prod and cumprod (PyTorch's functions of these
// names): the AD engine's rules call them, and so do generated gradients. g is the
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
// over them alike. The AD engine's rules call them, and so do generated gradients.
Tensor extreme_backward(const Tensor& g, const Tensor& x, const Tensor& y, Axes axes = {},
                        bool keepdims = false);
Tensor extreme_jvp(const Tensor& t, const Tensor& x, const Tensor& y, Axes axes = {}, bool keepdims = false);

// ---- linear algebra ---------------------------------------------------------
Tensor matmul(const Tensor& a, const Tensor& b);  // NumPy semantics
struct DotDims {
  std::vector<std::int64_t> lhs_batch, rhs_batch, lhs_contract, rhs_contract;
};
// StableHLO dot_general: result dims are batch, then lhs free, then rhs free.
Tensor dot_general(const Tensor& a, const Tensor& b, const DotDims& dims);
inline Tensor outer(const Tensor& a, const Tensor& b);
// Operand `operand`'s (0: a, 1: b) share of g, the cotangent of matmul(a, b), for
// any ranks matmul takes (PyTorch's matmul backward): the transposes of matmul's own
// steps, so the same values as the AD engine's gradient of a traced matmul.
Tensor matmul_backward(const Tensor& g, const Tensor& a, const Tensor& b, int operand);
// Operand `operand`'s (0: a, 1: b) share of g, the cotangent of dot_general(a, b,
// dims): g contracted with the other operand over its free axes, in the operand's
// layout and dtype. The AD engine's rule for dot_general.
Tensor dot_general_backward(const Tensor& g, const Tensor& a, const Tensor& b, const DotDims& dims,
                            int operand);

// ---- shape ------------------------------------------------------------------
Tensor reshape(const Tensor& x, const Shape& shape);  // one -1 is inferred
Tensor transpose(const Tensor& x);                     // reverses the axes
Tensor transpose(const Tensor& x, const std::vector<std::int64_t>& perm);
Tensor permute(const Tensor& x, const std::vector<std::int64_t>& perm);
// The transpose of transpose(x, perm) and permute(x, perm) (negative axes count from
// the end): g, of the result's shape, under the inverse permutation. It is what the
// engine's rule for transpose computes, and what tlaloc-grad writes.
Tensor transpose_backward(const Tensor& g, const std::vector<std::int64_t>& perm);
Tensor squeeze(const Tensor& x, Axes axes = {});  // all: every size-1 axis
Tensor expand_dims(const Tensor& x, std::int64_t axis);
Tensor broadcast_to(const Tensor& x, const Shape& shape);
// t broadcast to y's shape and converted to y's dtype: the tangent of y in an op that
// broadcast and promoted t's operand (the rule of the elementwise ops' forward mode,
// sum_to_shape_of's transpose); an undefined t (a zero tangent) stays undefined.
Tensor broadcast_to_shape_of(const Tensor& t, const Tensor& y);
Tensor concat(const std::vector<Tensor>& xs, std::int64_t axis = 0);
Tensor stack(const std::vector<Tensor>& xs, std::int64_t axis = 0);
std::vector<Tensor> split(const Tensor& x, std::int64_t sections, std::int64_t axis = 0);
std::vector<Tensor> split(const Tensor& x, const std::vector<std::int64_t>& sizes, std::int64_t axis);
// Where split's parts of a tensor of `shape` start along the axis, and where the last
// one stops (one more offset than parts), after split's own checks: split takes its
// parts between them, and so does the code tlaloc-grad writes for a split.
std::vector<std::int64_t> split_offsets(const Shape& shape, std::int64_t sections, std::int64_t axis = 0);
std::vector<std::int64_t> split_offsets(const Shape& shape, const std::vector<std::int64_t>& sizes,
                                        std::int64_t axis);
// Per-axis [start, stop) with positive steps; stops are clamped to the size.
Tensor slice(const Tensor& x, const std::vector<std::int64_t>& starts,
             const std::vector<std::int64_t>& stops, const std::vector<std::int64_t>& steps = {});
// One axis; negative start/stop count from the end, as in Python.
Tensor slice(const Tensor& x, std::int64_t axis, std::int64_t start, std::int64_t stop,
             std::int64_t step = 1);
// The transpose of either slice of a tensor of `shape` (PyTorch's slice_backward): g,
// the slice's shape, put where the slice took its elements, zeros elsewhere. It is
// what the engine's rule for slice computes, and what tlaloc-grad writes.
Tensor slice_backward(const Tensor& g, const Shape& shape, std::int64_t axis, std::int64_t start,
                      std::int64_t stop, std::int64_t step = 1);
Tensor slice_backward(const Tensor& g, const Shape& shape, const std::vector<std::int64_t>& starts,
                      const std::vector<std::int64_t>& stops, const std::vector<std::int64_t>& steps = {});
enum class PadMode { constant, edge };
Tensor pad(const Tensor& x, const std::vector<std::pair<std::int64_t, std::int64_t>>& widths,
           PadMode mode = PadMode::constant, Scalar value = 0);
// The transpose of pad in either mode for x of `shape` (the value gets no share): in
// constant mode g without the border, in edge mode with each border's elements summed
// into the element it repeats. so_far, when defined, is the cotangent x has already
// (from its uses after the pad), and the result is x's cotangent after the pad's
// shares, summed in the engine's order: an edge pad gives x its shares one at a
// time, after so_far. What the engine computes for a pad, and what tlaloc-grad writes.
Tensor pad_backward(const Tensor& g, const Shape& shape,
                    const std::vector<std::pair<std::int64_t, std::int64_t>>& widths,
                    PadMode mode = PadMode::constant, const Tensor& so_far = Tensor());
Tensor reverse(const Tensor& x, Axes axes);
// Indices of any rank and integer dtype; negative ones count from the end, and an
// index out of range raises AxisError naming it (all are checked before any work).
Tensor take(const Tensor& x, const Tensor& indices, std::int64_t axis = 0);
Tensor take_along_axis(const Tensor& x, const Tensor& indices, std::int64_t axis);
// Inverse of take_along_axis: x with updates added at indices along axis (duplicates add up).
Tensor scatter_add(const Tensor& x, const Tensor& indices, const Tensor& updates, std::int64_t axis);
// Inverse of take: x with rows of updates added at indices along axis.
Tensor index_add(const Tensor& x, const Tensor& indices, const Tensor& updates, std::int64_t axis);
// Starts are clamped so the window fits, as in StableHLO.
Tensor dynamic_slice(const Tensor& x, const std::vector<std::int64_t>& starts, const Shape& sizes);
Tensor dynamic_update_slice(const Tensor& x, const Tensor& update, const std::vector<std::int64_t>& starts);
Tensor tile(const Tensor& x, const std::vector<std::int64_t>& reps);
Tensor repeat(const Tensor& x, std::int64_t repeats, std::int64_t axis);
// The transposes of tile and repeat of a tensor of `shape`: each element of x gets the
// sum of g over its copies, in the order of the AD engine's rules.
Tensor tile_backward(const Tensor& g, const Shape& shape, const std::vector<std::int64_t>& reps);
Tensor repeat_backward(const Tensor& g, const Shape& shape, std::int64_t repeats, std::int64_t axis);
Tensor iota(const Shape& shape, std::int64_t axis, DType t = DType::i64);

// ---- neural-network ops -------------------------------------------------------
// Stable (shifted by the maximum); a row whose maximum is infinite gives NaN, as PyTorch.
inline Tensor softmax(const Tensor& x, std::int64_t axis = -1);
inline Tensor log_softmax(const Tensor& x, std::int64_t axis = -1);
// Integer indices; an index outside [0, num_classes) gives a row of zeros, as JAX.
Tensor one_hot(const Tensor& indices, std::int64_t num_classes, DType t = DType::f32);
struct Conv2dOptions {
  std::array<std::int64_t, 2> stride{1, 1};
  std::array<std::int64_t, 2> padding{0, 0};
  std::array<std::int64_t, 2> dilation{1, 1};
  std::int64_t groups = 1;
};
// x: [N, C, H, W], w: [O, C/groups, kH, kW] -> [N, O, H', W'].
Tensor conv2d(const Tensor& x, const Tensor& w, const Conv2dOptions& opt = {});
struct ConvTranspose2dOptions {
  std::array<std::int64_t, 2> stride{1, 1};
  std::array<std::int64_t, 2> padding{0, 0};
  std::array<std::int64_t, 2> output_padding{0, 0};
  std::array<std::int64_t, 2> dilation{1, 1};
  std::int64_t groups = 1;
};
// x: [N, C, H, W], w: [C, O/groups, kH, kW] (PyTorch's layout) -> [N, O, H', W'].
Tensor conv_transpose2d(const Tensor& x, const Tensor& w, const ConvTranspose2dOptions& opt = {});
struct Pool2dOptions {
  std::array<std::int64_t, 2> kernel{2, 2};
  std::array<std::int64_t, 2> stride{0, 0};  // 0: equal to the kernel
  std::array<std::int64_t, 2> padding{0, 0};
};
// Padding may be at most half the kernel (PyTorch's rule); output size is
// floor((H + 2p - k) / s) + 1.
Tensor max_pool2d(const Tensor& x, const Pool2dOptions& opt);
Tensor avg_pool2d(const Tensor& x, const Pool2dOptions& opt);  // padding counts in the divisor
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
// Rows of weight; an index out of range raises AxisError (negative ones count from the end).
Tensor embedding(const Tensor& weight, const Tensor& indices);

// ---- threads ----------------------------------------------------------------
// Kernels split work into a fixed number of parts, so results depend only on the
// shapes and this count, never on timing. Default: TLALOC_NUM_THREADS or the cores.
void set_num_threads(int n);
int num_threads();

}  // namespace tlaloc

#include "tlaloc/derived_ops.hpp"
