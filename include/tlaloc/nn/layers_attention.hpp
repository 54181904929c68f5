// Attention layers of tl::nn: rotary position embedding, multi-head attention with
// grouped-query heads and a causal mask, and a pre-norm transformer block with a
// SwiGLU MLP. Like the layers of layers.hpp, each is a struct of hyperparameters with
// init(key) -> Params and operator()(params, x); the names follow the LLaMA layout
// (q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj).
#pragma once

#include <cstdint>
#include <utility>

#include "tlaloc/nn/layers.hpp"
#include "tlaloc/nn/params.hpp"
#include "tlaloc/random.hpp"
#include "tlaloc/tensor.hpp"

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

}  // namespace tlaloc::nn
