// Attention layers of tl::nn: rotary position embedding, multi-head attention with
// grouped-query heads and a causal mask, and a pre-norm transformer block with a
// SwiGLU MLP. Like the layers of layers.hpp, each is a struct of hyperparameters with
// init(key) -> Params and operator()(params, x); the names follow the LLaMA layout
// (q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include "tlaloc/export.hpp"
#include "tlaloc/nn/layers.hpp"
#include "tlaloc/nn/params.hpp"
#include "tlaloc/ops.hpp"
#include "tlaloc/random.hpp"
#include "tlaloc/tensor.hpp"

TLALOC_PUBLIC_BEGIN
namespace tlaloc::nn {

// Rotary position embedding in the GPT-NeoX / LLaMA "rotate half" convention.
// x: [B, T, H, D] with D even. The D features are two halves x1 = x[..., :D/2] and
// x2 = x[..., D/2:]; feature pair (i, i + D/2) of the token at position p is rotated
// by the angle p * base^(-2i/D):
//   out = x * cos(angle) + rotate_half(x) * sin(angle), rotate_half(x) = [-x2, x1].
// (GPT-J and the original RoFormer pair adjacent features instead; the two differ by
// a permutation of the features.) The angles are computed in f32 as PyTorch
// implementations do. `positions` holds T integer positions; the overload with
// `offset` uses offset, offset + 1, ..., offset + T - 1.
Tensor apply_rotary(const Tensor& x, const Tensor& positions, double base = 10000.0);
Tensor apply_rotary(const Tensor& x, std::int64_t offset = 0, double base = 10000.0);

// Keys and values of the positions seen so far, for decoding one step at a time:
// k and v are [B, capacity, kv_heads, d_head]. Entries at or past the position being
// decoded are never read (the causal mask hides them), so a fixed-size cache serves
// every prompt length up to its capacity.
struct KVCache {
  Tensor k;
  Tensor v;
};

// Multi-head scaled dot-product attention over x [B, T, d_model]:
//   softmax(Q K^T / sqrt(d_head) [+ causal mask]) V, then o_proj.
// q_proj [d_model -> d_model], k_proj and v_proj [d_model -> num_kv_heads * d_head],
// o_proj [d_model -> d_model], each a Linear (same init, "weight" and "bias").
// num_kv_heads < num_heads is grouped-query attention: query head h uses key/value
// head h / (num_heads / num_kv_heads), i.e. each k/v head is repeated for consecutive
// query heads (LLaMA's repeat_kv); 0 means num_heads. With `causal`, position t
// attends to positions <= t only (the others get -inf before the softmax). With
// `rotary`, apply_rotary (positions 0..T-1) is applied to the queries and keys.
struct MultiHeadAttention {
  std::int64_t d_model = 0;
  std::int64_t num_heads = 1;
  std::int64_t num_kv_heads = 0;
  bool causal = false;
  bool rotary = false;
  bool bias = true;
  double rotary_base = 10000.0;

  std::int64_t kv_heads() const { return num_kv_heads == 0 ? num_heads : num_kv_heads; }
  std::int64_t head_dim() const;  // d_model / num_heads, after checking the sizes
  Params init(random::Key key) const;
  Tensor operator()(const Params& p, const Tensor& x) const;

