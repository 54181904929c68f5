// The checks of torch.nn.functional's losses; the losses themselves are in
// include/tlaloc/nn/losses.hpp, where tlaloc-grad can read them.
#include "tlaloc/nn/losses.hpp"

#include <fmt/format.h>

#include "tlaloc/error.hpp"

namespace tlaloc::nn::detail {
namespace {

void require_floating(std::string_view loss, std::string_view what, const Tensor& x) {
  if (!is_floating(x.dtype()))
    throw DTypeError(
        fmt::format("tl::nn::{}: {} must be floating, got {}", loss, what, dtype_name(x.dtype())));
}

}  // namespace

void check_alike(std::string_view loss, const Tensor& a, std::string_view a_name, const Tensor& b,
                 std::string_view b_name) {
  require_floating(loss, a_name, a);
  if (a.dtype() != b.dtype())
    throw DTypeError(fmt::format("tl::nn::{}: {} is {} but {} is {}", loss, a_name, dtype_name(a.dtype()),
                                 b_name, dtype_name(b.dtype())));
  if (a.shape() != b.shape())
    throw ShapeError(fmt::format("tl::nn::{}: {} has shape {} but {} has shape {}", loss, a_name,
                                 shape_string(a.shape()), b_name, shape_string(b.shape())));
}

void check_labels(std::string_view loss, std::string_view scores_name, const Tensor& scores,
                  const Tensor& labels) {
  require_floating(loss, scores_name, scores);
  if (scores.rank() == 0)
    throw ShapeError(fmt::format("tl::nn::{}: {} must have a class axis, got a scalar", loss, scores_name));
  if (!is_integral(labels.dtype()))
    throw DTypeError(fmt::format("tl::nn::{}: labels must be integer class indices, got {}", loss,
                                 dtype_name(labels.dtype())));
  const std::int64_t axis = scores.rank() == 1 ? 0 : 1;
  Shape expected = scores.shape();
  expected.erase(expected.begin() + axis);
  if (labels.shape() != expected)
    throw ShapeError(fmt::format(
        "tl::nn::{}: labels have shape {}, but {} of shape {} need labels of shape {}", loss,
        shape_string(labels.shape()), scores_name, shape_string(scores.shape()), shape_string(expected)));
}

void check_cross_entropy(const Tensor& logits, double label_smoothing) {
  if (!(label_smoothing >= 0.0 && label_smoothing <= 1.0))
    throw ValueError(
        fmt::format("tl::nn::cross_entropy: label_smoothing must be in [0, 1], got {}", label_smoothing));
  require_floating("cross_entropy", "logits", logits);
  if (logits.rank() == 0)
    throw ShapeError("tl::nn::cross_entropy: logits must have a class axis, got a scalar");
}

void check_huber(double delta) {
  if (!(delta > 0.0)) throw ValueError(fmt::format("tl::nn::huber_loss: delta must be > 0, got {}", delta));
}

}  // namespace tlaloc::nn::detail
