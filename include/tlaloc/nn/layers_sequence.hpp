// Sequence models of tl::nn: a GRU (PyTorch's torch.nn.GRU, one layer, batch first)
// and a small decoder-only language model built from the attention layers.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tlaloc/nn/layers_attention.hpp"
#include "tlaloc/nn/params.hpp"
#include "tlaloc/random.hpp"
#include "tlaloc/tensor.hpp"

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
// DecoderLM's check of its input (compiled into the library): tokens are [B, T].
void check_tokens(const Tensor& tokens);
}  // namespace detail

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