  // A zero cache of `capacity` positions (causal attention only).
  KVCache empty_cache(std::int64_t batch, std::int64_t capacity, DType t = DType::f32) const;
  // x [B, T, d_model] at positions start .. start + T - 1 (`start` an integer scalar
  // tensor, which may be traced): writes x's keys and values into the cache at
  // `start`, and each query attends to the cache positions up to its own. Prefill
  // (start 0) and decoding (T = 1) are one computation; the outputs equal operator()
  // on the whole sequence to rounding.
  std::pair<Tensor, KVCache> cached(const Params& p, const Tensor& x, const Tensor& start,
                                    const KVCache& cache) const;
};

// Pre-norm decoder block (LLaMA style), x [B, T, d_model] -> [B, T, d_model]:
//   h   = x + attn(attn_norm(x))                       causal, rotary, no bias
//   out = h + down_proj(silu(gate_proj(n)) * up_proj(n)),  n = mlp_norm(h)
// Names: attn_norm.weight, attn.{q,k,v,o}_proj.weight, mlp_norm.weight,
// mlp.{gate,up,down}_proj.weight. The norms are RMSNorm with eps `eps`.
struct TransformerBlock {
  std::int64_t d_model = 0;
  std::int64_t num_heads = 1;
  std::int64_t num_kv_heads = 0;
  std::int64_t d_ff = 0;
  double eps = 1e-6;
  double rotary_base = 10000.0;

