// Rotary position embedding, MultiHeadAttention and TransformerBlock (tl::nn).
#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "tlaloc/error.hpp"
#include "tlaloc/nn/layers_attention.hpp"
#include "tlaloc/lax.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::nn {

void detail::check_rotary(const Tensor& x, double base) {
  if (x.rank() != 4)
    throw ShapeError(fmt::format("tl::nn::apply_rotary: x must be [B, T, H, D], not of shape {}",
                                 fmt::join(x.shape(), "x")));
  if (x.size(3) % 2 != 0)
    throw ShapeError(fmt::format("tl::nn::apply_rotary: the head size D = {} is odd", x.size(3)));
  if (!(base > 0)) throw ValueError(fmt::format("tl::nn::apply_rotary: base must be positive, not {}", base));
}

Tensor detail::rotary_angles(const Tensor& positions, std::int64_t t, std::int64_t d, double base) {
  if (positions.rank() != 1 || positions.size(0) != t)
    throw ShapeError(fmt::format("tl::nn::apply_rotary: positions of shape {} do not match T = {}",
                                 fmt::join(positions.shape(), "x"), t));
  const std::int64_t half = d / 2;
  // inv_freq[i] = base^(-2i/D), rounded to f32 once, then multiplied in f32 as the
  // PyTorch implementations do, so the angles agree to the bit with theirs.
  std::vector<float> inv_freq(static_cast<std::size_t>(half));
  for (std::int64_t i = 0; i < half; ++i)
    inv_freq[static_cast<std::size_t>(i)] =
        static_cast<float>(1.0 / std::pow(base, static_cast<double>(2 * i) / static_cast<double>(d)));
  const Tensor angle = reshape(positions.astype(DType::f32), {t, 1}) * tensor(inv_freq, {half});  // [T, D/2]
  return reshape(concat({angle, angle}, 1), {t, 1, d});
}

std::int64_t MultiHeadAttention::head_dim() const {
  if (d_model <= 0 || num_heads <= 0 || num_kv_heads < 0)
    throw ValueError(fmt::format("tl::nn::MultiHeadAttention: sizes must be positive (d_model = {}, num_heads = "
                                 "{}, num_kv_heads = {})",
                                 d_model, num_heads, num_kv_heads));
  if (d_model % num_heads != 0)
    throw ValueError(fmt::format("tl::nn::MultiHeadAttention: d_model = {} is not a multiple of num_heads = {}",
                                 d_model, num_heads));
  if (num_heads % kv_heads() != 0)
    throw ValueError(fmt::format("tl::nn::MultiHeadAttention: num_heads = {} is not a multiple of num_kv_heads = {}",
                                 num_heads, kv_heads()));
  return d_model / num_heads;
}

Params MultiHeadAttention::init(random::Key key) const {
  const std::int64_t kv = kv_heads() * head_dim();
  const std::vector<random::Key> k = random::split(key, 4);
  const Linear q{d_model, d_model, bias}, kvp{d_model, kv, bias}, o{d_model, d_model, bias};
  Params p;
  const auto add = [&p](const Params& sub, const char* name) {
    for (const Params::Entry& e : sub.prefixed(name)) p.set(e.first, e.second);
  };
  add(q.init(k[0]), "q_proj");
  add(kvp.init(k[1]), "k_proj");
  add(kvp.init(k[2]), "v_proj");
  add(o.init(k[3]), "o_proj");
  return p;
}

void detail::check_attention_input(const MultiHeadAttention& m, const Tensor& x, const char* who) {
  m.head_dim();  // checks the sizes
  if (x.rank() != 3 || x.size(2) != m.d_model)
    throw ShapeError(
        fmt::format("tl::nn::MultiHeadAttention{}: input of shape {} is not [B, T, d_model = {}]", who,
                    fmt::join(x.shape(), "x"), m.d_model));
}

