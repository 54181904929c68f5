// GRU and DecoderLM (tl::nn).
#include <fmt/format.h>

#include <cmath>
#include <utility>
#include <vector>

#include "tlaloc/control.hpp"
#include "tlaloc/error.hpp"
#include "tlaloc/nn/layers_sequence.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::nn {

Params GRU::init(random::Key key) const {
  if (input_size <= 0 || hidden_size <= 0)
    throw ValueError(fmt::format("tl::nn::GRU: sizes must be positive (input_size = {}, hidden_size = {})",
                                 input_size, hidden_size));
  // torch.nn.RNNBase.reset_parameters: every parameter ~ U(-1/sqrt(H), 1/sqrt(H)).
  const double bound = 1.0 / std::sqrt(static_cast<double>(hidden_size));
  const std::int64_t h3 = 3 * hidden_size;
  const std::vector<random::Key> k = random::split(key, 4);
  Params p;
  p.set("weight_ih_l0", random::uniform(k[0], {h3, input_size}, DType::f32, -bound, bound));
  p.set("weight_hh_l0", random::uniform(k[1], {h3, hidden_size}, DType::f32, -bound, bound));
  if (bias) {
    p.set("bias_ih_l0", random::uniform(k[2], {h3}, DType::f32, -bound, bound));
    p.set("bias_hh_l0", random::uniform(k[3], {h3}, DType::f32, -bound, bound));
  }
  return p;
}

void detail::check_gru_input(const GRU& gru, const Tensor& x, const Tensor& h0) {
  if (x.rank() != 3 || x.size(2) != gru.input_size)
    throw ShapeError(fmt::format("tl::nn::GRU: input of shape {} is not [B, T, input_size = {}]",
                                 fmt::join(x.shape(), "x"), gru.input_size));
  if (h0.rank() != 2 || h0.size(0) != x.size(0) || h0.size(1) != gru.hidden_size)
    throw ShapeError(fmt::format("tl::nn::GRU: h0 of shape {} is not [B = {}, hidden_size = {}]",
                                 fmt::join(h0.shape(), "x"), x.size(0), gru.hidden_size));
}

TransformerBlock DecoderLM::block() const {
  return TransformerBlock{.d_model = d_model, .num_heads = num_heads, .num_kv_heads = num_kv_heads, .d_ff = d_ff};
}

Params DecoderLM::init(random::Key key) const {
  if (vocab <= 0 || d_model <= 0 || num_layers <= 0)
    throw ValueError(fmt::format("tl::nn::DecoderLM: sizes must be positive (vocab = {}, d_model = {}, num_layers = {})",
                                 vocab, d_model, num_layers));
  const std::vector<random::Key> k = random::split(key, num_layers + 3);
  Params p;
  const auto add = [&p](const Params& sub, const std::string& name) {
    for (const Params::Entry& e : sub.prefixed(name)) p.set(e.first, e.second);
  };
  add(Embedding{vocab, d_model}.init(k[0]), "embed");
  const TransformerBlock b = block();
  for (std::int64_t i = 0; i < num_layers; ++i)
    add(b.init(k[static_cast<std::size_t>(i + 1)]), fmt::format("blocks.{}", i));
  add(RMSNorm{.normalized_shape = {d_model}, .eps = b.eps}.init(k[static_cast<std::size_t>(num_layers + 1)]), "norm");
  add(Linear{d_model, vocab, false}.init(k[static_cast<std::size_t>(num_layers + 2)]), "lm_head");
  return p;
}

void detail::check_tokens(const Tensor& tokens) {
  if (tokens.rank() != 2)
    throw ShapeError(
        fmt::format("tl::nn::DecoderLM: tokens of shape {} are not [B, T]", fmt::join(tokens.shape(), "x")));
}

std::vector<KVCache> DecoderLM::empty_cache(std::int64_t batch, std::int64_t capacity) const {
  return std::vector<KVCache>(static_cast<std::size_t>(num_layers), block().attention().empty_cache(batch, capacity));
}

std::pair<Tensor, std::vector<KVCache>> DecoderLM::cached(const Params& p, const Tensor& tokens, const Tensor& start,
                                                          const std::vector<KVCache>& caches) const {
  if (tokens.rank() != 2)
    throw ShapeError(fmt::format("tl::nn::DecoderLM::cached: tokens of shape {} are not [B, T]",
                                 fmt::join(tokens.shape(), "x")));
  if (caches.size() != static_cast<std::size_t>(num_layers))
    throw ValueError(fmt::format("tl::nn::DecoderLM::cached: {} caches for {} blocks", caches.size(), num_layers));
  const TransformerBlock b = block();
  Tensor h = Embedding{vocab, d_model}(p.sub("embed"), tokens);
  std::vector<KVCache> next;
  for (std::int64_t i = 0; i < num_layers; ++i) {
    auto [out, cache] = b.cached(p.sub(fmt::format("blocks.{}", i)), h, start, caches[static_cast<std::size_t>(i)]);
    h = std::move(out);
    next.push_back(std::move(cache));
  }
  h = RMSNorm{.normalized_shape = {d_model}, .eps = b.eps}(p.sub("norm"), h);
  return {Linear{d_model, vocab, false}(p.sub("lm_head"), h), std::move(next)};
}

}  // namespace tlaloc::nn
