// Rotary position embedding, MultiHeadAttention and TransformerBlock (tl::nn).
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <vector>

#include "tlaloc/error.hpp"
#include "tlaloc/nn/layers_attention.hpp"
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

Tensor MultiHeadAttention::operator()(const Params& p, const Tensor& x) const {
  const std::int64_t dh = head_dim(), hkv = kv_heads();
  if (x.rank() != 3 || x.size(2) != d_model)
    throw ShapeError(fmt::format("tl::nn::MultiHeadAttention: input of shape {} is not [B, T, d_model = {}]",
                                 fmt::join(x.shape(), "x"), d_model));
  const std::int64_t b = x.size(0), t = x.size(1);
  const Linear q_proj{d_model, d_model, bias}, kv_proj{d_model, hkv * dh, bias}, o_proj{d_model, d_model, bias};
  Tensor q = reshape(q_proj(p.sub("q_proj"), x), {b, t, num_heads, dh});
  Tensor k = reshape(kv_proj(p.sub("k_proj"), x), {b, t, hkv, dh});
  Tensor v = reshape(kv_proj(p.sub("v_proj"), x), {b, t, hkv, dh});
  if (rotary) {
    q = apply_rotary(q, 0, rotary_base);
    k = apply_rotary(k, 0, rotary_base);
  }
  if (hkv != num_heads) {  // each k/v head serves num_heads / hkv consecutive query heads
    k = repeat(k, num_heads / hkv, 2);
    v = repeat(v, num_heads / hkv, 2);
  }
  // [B, H, T, dh]: the heads become a batch axis of the two matmuls.
  q = permute(q, {0, 2, 1, 3});
  k = permute(k, {0, 2, 3, 1});  // [B, H, dh, T]
  v = permute(v, {0, 2, 1, 3});
  Tensor scores = matmul(q, k) * static_cast<float>(1.0 / std::sqrt(static_cast<double>(dh)));  // [B, H, T, T]
  if (causal) {
    // Query t sees key s only when s <= t; the diagonal is always kept, so no row is
    // all -inf and the softmax stays finite.
    const Tensor keep = iota({t, t}, 0) >= iota({t, t}, 1);
    scores = where(keep, scores, -std::numeric_limits<float>::infinity());
  }
  const Tensor out = matmul(softmax(scores, -1), v);  // [B, H, T, dh]
  return o_proj(p.sub("o_proj"), reshape(permute(out, {0, 2, 1, 3}), {b, t, d_model}));
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

Tensor TransformerBlock::operator()(const Params& p, const Tensor& x) const {
  const RMSNorm norm{.normalized_shape = {d_model}, .eps = eps};
  const Tensor h = x + attention()(p.sub("attn"), norm(p.sub("attn_norm"), x));
  const Tensor n = norm(p.sub("mlp_norm"), h);
  const Linear gate{d_model, d_ff, false}, up{d_model, d_ff, false}, down{d_ff, d_model, false};
  return h + down(p.sub("mlp.down_proj"), silu(gate(p.sub("mlp.gate_proj"), n)) * up(p.sub("mlp.up_proj"), n));
}

}  // namespace tlaloc::nn
