// Sequence models of tl::nn: a GRU (PyTorch's torch.nn.GRU, one layer, batch first)
// and a small decoder-only language model built from the attention layers.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tlaloc/export.hpp"
#include "tlaloc/control.hpp"
#include "tlaloc/nn/layers_attention.hpp"
#include "tlaloc/nn/params.hpp"
#include "tlaloc/ops.hpp"
#include "tlaloc/random.hpp"
#include "tlaloc/tensor.hpp"

TLALOC_PUBLIC_BEGIN
namespace tlaloc::nn {

// One-layer GRU with torch.nn.GRU's names and layout, so a torch GRU loads our Params
// with load_state_dict: weight_ih_l0 [3H, I], weight_hh_l0 [3H, H], bias_ih_l0 [3H],
// bias_hh_l0 [3H], the three row blocks being the r, z, n gates; all U(±1/sqrt(H)).
//   r = sigmoid(W_ir x + b_ir + W_hr h + b_hr)
//   z = sigmoid(W_iz x + b_iz + W_hz h + b_hz)
//   n = tanh(W_in x + b_in + r * (W_hn h + b_hn))
//   h' = (1 - z) * n + z * h
struct GRU {
  std::int64_t input_size = 0;
  std::int64_t hidden_size = 0;
  bool bias = true;

  struct Result {
    Tensor outputs;  // [B, T, H]: the hidden state after each step
    Tensor h_last;   // [B, H]: the hidden state after the last step
  };

  Params init(random::Key key) const;
  // x [B, T, I], h0 [B, H]. The time loop is a tl::scan, so a traced program holds
  // one step, and reverse mode stacks the carries instead of unrolling T steps.
  Result apply(const Params& p, const Tensor& x, const Tensor& h0) const;
};

// Decoder-only language model (LLaMA layout): token embedding "embed.weight",
// num_layers TransformerBlocks "blocks.<i>.*", a final RMSNorm "norm.weight" and an
// output Linear without bias "lm_head.weight". Attention is causal, so the logits at
// position t depend on tokens 0..t only.
struct DecoderLM {
  std::int64_t vocab = 0;
  std::int64_t d_model = 0;
  std::int64_t num_layers = 1;
  std::int64_t num_heads = 1;
  std::int64_t num_kv_heads = 0;
  std::int64_t d_ff = 0;

  TransformerBlock block() const;
  Params init(random::Key key) const;
  // Integer token ids [B, T] -> logits [B, T, vocab].
  Tensor operator()(const Params& p, const Tensor& tokens) const;

  // One KV cache per block, of `capacity` positions.
  std::vector<KVCache> empty_cache(std::int64_t batch, std::int64_t capacity) const;
  // Tokens [B, T] at positions start .. start + T - 1 with the caches of the earlier
  // positions: the logits [B, T, vocab] and the caches with these positions added.
  // Prefill is start 0; each decode step is T = 1 at the next position.
  std::pair<Tensor, std::vector<KVCache>> cached(const Params& p, const Tensor& tokens, const Tensor& start,
                                                 const std::vector<KVCache>& caches) const;
};

namespace detail {
// The checks of the inputs (compiled into the library): GRU's x is [B, T, input_size]
// and h0 [B, hidden_size]; DecoderLM's tokens are [B, T].
void check_gru_input(const GRU& gru, const Tensor& x, const Tensor& h0);
void check_tokens(const Tensor& tokens);
}  // namespace detail

// In this header so that tlaloc-grad inlines it (docs/BUILD_TIME_GRADIENTS.md). The
// input projections do not depend on h, so they are one matmul over all steps before
// the loop; only the h-dependent part runs T times. The hidden bias is read before
// the tl::scan, whose step reads nothing of the Params.
inline GRU::Result GRU::apply(const Params& p, const Tensor& x, const Tensor& h0) const {
  detail::check_gru_input(*this, x, h0);
  const std::int64_t hs = hidden_size;
  Tensor gi = matmul(permute(x, {1, 0, 2}), transpose(p.at("weight_ih_l0")));  // [T, B, 3H]
  if (bias) gi = gi + p.at("bias_ih_l0");
  const Tensor w_hh_t = transpose(p.at("weight_hh_l0"));
  Tensor b_hh;
  if (bias) b_hh = p.at("bias_hh_l0");
  const bool has_bias = bias;
  auto step = [&w_hh_t, &b_hh, has_bias, hs](const Tensor& h, const Tensor& g) {
    Tensor gh = matmul(h, w_hh_t);  // [B, 3H]
    if (has_bias) gh = gh + b_hh;
    const Tensor r = sigmoid(slice(g, 1, 0, hs) + slice(gh, 1, 0, hs));
    const Tensor z = sigmoid(slice(g, 1, hs, 2 * hs) + slice(gh, 1, hs, 2 * hs));
    const Tensor n = tanh(slice(g, 1, 2 * hs, 3 * hs) + r * slice(gh, 1, 2 * hs, 3 * hs));
    const Tensor h2 = (1.0f - z) * n + z * h;
    return std::pair<Tensor, Tensor>{h2, h2};
  };
  auto [h_last, ys] = scan(step, h0, gi);
  return Result{permute(ys, {1, 0, 2}), h_last};
}

// In this header so that tlaloc-grad inlines it (docs/BUILD_TIME_GRADIENTS.md): the
// blocks read "blocks.<i>", a name built at run time.
inline Tensor DecoderLM::operator()(const Params& p, const Tensor& tokens) const {
  detail::check_tokens(tokens);
  const TransformerBlock b = block();
  Tensor h = Embedding{vocab, d_model}(p.sub("embed"), tokens);
  for (std::int64_t i = 0; i < num_layers; ++i) h = b(p.sub("blocks." + std::to_string(i)), h);
  h = RMSNorm{.normalized_shape = {d_model}, .eps = b.eps}(p.sub("norm"), h);
  return Linear{d_model, vocab, false}(p.sub("lm_head"), h);
}

}  // namespace tlaloc::nn
TLALOC_PUBLIC_END
