// The public op surface. Each function is the op's one entry point: it computes
// on host tensors, or records into the active trace when an input is symbolic.
// The functions derivative rules and generated gradients call (matmul_backward,
// slice_backward, ...) are in tlaloc/derivatives.hpp, apart from the ops.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "tlaloc/export.hpp"
#include "tlaloc/tensor.hpp"

TLALOC_PUBLIC_BEGIN
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
TLALOC_BINARY_DECL(hypot)      // sqrt(a^2 + b^2), without overflow
TLALOC_BINARY_DECL(remainder)  // result has the sign of the divisor (Python's %)
TLALOC_BINARY_DECL(logaddexp)  // log(exp(a) + exp(b)), without overflow
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
TLALOC_NO_DERIVATIVE Tensor any(const Tensor& x, Axes axes = {}, bool keepdims = false);
TLALOC_NO_DERIVATIVE Tensor all(const Tensor& x, Axes axes = {}, bool keepdims = false);
// i64, the first maximum
TLALOC_NO_DERIVATIVE Tensor argmax(const Tensor& x, std::int64_t axis, bool keepdims = false);
TLALOC_NO_DERIVATIVE Tensor argmin(const Tensor& x, std::int64_t axis, bool keepdims = false);
TLALOC_NO_DERIVATIVE Tensor argmax(const Tensor& x);  // over the flattened tensor
TLALOC_NO_DERIVATIVE Tensor argmin(const Tensor& x);
Tensor cumsum(const Tensor& x, std::int64_t axis);
Tensor cumprod(const Tensor& x, std::int64_t axis);

// ---- linear algebra ---------------------------------------------------------
Tensor matmul(const Tensor& a, const Tensor& b);  // NumPy semantics
struct DotDims {
  std::vector<std::int64_t> lhs_batch, rhs_batch, lhs_contract, rhs_contract;
};
// StableHLO dot_general: result dims are batch, then lhs free, then rhs free.
Tensor dot_general(const Tensor& a, const Tensor& b, const DotDims& dims);
inline Tensor outer(const Tensor& a, const Tensor& b);

// ---- shape ------------------------------------------------------------------
Tensor reshape(const Tensor& x, const Shape& shape);  // one -1 is inferred
Tensor transpose(const Tensor& x);                     // reverses the axes
Tensor transpose(const Tensor& x, const std::vector<std::int64_t>& perm);
Tensor permute(const Tensor& x, const std::vector<std::int64_t>& perm);
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
// Per-axis [start, stop) with positive steps; stops are clamped to the size.
Tensor slice(const Tensor& x, const std::vector<std::int64_t>& starts,
             const std::vector<std::int64_t>& stops, const std::vector<std::int64_t>& steps = {});
// One axis; negative start/stop count from the end, as in Python.
Tensor slice(const Tensor& x, std::int64_t axis, std::int64_t start, std::int64_t stop,
             std::int64_t step = 1);
enum class PadMode { constant, edge };
Tensor pad(const Tensor& x, const std::vector<std::pair<std::int64_t, std::int64_t>>& widths,
           PadMode mode = PadMode::constant, Scalar value = 0);
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
Tensor iota(const Shape& shape, std::int64_t axis, DType t = DType::i64);

// ---- neural-network ops -------------------------------------------------------
// Stable (shifted by the maximum); a row whose maximum is infinite gives NaN, as PyTorch.
inline Tensor softmax(const Tensor& x, std::int64_t axis = -1);
inline Tensor log_softmax(const Tensor& x, std::int64_t axis = -1);
// Integer indices; an index outside [0, num_classes) gives a row of zeros, as JAX.
TLALOC_NO_DERIVATIVE Tensor one_hot(const Tensor& indices, std::int64_t num_classes, DType t = DType::f32);
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
// Rows of weight; an index out of range raises AxisError (negative ones count from the end).
Tensor embedding(const Tensor& weight, const Tensor& indices);

// ---- threads ----------------------------------------------------------------
// Kernels split work into a fixed number of parts, so results depend only on the
// shapes and this count, never on timing. Default: TLALOC_NUM_THREADS or the cores.
void set_num_threads(int n);
int num_threads();

}  // namespace tlaloc
TLALOC_PUBLIC_END

#include "tlaloc/derived_ops.hpp"
