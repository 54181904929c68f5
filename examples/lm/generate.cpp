#include "generate.hpp"

#include <algorithm>
#include <string>

namespace lm {

namespace tr = tlaloc::runtime;

std::int32_t greedy(const tl::Tensor& logits) {
  const std::vector<float> v = logits.to_vector<float>();
  return static_cast<std::int32_t>(std::max_element(v.begin(), v.end()) - v.begin());
}

void check_fits(const ServeShape& shape, std::size_t prompt, std::int64_t count) {
  if (prompt == 0) throw tl::ValueError("lm: the prompt is empty; prefill needs at least one token");
  if (shape.buckets.empty() || static_cast<std::int64_t>(prompt) > shape.buckets.back())
    throw tl::ValueError("lm: a prompt of " + std::to_string(prompt) +
                         " tokens is longer than prefill's bound of " +
                         std::to_string(shape.buckets.empty() ? 0 : shape.buckets.back()));
  if (count < 0 || static_cast<std::int64_t>(prompt) + count > shape.capacity)
    throw tl::ValueError("lm: a prompt of " + std::to_string(prompt) + " tokens and " +
                         std::to_string(count) + " generated do not fit the KV cache of " +
                         std::to_string(shape.capacity) + " positions");
}

ArtifactGenerator::ArtifactGenerator(const tl::serve::Model& model) : model_(model) {
  const tl::serve::EntryPoint& prefill = model.entry_point("prefill");
  const tl::serve::EntryPoint& decode = model.entry_point("decode");
  if (prefill.bounded.size() != 1 || decode.inputs.size() < 3)
    throw tl::ValueError(
        "lm: the artifact's prefill is not bounded in the prompt's length, or decode has no caches");
  shape_.buckets = prefill.bounded[0].ladder;
  shape_.capacity = decode.inputs[2].shape.at(1);  // k of block 0: [1, capacity, kv_heads, d_head]
}

Ids ArtifactGenerator::generate(const Ids& prompt, std::int64_t count,
                                std::vector<std::vector<float>>* logits) const {
  check_fits(shape_, prompt.size(), count);
  const auto n = static_cast<std::int64_t>(prompt.size());
  const tr::Session& s = model_.session();
  // Prefill pads the prompt on the host (a bounded entry point); its caches then stay
  // on the device.
  std::vector<tr::Buffer> out;
  for (const tl::Tensor& t : model_.run("prefill", {tl::tensor(prompt, {1, n})}))
    out.push_back(s.to_device(t));
  Ids ids = prompt;
  std::vector<std::size_t> donate;  // the caches: the decode inputs after token and position
  for (std::size_t i = 2; i < out.size() + 1; ++i) donate.push_back(i);
  for (std::int64_t t = 0; t < count; ++t) {
    const tl::Tensor step_logits = out[0].to_host();
    ids.push_back(greedy(step_logits));
    if (logits) logits->push_back(step_logits.to_vector<float>());
    if (t + 1 == count) break;
    std::vector<tr::Buffer> in{s.to_device(tl::tensor(Ids{ids.back()}, {1, 1})),
                               s.to_device(tl::scalar_tensor(n + t, tl::DType::i32))};
    in.insert(in.end(), out.begin() + 1, out.end());
    out = model_.run("decode", in, {.donate = donate});
  }
  return ids;
}

Ids generate_eager(const nn::DecoderLM& model, const nn::Params& params, const Ids& prompt,
                   std::int64_t count, std::int64_t capacity) {
  check_fits({.buckets = {static_cast<std::int64_t>(prompt.size())}, .capacity = capacity}, prompt.size(),
             count);
  const auto n = static_cast<std::int64_t>(prompt.size());
  auto [logits, caches] = model.cached(params, tl::tensor(prompt, {1, n}),
                                       tl::scalar_tensor(0, tl::DType::i32), model.empty_cache(1, capacity));
  tl::Tensor last = tl::slice(logits, 1, n - 1, n);
  Ids ids = prompt;
  for (std::int64_t t = 0; t < count; ++t) {
    ids.push_back(greedy(last));
    if (t + 1 == count) break;
    auto step = model.cached(params, tl::tensor(Ids{ids.back()}, {1, 1}),
                             tl::scalar_tensor(n + t, tl::DType::i32), caches);
    last = step.first;
    caches = std::move(step.second);
  }
  return ids;
}

Ids generate_uncached(const nn::DecoderLM& model, const nn::Params& params, const Ids& prompt,
                      std::int64_t count) {
  Ids ids = prompt;
  for (std::int64_t t = 0; t < count; ++t) {
    const auto n = static_cast<std::int64_t>(ids.size());
    ids.push_back(greedy(tl::slice(model(params, tl::tensor(ids, {1, n})), 1, n - 1, n)));
  }
  return ids;
}

}  // namespace lm
