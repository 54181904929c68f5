// Loss functions as plain functions of tensors, with PyTorch 1.13's definitions
// (torch.nn.functional). They are built from public ops, so tl::grad, tl::jvp and
// tracing differentiate them like any other function. Their bodies are in this
// header so that tlaloc-grad sees them too: a loss in a function it differentiates
// is differentiated op by op, as when traced (docs/BUILD_TIME_GRADIENTS.md).
#pragma once

#include <cstdint>
#include <string_view>

#include "tlaloc/export.hpp"
#include "tlaloc/ops.hpp"
#include "tlaloc/tensor.hpp"

TLALOC_PUBLIC_BEGIN
namespace tlaloc::nn {

// How the per-element losses are combined: their mean (the default, as PyTorch),
// their sum, or none (the per-element losses, shaped like the input without its
// class axis for the classification losses).
enum class Reduction { mean, sum, none };

namespace detail {

// The checks of the losses' inputs (compiled into the library); each throws a
// tl::Error that names the loss and the input.
//
// The elementwise losses take pred and target of one floating dtype and one shape:
// PyTorch broadcasts them with a warning, which mostly hides a bug (a [N] target
// against a [N, 1] prediction), so here it is an error.
void check_alike(std::string_view loss, const Tensor& a, std::string_view a_name, const Tensor& b,
                 std::string_view b_name);
// Floating scores with a class axis, and integer labels shaped like the scores without it.
void check_labels(std::string_view loss, std::string_view scores_name, const Tensor& scores,
                  const Tensor& labels);
void check_cross_entropy(const Tensor& logits, double label_smoothing);
void check_huber(double delta);

// One return (a ?: rather than early returns), so that tlaloc-grad may inline it in a loop.
inline Tensor reduce(const Tensor& losses, Reduction reduction) {
  return reduction == Reduction::mean ? mean(losses) : reduction == Reduction::sum ? sum(losses) : losses;
}

// scores[label] along the class axis (0 for one sample [C], else 1), shaped like labels.
inline Tensor pick(std::string_view loss, std::string_view scores_name, const Tensor& scores,
                   const Tensor& labels) {
  check_labels(loss, scores_name, scores, labels);
  const std::int64_t axis = scores.rank() == 1 ? 0 : 1;
  return squeeze(take_along_axis(scores, expand_dims(labels, axis), axis), axis);
}

}  // namespace detail

// (pred - target)^2. pred and target: the same floating dtype and shape.
inline Tensor mse_loss(const Tensor& pred, const Tensor& target, Reduction reduction = Reduction::mean) {
  detail::check_alike("mse_loss", pred, "pred", target, "target");
  return detail::reduce(square(pred - target), reduction);
}

// Softmax cross-entropy of logits [N, C] or [N, C, d1, ...] (classes on axis 1; a
// rank-1 [C] is one sample) against integer labels [N] or [N, d1, ...] in [0, C).
// label_smoothing in [0, 1] mixes the one-hot target with the uniform one, as
// F.cross_entropy: (1 - s) * nll + s * mean over classes of -log_softmax.
inline Tensor cross_entropy(const Tensor& logits, const Tensor& labels, double label_smoothing = 0.0,
                            Reduction reduction = Reduction::mean) {
  detail::check_cross_entropy(logits, label_smoothing);
  const std::int64_t axis = logits.rank() == 1 ? 0 : 1;
  const Tensor log_probs = log_softmax(logits, axis);
  Tensor losses = -detail::pick("cross_entropy", "logits", log_probs, labels);
  // PyTorch's smoothed target puts s / C on every class, so the extra term is the
  // mean over classes of -log_probs; skipped at s = 0 to keep the plain program small.
  if (label_smoothing != 0.0)
    losses = (1.0 - label_smoothing) * losses - label_smoothing * mean(log_probs, axis);
  return detail::reduce(losses, reduction);
}
inline Tensor cross_entropy(const Tensor& logits, const Tensor& labels, Reduction reduction) {
  return cross_entropy(logits, labels, 0.0, reduction);
}

// Negative log-likelihood of log-probabilities (same layout as cross_entropy's
// logits) at integer labels: -log_probs[label].
inline Tensor nll_loss(const Tensor& log_probs, const Tensor& labels, Reduction reduction = Reduction::mean) {
  return detail::reduce(-detail::pick("nll_loss", "log_probs", log_probs, labels), reduction);
}

// Binary cross-entropy of logits against targets in [0, 1] (same dtype and shape),
// computed stably as max(x, 0) - x t + log1p(exp(-|x|)): exp only ever sees -|x| <= 0.
inline Tensor binary_cross_entropy_with_logits(const Tensor& logits, const Tensor& targets,
                                               Reduction reduction = Reduction::mean) {
  detail::check_alike("binary_cross_entropy_with_logits", logits, "logits", targets, "targets");
  const Tensor losses = maximum(logits, 0.0) - logits * targets + log1p(exp(-abs(logits)));
  return detail::reduce(losses, reduction);
}

// Quadratic below delta, linear above: 0.5 d^2 if |d| < delta, else
// delta (|d| - 0.5 delta), d = pred - target; delta > 0.
inline Tensor huber_loss(const Tensor& pred, const Tensor& target, double delta = 1.0,
                         Reduction reduction = Reduction::mean) {
  detail::check_huber(delta);
  detail::check_alike("huber_loss", pred, "pred", target, "target");
  const Tensor d = pred - target;
  const Tensor a = abs(d);
  const Tensor losses = where(a < delta, 0.5 * square(d), delta * (a - 0.5 * delta));
  return detail::reduce(losses, reduction);
}

}  // namespace tlaloc::nn
TLALOC_PUBLIC_END
