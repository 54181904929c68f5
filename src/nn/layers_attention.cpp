// Rotary position embedding, MultiHeadAttention and TransformerBlock (tl::nn).
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <vector>

#include "tlaloc/error.hpp"
#include "tlaloc/nn/layers_attention.hpp"
#include "tlaloc/lax.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::nn {

Tensor apply_rotary(const Tensor& x, const Tensor& positions, double base) {
  if (x.rank() != 4)
    throw ShapeError(fmt::format("tl::nn::apply_rotary: x must be [B, T, H, D], not of shape {}",
                                 fmt::join(x.shape(), "x")));
  const std::int64_t t = x.size(1), d = x.size(3);
  if (d % 2 != 0) throw ShapeError(fmt::format("tl::nn::apply_rotary: the head size D = {} is odd", d));
  if (positions.rank() != 1 || positions.size(0) != t)
    throw ShapeError(fmt::format("tl::nn::apply_rotary: positions of shape {} do not match T = {}",
                                 fmt::join(positions.shape(), "x"), t));
  if (!(base > 0)) throw ValueError(fmt::format("tl::nn::apply_rotary: base must be positive, not {}", base));
  const std::int64_t half = d / 2;
  // inv_freq[i] = base^(-2i/D), rounded to f32 once, then multiplied in f32 as the
  // PyTorch implementations do, so the angles agree to the bit with theirs.
  std::vector<float> inv_freq(static_cast<std::size_t>(half));
  for (std::int64_t i = 0; i < half; ++i)
    inv_freq[static_cast<std::size_t>(i)] =
        static_cast<float>(1.0 / std::pow(base, static_cast<double>(2 * i) / static_cast<double>(d)));
  const Tensor angle = reshape(positions.astype(DType::f32), {t, 1}) * tensor(inv_freq, {half});  // [T, D/2]
  const Tensor full_angle = reshape(concat({angle, angle}, 1), {t, 1, d});  // broadcasts over B and H
  const Tensor c = cos(full_angle).astype(x.dtype()), s = sin(full_angle).astype(x.dtype());
  const Tensor x1 = slice(x, 3, 0, half), x2 = slice(x, 3, half, d);
  return x * c + concat({-x2, x1}, 3) * s;
}

