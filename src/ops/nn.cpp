// Neural-network helpers written with other public ops: one_hot and embedding (and
// softmax's axis; softmax and log_softmax are in tlaloc/derived_ops.hpp). They have
// no kernels of their own, so a trace records the primitives they call.
#include <algorithm>
#include <string_view>

#include "core/check.hpp"
#include "ops/like.hpp"
#include "tlaloc/ops.hpp"
#include "tlaloc/transforms.hpp"

namespace tlaloc {

using detail::fail;

std::int64_t detail::row_axis(std::string_view op, std::int64_t axis, std::int64_t rank) {
  return normalize_axis(op, axis, std::max<std::int64_t>(rank, 1));
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
  if (detail::is_untyped(weight)) return take(weight, indices, 0);
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
