// Derived ops: public ops the library writes with other public ops (statistics,
// softmax, outer), defined here so that their bodies are visible. A trace records
// the ops they call, and tlaloc-grad differentiates the same bodies op by op
// (docs/BUILD_TIME_GRADIENTS.md): both gradient paths read one definition.
// Declared, with their default arguments, in tlaloc/ops.hpp, which includes this file.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "tlaloc/export.hpp"
#include "tlaloc/dtype.hpp"
#include "tlaloc/ops.hpp"
#include "tlaloc/tensor.hpp"
#include "tlaloc/transforms.hpp"

TLALOC_PUBLIC_BEGIN
namespace tlaloc {
namespace detail {

// Checks and sizes defined in the library; `op` is the public name errors give.
// The number of elements each result of a reduction over `axes` combines.
std::int64_t reduced_count(std::string_view op, const Shape& shape, const Axes& axes);
// The shape of a reduction over `axes`.
Shape reduction_shape(std::string_view op, const Shape& shape, const Axes& axes, bool keepdims);
// A softmax's axis, normalized; a rank-0 input counts as a vector of one element.
std::int64_t row_axis(std::string_view op, std::int64_t axis, std::int64_t rank);

// Floating results of integer and bool inputs are f32 (complex inputs keep their type).
constexpr DType floating_dtype(DType t) { return is_inexact(t) ? t : DType::f32; }

// sum((x - mean)^2) / max(n - ddof, 0), computed in stats_dtype (f32 for 16-bit floats).
inline Tensor variance(std::string_view op, const Tensor& x, const Axes& axes, bool keepdims,
                       std::int64_t ddof) {
  const std::int64_t n = reduced_count(op, x.shape(), axes);
  const Tensor xc = x.astype(stats_dtype(x.dtype()));
  const Tensor centered = xc - sum(xc, axes, true) / double(n);
  return sum(square(centered), axes, keepdims) / double(std::max<std::int64_t>(n - ddof, 0));
}

// x in a floating type, seen with rank >= 1 (a scalar as a vector of one element).
inline Tensor softmax_rows(const Tensor& x) {
  const Tensor xf = x.astype(floating_dtype(x.dtype()));
  return x.rank() > 0 ? xf : reshape(xf, {1});
}

}  // namespace detail

// Statistics compute in stats_dtype and return the input's floating type.
inline Tensor mean(const Tensor& x, Axes axes, bool keepdims) {
  const std::int64_t n = detail::reduced_count("mean", x.shape(), axes);
  return (sum(x.astype(stats_dtype(x.dtype())), axes, keepdims) / double(n))
      .astype(detail::floating_dtype(x.dtype()));
}
inline Tensor var(const Tensor& x, Axes axes, bool keepdims, std::int64_t ddof) {
  return detail::variance("var", x, axes, keepdims, ddof).astype(detail::floating_dtype(x.dtype()));
}
inline Tensor std(const Tensor& x, Axes axes, bool keepdims, std::int64_t ddof) {
  return sqrt(detail::variance("std", x, axes, keepdims, ddof)).astype(detail::floating_dtype(x.dtype()));
}

// Shifted by the maximum for stability; an infinite maximum shifts by 0 instead. The
// shift cancels in the value; stop_gradient keeps it out of the derivative.
inline Tensor logsumexp(const Tensor& x, Axes axes, bool keepdims) {
  const Shape reduced = detail::reduction_shape("logsumexp", x.shape(), axes, keepdims);
  const Tensor xc = x.astype(stats_dtype(x.dtype()));
  const Tensor m = max(xc, axes, true);
  const Tensor shift = stop_gradient(where(isfinite(m), m, 0.0));
  const Tensor out = log(sum(exp(xc - shift), axes, true)) + shift;
  return reshape(out, reduced).astype(detail::floating_dtype(x.dtype()));
}

// Shifted by the maximum so exp never overflows. A row whose maximum is infinite is
// all NaN (its max minus itself is NaN), as in PyTorch and JAX: a row of -inf has no
// defined distribution. Rank 0 is a vector of one element (softmax of a scalar is 1).
inline Tensor softmax(const Tensor& x, std::int64_t axis) {
  const std::int64_t a = detail::row_axis("softmax", axis, x.rank());
  const Tensor xf = detail::softmax_rows(x);
  const Tensor e = exp(xf - stop_gradient(max(xf, a, true)));
  return reshape(e / sum(e, a, true), x.shape());
}

// x - max - log(sum(exp(x - max))): no overflow for large values and no log(0)
// unless a whole row is -inf (NaN then, as softmax).
inline Tensor log_softmax(const Tensor& x, std::int64_t axis) {
  const std::int64_t a = detail::row_axis("log_softmax", axis, x.rank());
  const Tensor xf = detail::softmax_rows(x);
  const Tensor shifted = xf - stop_gradient(max(xf, a, true));
  return reshape(shifted - log(sum(exp(shifted), a, true)), x.shape());
}

// A [n, 1] column times a [1, m] row.
inline Tensor outer(const Tensor& a, const Tensor& b) {
  return mul(reshape(a, {a.numel(), 1}), reshape(b, {1, b.numel()}));
}

// NaN in x propagates, as in JAX.
inline Tensor clamp(const Tensor& x, const Tensor& lo, const Tensor& hi) {
  return minimum(maximum(x, lo), hi);
}
inline Tensor clamp(const Tensor& x, Scalar lo, Scalar hi) { return minimum(maximum(x, lo), hi); }

}  // namespace tlaloc
TLALOC_PUBLIC_END
