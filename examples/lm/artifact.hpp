// The served form of the language model: entry points `prefill`, bounded in the
// prompt's length (docs/DYNAMIC_SHAPES.md), and `decode` for one token, over KV caches
// of a fixed capacity that the caller keeps (as device buffers) between steps.
//
//   prefill(tokens [1, seq <= 64] i32)  -> logits [1, vocab] at the prompt's last
//       position, then the caches (k, v of each block) with the prompt's positions written
//   decode(token [1, 1] i32, position i32, caches...) -> logits [1, vocab], caches
//
// The runtime pads a prompt to the smallest bucket that holds it; prefill keeps the
// prompt's cache positions only, and decoding starts at the prompt's length.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "text.hpp"

namespace lm {

struct ServeShape {
  std::vector<std::int64_t> buckets = {16, 64};  // prefill's buckets of prompt lengths, ascending
  std::int64_t capacity = 128;                   // cache positions: prompt and generated tokens
};

// The caches as a flat list k0, v0, k1, v1, ... and back.
std::vector<tl::Tensor> flatten(const std::vector<nn::KVCache>& caches);
std::vector<nn::KVCache> unflatten(const std::vector<tl::Tensor>& flat);

void export_artifact(const nn::DecoderLM& model, const nn::Params& params, const ServeShape& shape,
                     const std::filesystem::path& dir);

}  // namespace lm
