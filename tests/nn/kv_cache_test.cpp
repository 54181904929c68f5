// KV caches: a prompt prefilled and then decoded one token at a time gives the logits
// of the whole sequence run at once; a prompt padded to a longer bucket gives the
// same; the decode step traces once for every position; bad caches are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <tlaloc/nn.hpp>
#include <tlaloc/tlaloc.hpp>

#include "support/expect_error.hpp"
#include "support/training_runs.hpp"

namespace {

namespace tl = tlaloc;
namespace nn = tlaloc::nn;
using tl::Tensor;

Tensor pos(std::int64_t p) { return tl::scalar_tensor(p, tl::DType::i32); }

// Logits at one position, [B, vocab].
Tensor at(const Tensor& logits, std::int64_t t) { return tl::slice(logits, 1, t, t + 1); }

// Within `ulps` of the f32 spacing at the reference's largest magnitude: the cache
// attends over its whole capacity (masked), the full run over T keys, so sums differ
// in length and order.
void expect_close(const Tensor& got, const Tensor& want, float ulps) {
  const std::vector<float> a = got.to_vector<float>(), b = want.to_vector<float>();
  ASSERT_EQ(a.size(), b.size());
  float scale = 0;
  for (float v : b) scale = std::max(scale, std::abs(v));
  const float tol = ulps * (std::nextafter(scale, INFINITY) - scale);
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], tol) << "element " << i;
}

struct Fixture {
  nn::DecoderLM lm = tltest::small_lm();
  nn::Params p = lm.init(tl::random::key(11));
  Tensor tokens = tl::random::randint(tl::random::key(12), {2, 9}, 0, lm.vocab);
  Tensor full = lm(p, tokens);
};

TEST(KVCache, PrefillThenDecodeGivesTheWholeSequencesLogits) {
  const Fixture f;
  auto [logits, caches] = f.lm.cached(f.p, tl::slice(f.tokens, 1, 0, 5), pos(0), f.lm.empty_cache(2, 12));
  expect_close(logits, tl::slice(f.full, 1, 0, 5), 8);
  for (std::int64_t t = 5; t < 9; ++t) {
    auto [step, next] = f.lm.cached(f.p, tl::slice(f.tokens, 1, t, t + 1), pos(t), caches);
    SCOPED_TRACE(t);
    expect_close(step, at(f.full, t), 8);
    caches = std::move(next);
  }
}

TEST(KVCache, APromptPaddedToABucketGivesTheSameLogits) {
  const Fixture f;
  // Five real tokens padded to a bucket of 8; decoding resumes at position 5 and
  // overwrites the padding's cache entries.
  const Tensor padded = tl::concat({tl::slice(f.tokens, 1, 0, 5), tl::zeros({2, 3}, f.tokens.dtype())}, 1);
  auto [logits, caches] = f.lm.cached(f.p, padded, pos(0), f.lm.empty_cache(2, 12));
  expect_close(at(logits, 4), at(f.full, 4), 8);
  auto [step, next] = f.lm.cached(f.p, tl::slice(f.tokens, 1, 5, 6), pos(5), caches);
  expect_close(step, at(f.full, 5), 8);
}

TEST(KVCache, TheDecodeStepTracesOnceForEveryPosition) {
  const Fixture f;
  const auto decode = tl::jit([&f](const Tensor& token, const Tensor& start, const std::vector<Tensor>& flat) {
    std::vector<nn::KVCache> caches;
    for (std::size_t i = 0; i < flat.size(); i += 2) caches.push_back({flat[i], flat[i + 1]});
    auto [logits, next] = f.lm.cached(f.p, token, start, caches);
    std::vector<Tensor> out{logits};
    for (const nn::KVCache& c : next) out.insert(out.end(), {c.k, c.v});
    return out;
  });
  auto [logits, caches] = f.lm.cached(f.p, tl::slice(f.tokens, 1, 0, 3), pos(0), f.lm.empty_cache(2, 12));
  std::vector<Tensor> flat;
  for (const nn::KVCache& c : caches) flat.insert(flat.end(), {c.k, c.v});
  for (std::int64_t t = 3; t < 9; ++t) {
    const Tensor token = tl::slice(f.tokens, 1, t, t + 1);
    std::vector<Tensor> out = decode(token, pos(t), flat);
    const auto eager = f.lm.cached(f.p, token, pos(t), caches);
    EXPECT_EQ(out[0].to_vector<float>(), eager.first.to_vector<float>()) << "position " << t;
    caches = eager.second;
    flat.assign(out.begin() + 1, out.end());
  }
  EXPECT_EQ(decode.traces(), 1u);
}

TEST(KVCache, RefusesBadCaches) {
  const Fixture f;
  const nn::MultiHeadAttention plain{.d_model = 32, .num_heads = 4};
  const Tensor x = tl::zeros({2, 1, 32});
  tltest::expect_error<tl::ValueError>(
      [&] { (void)plain.cached(plain.init(tl::random::key(1)), x, pos(0), plain.empty_cache(2, 4)); },
      "nn::MultiHeadAttention::cached", "causal");
  const nn::MultiHeadAttention attn = f.lm.block().attention();
  const nn::Params ap = attn.init(tl::random::key(1));
  tltest::expect_error<tl::ShapeError>([&] { (void)attn.cached(ap, x, pos(0), attn.empty_cache(3, 4)); },
                                       "nn::MultiHeadAttention::cached", "[B = 2, capacity >= 1");
  tltest::expect_error<tl::DTypeError>(
      [&] { (void)attn.cached(ap, x, tl::scalar_tensor(0.0, tl::DType::f32), attn.empty_cache(2, 4)); },
      "nn::MultiHeadAttention::cached", "integer scalar");
  tltest::expect_error<tl::ValueError>([&] { (void)f.lm.cached(f.p, f.tokens, pos(0), {}); }, "nn::DecoderLM::cached",
                                       "0 caches for 2 blocks");
}

}  // namespace
