// Greedy generation two ways: through the exported artifact (tl::serve::Model, the
// caches kept as device buffers and donated to each decode step), and eagerly with
// DecoderLM::cached on host tensors, and eagerly without a cache: the checks of the
// first.
#pragma once

#include <cstdint>
#include <tlaloc/serve.hpp>
#include <vector>

#include "artifact.hpp"

namespace lm {

using Ids = std::vector<std::int32_t>;

// The first largest entry of logits [1, vocab].
std::int32_t greedy(const tl::Tensor& logits);

class ArtifactGenerator {
 public:
  // Reads the buckets from the prefill entry point's ladder and the capacity from
  // decode's cache inputs.
  explicit ArtifactGenerator(const tl::serve::Model& model);
  const ServeShape& shape() const { return shape_; }
  // The prompt then `count` greedy tokens' ids. Refused by name: an empty prompt, one
  // longer than prefill's bound, more tokens than the caches hold. With `logits`,
  // each step's logits [vocab] (the artifact's, from which that step's id was taken)
  // are appended to it.
  Ids generate(const Ids& prompt, std::int64_t count, std::vector<std::vector<float>>* logits = nullptr) const;

 private:
  const tl::serve::Model& model_;
  ServeShape shape_;
};

// The same without an artifact: unpadded prefill, then one step per token.
Ids generate_eager(const nn::DecoderLM& model, const nn::Params& params, const Ids& prompt,
                   std::int64_t count, std::int64_t capacity);

// The same without a cache: the whole sequence through the model for each token.
Ids generate_uncached(const nn::DecoderLM& model, const nn::Params& params, const Ids& prompt,
                      std::int64_t count);

// Refuses a prompt and count that do not fit `shape` (empty prompt, longer than the
// largest bucket, which is prefill's bound, past the capacity), naming the sizes.
void check_fits(const ServeShape& shape, std::size_t prompt, std::int64_t count);

}  // namespace lm
