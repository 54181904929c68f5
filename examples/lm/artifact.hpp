// The served form of the language model: entry points `prefill_<bucket>` for each
// prompt-length bucket and `decode` for one token, over KV caches of a fixed capacity
// that the caller keeps (as device buffers) between steps.
//
//   prefill_<n>(tokens [1, n] i32, length i32)  -> logits [1, vocab] at position
//       length - 1, then the caches (k, v of each block) with positions 0..n-1 written
//   decode(token [1, 1] i32, position i32, caches...) -> logits [1, vocab], caches
//
// A prompt is padded to the smallest bucket that holds it; decoding starts at the
// prompt's length and overwrites the padding's cache entries (the causal mask hides
// entries past the position being decoded).
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "text.hpp"

namespace lm {

struct ServeShape {
  std::vector<std::int64_t> buckets = {16, 64};  // prompt lengths, ascending
  std::int64_t capacity = 128;                   // cache positions: prompt and generated tokens
};

// The caches as a flat list k0, v0, k1, v1, ... and back.
std::vector<tl::Tensor> flatten(const std::vector<nn::KVCache>& caches);
std::vector<nn::KVCache> unflatten(const std::vector<tl::Tensor>& flat);

void export_artifact(const nn::DecoderLM& model, const nn::Params& params, const ServeShape& shape,
                     const std::filesystem::path& dir);

}  // namespace lm
