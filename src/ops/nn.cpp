// Neural-network helpers that are composites of other public ops: softmax,
// log_softmax, one_hot and embedding. They have no kernels of their own, so a
// trace records the primitives they call.
#include <string_view>

#include "core/check.hpp"
#include "tlaloc/ops.hpp"
#include "tlaloc/transforms.hpp"

namespace tlaloc {
namespace {

using detail::fail;

Tensor as_floating(const Tensor& x) { return is_floating(x.dtype()) ? x : x.astype(DType::f32); }

// Rank 0 is treated as a vector of one element (as PyTorch does), so that
// softmax of a scalar is 1. Returns the input seen with rank >= 1.
Tensor at_least_1d(std::string_view op, const Tensor& x, std::int64_t axis) {
  if (x.rank() > 0) return x;
  detail::normalize_axis(op, axis, 1);
  return reshape(x, {1});
}

}  // namespace

// Shifted by the maximum so exp never overflows. A row whose maximum is
// infinite is all NaN (its max minus itself is NaN), as in PyTorch and JAX:
// a row of -inf has no defined distribution. The shift cancels in the value, so
// stop_gradient keeps it out of derivatives (as JAX does).
Tensor softmax(const Tensor& x, std::int64_t axis) {
  const Tensor xf = at_least_1d("softmax", as_floating(x), axis);
  const std::int64_t a = detail::normalize_axis("softmax", axis, xf.rank());
  const Tensor e = exp(xf - stop_gradient(max(xf, a, true)));
  return reshape(e / sum(e, a, true), x.shape());
}

// x - max - log(sum(exp(x - max))): no overflow for large values and no log(0)
// unless a whole row is -inf (NaN then, as softmax).
Tensor log_softmax(const Tensor& x, std::int64_t axis) {
  const Tensor xf = at_least_1d("log_softmax", as_floating(x), axis);
  const std::int64_t a = detail::normalize_axis("log_softmax", axis, xf.rank());
  const Tensor shifted = xf - stop_gradient(max(xf, a, true));
  return reshape(shifted - log(sum(exp(shifted), a, true)), x.shape());
}

// indices == [0, 1, ..., n-1] along a new last axis. Negative or too large
// indices match no class and give a row of zeros, as in JAX.
Tensor one_hot(const Tensor& indices, std::int64_t num_classes, DType t) {
  if (!is_integral(indices.dtype()))
    fail<DTypeError>("one_hot", "indices must be integers, got {}", indices.dtype());
  if (num_classes < 0) fail<ValueError>("one_hot", "num_classes must be >= 0, got {}", num_classes);
  const Tensor classes = iota({num_classes}, 0, DType::i64);
  // u64 has no common type with i64; as i64, values of 2^63 and more turn negative
  // and still match no class.
  const Tensor idx = indices.dtype() == DType::u64 ? indices.astype(DType::i64) : indices;
  return eq(expand_dims(idx, -1), classes).astype(t);
}

// take along axis 0: out-of-range indices raise an AxisError, negative ones
// count from the end (take's rules).
Tensor embedding(const Tensor& weight, const Tensor& indices) {
  if (weight.rank() < 1)
    fail<ShapeError>("embedding", "weight must have at least one axis, got {}", shape_string(weight.shape()));
  if (!is_integral(indices.dtype()))
    fail<DTypeError>("embedding", "indices must be integers, got {}", indices.dtype());
  try {
    return take(weight, indices, 0);
  } catch (const AxisError& e) {
    // take names the bad index and the size; the user called embedding.
    const std::string_view what = e.what(), prefix = "tl::take: ";
    if (!what.starts_with(prefix)) throw;
    fail<AxisError>("embedding", "{}", what.substr(prefix.size()));
  }
}

}  // namespace tlaloc
