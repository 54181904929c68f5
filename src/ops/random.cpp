// tl::random: tensors of random numbers from threefry keys. Values equal JAX's for
// the same key, shape and dtype under jax_threefry_partitionable=True (JAX's default
// since 0.5); bf16/f16 draw in f32 and round.
#include "tlaloc/random.hpp"

#include "core/check.hpp"
#include "core/tensor_impl.hpp"
#include "core/threefry.hpp"

namespace tlaloc::random {
namespace {

using detail::fail;
constexpr auto layout = detail::rng::CounterLayout::kPartitionable;

std::size_t count(const Shape& shape) { return std::size_t(detail::numel_of(shape)); }

}  // namespace

Key key(std::uint64_t seed) { return {detail::rng::key_from_seed(seed)}; }

std::vector<Key> split(Key k, std::int64_t num) {
  if (num < 0) fail<ValueError>("random::split", "num must be non-negative, got {}", num);
  std::vector<Key> out;
  for (const auto& w : detail::rng::split(k.words, std::size_t(num), layout)) out.push_back({w});
  return out;
}

Key fold_in(Key k, std::uint32_t data) { return {detail::rng::fold_in(k.words, data)}; }

Tensor uniform(Key k, const Shape& shape, DType t, double lo, double hi) {
  if (!is_floating(t)) fail<DTypeError>("random::uniform", "needs a floating dtype, got {}", t);
  if (t == DType::f64) {
    Tensor out = detail::empty(shape, t);
    detail::rng::uniform_f64(k.words, lo, hi, detail::mutable_data<double>(out), count(shape), layout);
    return out;
  }
  Tensor out = detail::empty(shape, DType::f32);
  detail::rng::uniform_f32(k.words, float(lo), float(hi), detail::mutable_data<float>(out), count(shape), layout);
  return out.astype(t);
}

Tensor normal(Key k, const Shape& shape, DType t) {
  if (!is_floating(t)) fail<DTypeError>("random::normal", "needs a floating dtype, got {}", t);
  if (t == DType::f64) {
    Tensor out = detail::empty(shape, t);
    detail::rng::normal_f64(k.words, detail::mutable_data<double>(out), count(shape), layout);
    return out;
  }
  Tensor out = detail::empty(shape, DType::f32);
  detail::rng::normal_f32(k.words, detail::mutable_data<float>(out), count(shape), layout);
  return out.astype(t);
}

Tensor bernoulli(Key k, double p, const Shape& shape) {
  Tensor out = detail::empty(shape, DType::boolean);
  detail::rng::bernoulli(k.words, float(p), detail::mutable_data<bool>(out), count(shape), layout);
  return out;
}

Tensor randint(Key k, const Shape& shape, std::int64_t lo, std::int64_t hi, DType t) {
  if (t == DType::i64) {
    Tensor out = detail::empty(shape, t);
    detail::rng::randint_i64(k.words, lo, hi, detail::mutable_data<std::int64_t>(out), count(shape), layout);
    return out;
  }
  // The narrow types draw as i32 and convert; wider unsigned and i16 have no draw yet.
  if (t != DType::i32 && t != DType::i8 && t != DType::u8)
    fail<DTypeError>("random::randint", "supports i8, i32, i64 and u8, got {}", t);
  const std::int64_t min = t == DType::i8 ? -128 : t == DType::u8 ? 0 : INT32_MIN;
  const std::int64_t max = t == DType::i8 ? 128 : t == DType::u8 ? 256 : INT32_MAX;
  if (lo < min || hi > max || lo >= hi)
    fail<ValueError>("random::randint", "bounds [{}, {}) are empty or do not fit {}", lo, hi, t);
  Tensor out = detail::empty(shape, DType::i32);
  detail::rng::randint_i32(k.words, std::int32_t(lo), std::int32_t(hi), detail::mutable_data<std::int32_t>(out),
                           count(shape), layout);
  return out.astype(t);
}

}  // namespace tlaloc::random
