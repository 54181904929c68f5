// Stateless random numbers: threefry-2x32 keys, split and fold_in as in JAX.
// The same key always gives the same numbers; nothing is global.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "tlaloc/export.hpp"
#include "tlaloc/tensor.hpp"

TLALOC_PUBLIC_BEGIN
namespace tlaloc::random {

struct Key {
  std::array<std::uint32_t, 2> words{0, 0};
  bool operator==(const Key&) const = default;
};

Key key(std::uint64_t seed);  // jax.random.PRNGKey(seed)
std::vector<Key> split(Key k, std::int64_t num = 2);
Key fold_in(Key k, std::uint32_t data);

Tensor uniform(Key k, const Shape& shape, DType t = DType::f32, double lo = 0.0, double hi = 1.0);
Tensor normal(Key k, const Shape& shape, DType t = DType::f32);
Tensor bernoulli(Key k, double p, const Shape& shape);  // bool
Tensor randint(Key k, const Shape& shape, std::int64_t lo, std::int64_t hi, DType t = DType::i32);

}  // namespace tlaloc::random
TLALOC_PUBLIC_END
