// The function whose gradient this example prints: the loss of a small classifier,
// shared by the program that prints the gradient and the one that checks it.
#pragma once

#include <tlaloc/tlaloc.hpp>

#include <cstdint>

namespace tl = tlaloc;

namespace readable {

// The shapes the gradient is printed for; the printed code is specialised to them.
inline constexpr std::int64_t batch = 16;
inline constexpr std::int64_t features = 5;
inline constexpr std::int64_t hidden = 8;
inline constexpr std::int64_t classes = 4;

// Cross-entropy of a one-hidden-layer network on one-hot labels, plus a smooth
// penalty (softplus) on hidden units whose incoming weights grow past unit norm.
// w1: [features, hidden], b1: [hidden], w2: [hidden, classes], b2: [classes],
// x: [batch, features], labels: one-hot [batch, classes].
inline tl::Tensor loss(const tl::Tensor& w1, const tl::Tensor& b1, const tl::Tensor& w2, const tl::Tensor& b2,
                       const tl::Tensor& x, const tl::Tensor& labels) {
  const tl::Tensor h = tl::tanh(tl::matmul(x, w1) + b1);  // the bias broadcasts over the batch
  const tl::Tensor logits = tl::matmul(h, w2) + b2;
  const tl::Tensor nll = tl::logsumexp(logits, 1) - tl::sum(logits * labels, 1);
  const tl::Tensor norms = tl::sum(w1 * w1, 0);  // [hidden]
  return tl::mean(nll) + 0.01f * tl::sum(tl::softplus(4.0f * (norms - 1.0f)));
}

// Random arguments of the printed shapes: normal weights and inputs, random labels.
struct Point {
  tl::Tensor w1, b1, w2, b2, x, labels;
};
inline Point random_point(std::uint64_t seed) {
  const std::vector<tl::random::Key> k = tl::random::split(tl::random::key(seed), 6);
  const tl::Tensor ids = tl::random::randint(k[5], {batch}, 0, classes);
  return {0.5f * tl::random::normal(k[0], {features, hidden}), 0.1f * tl::random::normal(k[1], {hidden}),
          0.5f * tl::random::normal(k[2], {hidden, classes}),  0.1f * tl::random::normal(k[3], {classes}),
          tl::random::normal(k[4], {batch, features}),         tl::one_hot(ids, classes)};
}

}  // namespace readable
