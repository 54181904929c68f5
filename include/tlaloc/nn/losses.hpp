// Loss functions as plain functions of tensors, with PyTorch 1.13's definitions
// (torch.nn.functional). They are built from public ops, so tl::grad, tl::jvp and
// tracing differentiate them like any other function.
#pragma once

#include "tlaloc/tensor.hpp"

namespace tlaloc::nn {

// How the per-element losses are combined: their mean (the default, as PyTorch),
// their sum, or none (the per-element losses, shaped like the input without its
// class axis for the classification losses).
enum class Reduction { mean, sum, none };

// (pred - target)^2. pred and target: the same floating dtype and shape.
Tensor mse_loss(const Tensor& pred, const Tensor& target, Reduction reduction = Reduction::mean);

// Softmax cross-entropy of logits [N, C] or [N, C, d1, ...] (classes on axis 1; a
// rank-1 [C] is one sample) against integer labels [N] or [N, d1, ...] in [0, C).
// label_smoothing in [0, 1] mixes the one-hot target with the uniform one, as
// F.cross_entropy: (1 - s) * nll + s * mean over classes of -log_softmax.
Tensor cross_entropy(const Tensor& logits, const Tensor& labels, double label_smoothing = 0.0,
                     Reduction reduction = Reduction::mean);
inline Tensor cross_entropy(const Tensor& logits, const Tensor& labels, Reduction reduction) {
  return cross_entropy(logits, labels, 0.0, reduction);
}

// Negative log-likelihood of log-probabilities (same layout as cross_entropy's
// logits) at integer labels: -log_probs[label].
Tensor nll_loss(const Tensor& log_probs, const Tensor& labels, Reduction reduction = Reduction::mean);

// Binary cross-entropy of logits against targets in [0, 1] (same dtype and shape),
// computed stably as max(x, 0) - x t + log1p(exp(-|x|)).
Tensor binary_cross_entropy_with_logits(const Tensor& logits, const Tensor& targets,
                                        Reduction reduction = Reduction::mean);

// Quadratic below delta, linear above: 0.5 d^2 if |d| < delta, else
// delta (|d| - 0.5 delta), d = pred - target; delta > 0.
Tensor huber_loss(const Tensor& pred, const Tensor& target, double delta = 1.0,
                  Reduction reduction = Reduction::mean);

}  // namespace tlaloc::nn