KVCache MultiHeadAttention::empty_cache(std::int64_t batch, std::int64_t capacity, DType t) const {
  if (batch <= 0 || capacity <= 0)
    throw ValueError(fmt::format("tl::nn::MultiHeadAttention::empty_cache: batch {} and capacity {} must be positive",
                                 batch, capacity));
  const Shape shape{batch, capacity, kv_heads(), head_dim()};
  return {zeros(shape, t), zeros(shape, t)};
}

std::pair<Tensor, KVCache> MultiHeadAttention::cached(const Params& p, const Tensor& x, const Tensor& start,
                                                      const KVCache& cache) const {
  if (!causal) throw ValueError("tl::nn::MultiHeadAttention::cached: a KV cache needs causal attention");
  detail::check_attention_input(*this, x, "::cached");
  Tensor q = detail::queries(*this, p, x), k = detail::keys(*this, p, x);
  const Tensor v = detail::values(*this, p, x);
  const std::int64_t b = x.size(0), t = x.size(1);
  const Shape want{b, cache.k.defined() ? cache.k.size(1) : 0, kv_heads(), head_dim()};
  if (!cache.k.defined() || !cache.v.defined() || cache.k.shape() != want || cache.v.shape() != want || want[1] < t)
    throw ShapeError(fmt::format("tl::nn::MultiHeadAttention::cached: the cache must be two [B = {}, capacity >= {}, "
                                 "{}, {}] tensors",
                                 b, t, kv_heads(), head_dim()));
  if (!start.defined() || start.rank() != 0 || !is_integral(start.dtype()))
    throw DTypeError("tl::nn::MultiHeadAttention::cached: start must be an integer scalar");
  const Tensor s = start.astype(DType::i64);
  const Tensor positions = s + arange(std::int64_t{0}, t);  // [T]
  if (rotary) {
    q = apply_rotary(q, positions, rotary_base);
    k = apply_rotary(k, positions, rotary_base);
  }
  const Tensor zero = scalar_tensor(std::int64_t{0}, DType::i64);
  const std::vector<Tensor> at{zero, s, zero, zero};
  const KVCache next{lax::dynamic_update_slice(cache.k, k, at), lax::dynamic_update_slice(cache.v, v, at)};
  // Query i (at position start + i) sees cache position j when j <= start + i.
  const std::int64_t capacity = want[1];
  const Tensor keep = iota({1, capacity}, 1) <= reshape(positions, {t, 1});
  return {detail::attend(*this, p, q, next.k, next.v, keep, true), next};
}

Params TransformerBlock::init(random::Key key) const {
  if (d_ff <= 0) throw ValueError(fmt::format("tl::nn::TransformerBlock: d_ff must be positive, not {}", d_ff));
  const std::vector<random::Key> k = random::split(key, 4);
  Params p;
  const auto add = [&p](const Params& sub, const char* name) {
    for (const Params::Entry& e : sub.prefixed(name)) p.set(e.first, e.second);
  };
  const RMSNorm norm{.normalized_shape = {d_model}, .eps = eps};
  add(norm.init(k[0]), "attn_norm");
  add(attention().init(k[0]), "attn");
  add(norm.init(k[0]), "mlp_norm");
  add(Linear{d_model, d_ff, false}.init(k[1]), "mlp.gate_proj");
  add(Linear{d_model, d_ff, false}.init(k[2]), "mlp.up_proj");
  add(Linear{d_ff, d_model, false}.init(k[3]), "mlp.down_proj");
  return p;
}

std::pair<Tensor, KVCache> TransformerBlock::cached(const Params& p, const Tensor& x, const Tensor& start,
                                                    const KVCache& cache) const {
  const RMSNorm norm{.normalized_shape = {d_model}, .eps = eps};
  auto [a, next] = attention().cached(p.sub("attn"), norm(p.sub("attn_norm"), x), start, cache);
  return {detail::swiglu(*this, p, x + a), std::move(next)};
}

}  // namespace tlaloc::nn