  MultiHeadAttention attention() const;
  Params init(random::Key key) const;
  Tensor operator()(const Params& p, const Tensor& x) const;
  // The block with its attention reading and writing a KV cache (MultiHeadAttention::cached).
  std::pair<Tensor, KVCache> cached(const Params& p, const Tensor& x, const Tensor& start,
                                    const KVCache& cache) const;
};

// ---- the forward functions of the attention layers ------------------------------
// Defined here, as layers.hpp's are, so that tlaloc-grad sees their bodies (the KV
// cache's path, for decoding, stays in the library).

namespace detail {
// Compiled into the library: the checks of the inputs, and the rotation angles of T
// `positions` (checked) for a head size d: [T, 1, d] f32, from base^(-2i/d) computed
// on the host, constants whatever the positions.
void check_rotary(const Tensor& x, double base);
Tensor rotary_angles(const Tensor& positions, std::int64_t t, std::int64_t d, double base);
void check_attention_input(const MultiHeadAttention& m, const Tensor& x, const char* who);

// The queries, keys and values of x [B, T, d_model]: [B, T, H, dh], [B, T, Hkv, dh]
// and [B, T, Hkv, dh] (the sizes checked by check_attention_input). Three functions
// rather than one taking the projection's name: tlaloc-grad reads Params entries by
// literal names only.
inline Tensor queries(const MultiHeadAttention& m, const Params& p, const Tensor& x) {
  const Linear q_proj{m.d_model, m.d_model, m.bias};
  return reshape(q_proj(p.sub("q_proj"), x), {x.size(0), x.size(1), m.num_heads, m.d_model / m.num_heads});
}
inline Tensor keys(const MultiHeadAttention& m, const Params& p, const Tensor& x) {
  const std::int64_t dh = m.d_model / m.num_heads;
  const Linear k_proj{m.d_model, m.kv_heads() * dh, m.bias};
  return reshape(k_proj(p.sub("k_proj"), x), {x.size(0), x.size(1), m.kv_heads(), dh});
}
inline Tensor values(const MultiHeadAttention& m, const Params& p, const Tensor& x) {
  const std::int64_t dh = m.d_model / m.num_heads;
  const Linear v_proj{m.d_model, m.kv_heads() * dh, m.bias};
  return reshape(v_proj(p.sub("v_proj"), x), {x.size(0), x.size(1), m.kv_heads(), dh});
}

// softmax(q k^T / sqrt(dh), where `masked`: keys not kept masked) v, then o_proj:
// q [B, T, H, dh], k and v [B, S, Hkv, dh], keep [T, S].
inline Tensor attend(const MultiHeadAttention& m, const Params& p, Tensor q, Tensor k, Tensor v,
                     const Tensor& keep, bool masked) {
  const std::int64_t dh = m.d_model / m.num_heads, hkv = m.kv_heads(), b = q.size(0), t = q.size(1);
  if (hkv != m.num_heads) {  // each k/v head serves num_heads / hkv consecutive query heads
    k = repeat(k, m.num_heads / hkv, 2);
    v = repeat(v, m.num_heads / hkv, 2);
  }
  // [B, H, T, dh]: the heads become a batch axis of the two matmuls.
  q = permute(q, {0, 2, 1, 3});
  k = permute(k, {0, 2, 3, 1});  // [B, H, dh, S]
  v = permute(v, {0, 2, 1, 3});
  Tensor scores =
      matmul(q, k) * static_cast<float>(1.0 / std::sqrt(static_cast<double>(dh)));  // [B, H, T, S]
  // Every query keeps at least its own position, so no row is all -inf and the
  // softmax stays finite.
  if (masked) scores = where(keep, scores, -std::numeric_limits<float>::infinity());
  const Tensor out = matmul(softmax(scores, -1), v);  // [B, H, T, dh]
  const Linear o_proj{m.d_model, m.d_model, m.bias};
  return o_proj(p.sub("o_proj"), reshape(permute(out, {0, 2, 1, 3}), {b, t, m.d_model}));
}

// The block's MLP with its residual: h + down_proj(silu(gate_proj(n)) * up_proj(n)).
inline Tensor swiglu(const TransformerBlock& block, const Params& p, const Tensor& h) {
  const RMSNorm norm{.normalized_shape = {block.d_model}, .eps = block.eps};
  const Tensor n = norm(p.sub("mlp_norm"), h);
  const Linear gate{block.d_model, block.d_ff, false}, up{block.d_model, block.d_ff, false},
      down{block.d_ff, block.d_model, false};
  return h +
         down(p.sub("mlp.down_proj"), silu(gate(p.sub("mlp.gate_proj"), n)) * up(p.sub("mlp.up_proj"), n));
}
}  // namespace detail

inline Tensor apply_rotary(const Tensor& x, const Tensor& positions, double base) {
  detail::check_rotary(x, base);
  const std::int64_t d = x.size(3), half = d / 2;
  const Tensor angle = detail::rotary_angles(positions, x.size(1), d, base);  // broadcasts over B and H
  const Tensor c = cos(angle).astype(x.dtype()), s = sin(angle).astype(x.dtype());
  const Tensor x1 = slice(x, 3, 0, half), x2 = slice(x, 3, half, d);
  return x * c + concat({-x2, x1}, 3) * s;
}

inline Tensor apply_rotary(const Tensor& x, std::int64_t offset, double base) {
  detail::check_rotary(x, base);
  return apply_rotary(x, arange(offset, offset + x.size(1)), base);
}

inline Tensor MultiHeadAttention::operator()(const Params& p, const Tensor& x) const {
  detail::check_attention_input(*this, x, "");
  Tensor q = detail::queries(*this, p, x), k = detail::keys(*this, p, x);
  const Tensor v = detail::values(*this, p, x);
  if (rotary) {
    q = apply_rotary(q, 0, rotary_base);
    k = apply_rotary(k, 0, rotary_base);
  }
  // Query t sees key s only when s <= t.
  const std::int64_t t = x.size(1);
  Tensor keep;
  if (causal) keep = iota({t, t}, 0) >= iota({t, t}, 1);
  return detail::attend(*this, p, q, k, v, keep, causal);
}

inline MultiHeadAttention TransformerBlock::attention() const {
  return MultiHeadAttention{.d_model = d_model,
                            .num_heads = num_heads,
                            .num_kv_heads = num_kv_heads,
                            .causal = true,
                            .rotary = true,
                            .bias = false,
                            .rotary_base = rotary_base};
}

inline Tensor TransformerBlock::operator()(const Params& p, const Tensor& x) const {
  const RMSNorm norm{.normalized_shape = {d_model}, .eps = eps};
  const MultiHeadAttention attn = attention();
  return detail::swiglu(*this, p, x + attn(p.sub("attn"), norm(p.sub("attn_norm"), x)));
}

}  // namespace tlaloc::nn
TLALOC_PUBLIC_END
