#include "artifact.hpp"

#include <string>
#include <tlaloc/lax.hpp>
#include <tlaloc/serve.hpp>

namespace lm {

std::vector<tl::Tensor> flatten(const std::vector<nn::KVCache>& caches) {
  std::vector<tl::Tensor> flat;
  for (const nn::KVCache& c : caches) flat.insert(flat.end(), {c.k, c.v});
  return flat;
}

std::vector<nn::KVCache> unflatten(const std::vector<tl::Tensor>& flat) {
  std::vector<nn::KVCache> caches;
  for (std::size_t i = 0; i + 1 < flat.size(); i += 2) caches.push_back({flat[i], flat[i + 1]});
  return caches;
}

namespace {

// The entry points' input and output names: the caches as cache.<block>.k / .v.
std::vector<std::string> with_caches(std::vector<std::string> names, std::int64_t blocks) {
  for (std::int64_t b = 0; b < blocks; ++b)
    for (const char* kv : {".k", ".v"}) names.push_back("cache." + std::to_string(b) + kv);
  return names;
}

}  // namespace

void export_artifact(const nn::DecoderLM& model, const nn::Params& params, const ServeShape& shape,
                     const std::filesystem::path& dir) {
  const tl::Tensor position = tl::scalar_tensor(0, tl::DType::i32);
  const std::vector<tl::Tensor> empty = flatten(model.empty_cache(1, shape.capacity));
  const std::int64_t blocks = model.num_layers;
  tl::serve::Exporter ex(params);
  // One program per bucket of prompt lengths: the prompt's length is its valid length,
  // the logits are taken at its last position, and the caches keep the prompt's
  // positions only, so that the padded run gives what the exact one gives (export
  // checks it on the example prompt).
  const auto prefill = [&model, &empty, capacity = shape.capacity](const nn::Params& p,
                                                                   const tl::Tensor& tokens) {
    auto [logits, caches] = model.cached(p, tokens, tl::scalar_tensor(0, tl::DType::i32), unflatten(empty));
    const tl::Tensor length = tl::valid_length("seq").astype(tl::DType::i32);
    const tl::Tensor zero = tl::scalar_tensor(0, tl::DType::i32);
    const tl::Tensor last = length - tl::scalar_tensor(1, tl::DType::i32);
    std::vector<tl::Tensor> out{tl::reshape(
        tl::lax::dynamic_slice(logits, {zero, last, zero}, {1, 1, model.vocab}), {1, model.vocab})};
    const tl::Tensor kept = tl::lax::compare(tl::iota({1, capacity, 1, 1}, 1, tl::DType::i32), length, "LT");
    for (const tl::Tensor& c : flatten(caches)) out.push_back(tl::where(kept, c, 0.0));
    return out;
  };
  auto bounded = tl::bounded(prefill, {{"seq", shape.buckets.back()}}, {tl::dims(1, "seq")});
  bounded.buckets("seq", shape.buckets);
  const std::string example = "This program is free";
  ex.add("prefill", bounded,
         {.inputs = {"tokens"},
          .outputs = with_caches({"logits"}, blocks),
          .ranges = {{"tokens", {0, model.vocab - 1}}}},
         tl::tensor(std::vector<std::int32_t>(example.begin(), example.end()),
                    {1, std::int64_t(example.size())}));
  const auto decode = [&model](const nn::Params& p, const tl::Tensor& token, const tl::Tensor& pos,
                               const std::vector<tl::Tensor>& caches) {
    auto [logits, next] = model.cached(p, token, pos, unflatten(caches));
    std::vector<tl::Tensor> out{tl::reshape(logits, {1, model.vocab})};
    for (const tl::Tensor& c : flatten(next)) out.push_back(c);
    return out;
  };
  ex.add("decode", decode,
         {.inputs = with_caches({"token", "position"}, blocks),
          .outputs = with_caches({"logits"}, blocks),
          .ranges = {{"token", {0, model.vocab - 1}}, {"position", {0, shape.capacity - 1}}}},
         tl::zeros({1, 1}, tl::DType::i32), position, empty);
  ex.save(dir);
}

}  // namespace lm