Tensor apply_rotary(const Tensor& x, std::int64_t offset, double base) {
  if (x.rank() != 4)
    throw ShapeError(fmt::format("tl::nn::apply_rotary: x must be [B, T, H, D], not of shape {}",
                                 fmt::join(x.shape(), "x")));
  return apply_rotary(x, arange(offset, offset + x.size(1)), base);
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

namespace {

struct Projected {
  Tensor q, k, v;  // [B, T, H, dh], [B, T, Hkv, dh], [B, T, Hkv, dh]
};

Projected project(const MultiHeadAttention& m, const Params& p, const Tensor& x, const char* who) {
  const std::int64_t dh = m.head_dim(), hkv = m.kv_heads();
  if (x.rank() != 3 || x.size(2) != m.d_model)
    throw ShapeError(fmt::format("tl::nn::MultiHeadAttention{}: input of shape {} is not [B, T, d_model = {}]", who,
                                 fmt::join(x.shape(), "x"), m.d_model));
  const std::int64_t b = x.size(0), t = x.size(1);
  const Linear q_proj{m.d_model, m.d_model, m.bias}, kv_proj{m.d_model, hkv * dh, m.bias};
  return {reshape(q_proj(p.sub("q_proj"), x), {b, t, m.num_heads, dh}),
          reshape(kv_proj(p.sub("k_proj"), x), {b, t, hkv, dh}),
          reshape(kv_proj(p.sub("v_proj"), x), {b, t, hkv, dh})};
}

// softmax(q k^T / sqrt(dh), keys not kept masked) v, then o_proj: q [B, T, H, dh],
// k and v [B, S, Hkv, dh], keep [T, S] (undefined: every key).
Tensor attend(const MultiHeadAttention& m, const Params& p, Tensor q, Tensor k, Tensor v, const Tensor& keep) {
  const std::int64_t dh = m.head_dim(), hkv = m.kv_heads(), b = q.size(0), t = q.size(1);
  if (hkv != m.num_heads) {  // each k/v head serves num_heads / hkv consecutive query heads
    k = repeat(k, m.num_heads / hkv, 2);
    v = repeat(v, m.num_heads / hkv, 2);
  }
  // [B, H, T, dh]: the heads become a batch axis of the two matmuls.
  q = permute(q, {0, 2, 1, 3});
  k = permute(k, {0, 2, 3, 1});  // [B, H, dh, S]
  v = permute(v, {0, 2, 1, 3});
  Tensor scores = matmul(q, k) * static_cast<float>(1.0 / std::sqrt(static_cast<double>(dh)));  // [B, H, T, S]
  // Every query keeps at least its own position, so no row is all -inf and the
  // softmax stays finite.
  if (keep.defined()) scores = where(keep, scores, -std::numeric_limits<float>::infinity());
  const Tensor out = matmul(softmax(scores, -1), v);  // [B, H, T, dh]
  const Linear o_proj{m.d_model, m.d_model, m.bias};
  return o_proj(p.sub("o_proj"), reshape(permute(out, {0, 2, 1, 3}), {b, t, m.d_model}));
}

}  // namespace

Tensor MultiHeadAttention::operator()(const Params& p, const Tensor& x) const {
  Projected a = project(*this, p, x, "");
  const std::int64_t t = x.size(1);
  if (rotary) {
    a.q = apply_rotary(a.q, 0, rotary_base);
    a.k = apply_rotary(a.k, 0, rotary_base);
  }
  // Query t sees key s only when s <= t.
  const Tensor keep = causal ? iota({t, t}, 0) >= iota({t, t}, 1) : Tensor();
  return attend(*this, p, a.q, a.k, a.v, keep);
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
  Projected a = project(*this, p, x, "::cached");
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
    a.q = apply_rotary(a.q, positions, rotary_base);
    a.k = apply_rotary(a.k, positions, rotary_base);
  }
  const Tensor zero = scalar_tensor(std::int64_t{0}, DType::i64);
  const std::vector<Tensor> at{zero, s, zero, zero};
  const KVCache next{lax::dynamic_update_slice(cache.k, a.k, at), lax::dynamic_update_slice(cache.v, a.v, at)};
  // Query i (at position start + i) sees cache position j when j <= start + i.
  const std::int64_t capacity = want[1];
  const Tensor keep = iota({1, capacity}, 1) <= reshape(positions, {t, 1});
  return {attend(*this, p, a.q, next.k, next.v, keep), next};
}

MultiHeadAttention TransformerBlock::attention() const {
  return MultiHeadAttention{.d_model = d_model,
                            .num_heads = num_heads,
                            .num_kv_heads = num_kv_heads,
                            .causal = true,
                            .rotary = true,
                            .bias = false,
                            .rotary_base = rotary_base};
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

namespace {

Tensor swiglu(const TransformerBlock& b, const Params& p, const Tensor& h) {
  const RMSNorm norm{.normalized_shape = {b.d_model}, .eps = b.eps};
  const Tensor n = norm(p.sub("mlp_norm"), h);
  const Linear gate{b.d_model, b.d_ff, false}, up{b.d_model, b.d_ff, false}, down{b.d_ff, b.d_model, false};
  return h + down(p.sub("mlp.down_proj"), silu(gate(p.sub("mlp.gate_proj"), n)) * up(p.sub("mlp.up_proj"), n));
}

}  // namespace

Tensor TransformerBlock::operator()(const Params& p, const Tensor& x) const {
  const RMSNorm norm{.normalized_shape = {d_model}, .eps = eps};
  return swiglu(*this, p, x + attention()(p.sub("attn"), norm(p.sub("attn_norm"), x)));
}

std::pair<Tensor, KVCache> TransformerBlock::cached(const Params& p, const Tensor& x, const Tensor& start,
                                                    const KVCache& cache) const {
  const RMSNorm norm{.normalized_shape = {d_model}, .eps = eps};
  auto [a, next] = attention().cached(p.sub("attn"), norm(p.sub("attn_norm"), x), start, cache);
  return {swiglu(*this, p, x + a), std::move(next)};
}

}  // namespace tlaloc::nn
