// The losses of torch.nn.functional, composed from public ops so that every
// transform (grad, jvp, vmap, tracing) goes through them unchanged.
#include "tlaloc/nn/losses.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string_view>

#include "tlaloc/error.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::nn {
namespace {

Tensor reduce(const Tensor& losses, Reduction reduction) {
  switch (reduction) {
    case Reduction::mean:
      return mean(losses);
    case Reduction::sum:
      return sum(losses);
    case Reduction::none:
      return losses;
  }
  return losses;
}

void require_floating(std::string_view loss, std::string_view what, const Tensor& x) {
  if (!is_floating(x.dtype()))
    throw DTypeError(
        fmt::format("tl::nn::{}: {} must be floating, got {}", loss, what, dtype_name(x.dtype())));
}

// The elementwise losses take pred and target of one dtype and one shape: PyTorch
// broadcasts them with a warning, which mostly hides a bug (a [N] target against a
// [N, 1] prediction), so here it is an error.
void require_alike(std::string_view loss, const Tensor& a, std::string_view a_name, const Tensor& b,
                   std::string_view b_name) {
  require_floating(loss, a_name, a);
  if (a.dtype() != b.dtype())
    throw DTypeError(fmt::format("tl::nn::{}: {} is {} but {} is {}", loss, a_name, dtype_name(a.dtype()),
                                 b_name, dtype_name(b.dtype())));
  if (a.shape() != b.shape())
    throw ShapeError(fmt::format("tl::nn::{}: {} has shape {} but {} has shape {}", loss, a_name,
                                 shape_string(a.shape()), b_name, shape_string(b.shape())));
}

// The class axis of scores laid out as PyTorch's: 0 for one sample [C], else 1.
std::int64_t class_axis(const Tensor& scores) { return scores.rank() == 1 ? 0 : 1; }

// Checks labels against scores (shape = scores' without the class axis, integer
// dtype) and returns scores[label] along the class axis, shaped like labels.
Tensor pick(std::string_view loss, std::string_view scores_name, const Tensor& scores, const Tensor& labels) {
  require_floating(loss, scores_name, scores);
  if (scores.rank() == 0)
    throw ShapeError(fmt::format("tl::nn::{}: {} must have a class axis, got a scalar", loss, scores_name));
  if (!is_integral(labels.dtype()))
    throw DTypeError(fmt::format("tl::nn::{}: labels must be integer class indices, got {}", loss,
                                 dtype_name(labels.dtype())));
  const std::int64_t axis = class_axis(scores);
  Shape expected = scores.shape();
  expected.erase(expected.begin() + axis);
  if (labels.shape() != expected)
    throw ShapeError(fmt::format(
        "tl::nn::{}: labels have shape {}, but {} of shape {} need labels of shape {}", loss,
        shape_string(labels.shape()), scores_name, shape_string(scores.shape()), shape_string(expected)));
  return squeeze(take_along_axis(scores, expand_dims(labels, axis), axis), axis);
}

}  // namespace

Tensor mse_loss(const Tensor& pred, const Tensor& target, Reduction reduction) {
  require_alike("mse_loss", pred, "pred", target, "target");
  return reduce(square(pred - target), reduction);
}

Tensor nll_loss(const Tensor& log_probs, const Tensor& labels, Reduction reduction) {
  return reduce(-pick("nll_loss", "log_probs", log_probs, labels), reduction);
}

Tensor cross_entropy(const Tensor& logits, const Tensor& labels, double label_smoothing,
                     Reduction reduction) {
  if (!(label_smoothing >= 0.0 && label_smoothing <= 1.0))
    throw ValueError(
        fmt::format("tl::nn::cross_entropy: label_smoothing must be in [0, 1], got {}", label_smoothing));
  require_floating("cross_entropy", "logits", logits);
  if (logits.rank() == 0)
    throw ShapeError("tl::nn::cross_entropy: logits must have a class axis, got a scalar");
  const std::int64_t axis = class_axis(logits);
  const Tensor log_probs = log_softmax(logits, axis);
  Tensor losses = -pick("cross_entropy", "logits", log_probs, labels);
  // PyTorch's smoothed target puts s / C on every class, so the extra term is the
  // mean over classes of -log_probs; skipped at s = 0 to keep the plain program small.
  if (label_smoothing != 0.0)
    losses = (1.0 - label_smoothing) * losses - label_smoothing * mean(log_probs, axis);
  return reduce(losses, reduction);
}

Tensor binary_cross_entropy_with_logits(const Tensor& logits, const Tensor& targets, Reduction reduction) {
  require_alike("binary_cross_entropy_with_logits", logits, "logits", targets, "targets");
  // log(1 + exp(x)) - x t without overflow: exp only ever sees -|x| <= 0.
  const Tensor losses = maximum(logits, 0.0) - logits * targets + log1p(exp(-abs(logits)));
  return reduce(losses, reduction);
}

Tensor huber_loss(const Tensor& pred, const Tensor& target, double delta, Reduction reduction) {
  if (!(delta > 0.0)) throw ValueError(fmt::format("tl::nn::huber_loss: delta must be > 0, got {}", delta));
  require_alike("huber_loss", pred, "pred", target, "target");
  const Tensor d = pred - target;
  const Tensor a = abs(d);
  const Tensor losses = where(a < delta, 0.5 * square(d), delta * (a - 0.5 * delta));
  return reduce(losses, reduction);
}

}  // namespace tlaloc::nn
