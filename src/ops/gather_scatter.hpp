// What StableHLO gather and scatter share: reading an index vector out of the
// indices tensor at one batch position, and stepping through a shape's indices.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor_impl.hpp"
#include "ir/op.hpp"

namespace tlaloc::detail {

using Ints = std::vector<std::int64_t>;

// An Attrs entry that the text may leave out (an empty list).
inline Ints ints_or_empty(const Attrs& a, std::string_view key) {
  return a.has(key) ? a.get<Ints>(key) : Ints{};
}

inline bool contains(const Ints& v, std::int64_t x) {
  for (auto e : v)
    if (e == x) return true;
  return false;
}

// The indices tensor as i64, with the batch shape (its shape without
// index_vector_dim) and the length of one index vector.
struct IndexTable {
  std::vector<std::int64_t> values;
  Shape shape;
  std::int64_t vector_dim = 0;

  // The index vector at a batch position (the indices tensor's index with
  // index_vector_dim left out).
  Ints vector_at(const Ints& batch) const {
    const std::size_t vd = std::size_t(vector_dim);
    const std::int64_t n = vd < shape.size() ? shape[vd] : 1;
    Ints v(static_cast<std::size_t>(n));
    for (std::int64_t k = 0; k < n; ++k) {
      std::int64_t flat = 0;
      for (std::size_t d = 0, b = 0; d < shape.size(); ++d) {
        const std::int64_t i = d == vd ? k : batch[b++];
        flat = flat * shape[d] + i;
      }
      v[std::size_t(k)] = values[std::size_t(flat)];
    }
    return v;
  }
};

inline IndexTable index_table(const Tensor& idx, std::int64_t vector_dim) {
  return {idx.astype(DType::i64).to_vector<std::int64_t>(), idx.shape(), vector_dim};
}

// The next index of `shape` in row-major order; false after the last.
inline bool next_index(Ints& i, const Shape& shape) {
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (++i[d] < shape[d]) return true;
    i[d] = 0;
  }
  return false;
}

inline std::int64_t flat_index(const Ints& i, const Shape& shape) {
  std::int64_t f = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) f = f * shape[d] + i[d];
  return f;
}

}  // namespace tlaloc::detail
