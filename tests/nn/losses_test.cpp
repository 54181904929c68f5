// The losses' bad input: each error names the loss and what is wrong. Their values
// and derivatives are the gradient-check table's (tests/ad/cases_losses.cpp), and
// the match with torch.nn.functional the oracle lane's.
#include <gtest/gtest.h>

#include <tlaloc/nn.hpp>
#include <tlaloc/tlaloc.hpp>

#include "support/expect_error.hpp"

namespace {

namespace tl = tlaloc;
namespace nn = tlaloc::nn;
using tl::Tensor;
using tltest::expect_error;

Tensor f32(std::vector<float> v, const tl::Shape& s) { return tl::tensor(v, s); }
Tensor i64(std::vector<std::int64_t> v) { return tl::tensor(v); }

const Tensor kLogits = f32({0.1f, 0.2f, 0.3f, -0.1f, 0.0f, 0.5f}, {2, 3});

TEST(Losses, ClassificationLabelsMustBeIntegers) {
  const Tensor float_labels = tl::tensor(std::vector<float>{0.0f, 1.0f});
  expect_error<tl::DTypeError>([&] { nn::cross_entropy(kLogits, float_labels); }, "nn::cross_entropy",
                               "labels must be integer", "f32");
  expect_error<tl::DTypeError>([&] { nn::nll_loss(kLogits, float_labels); }, "nn::nll_loss",
                               "labels must be integer");
}

TEST(Losses, ClassificationLabelsMustDropOnlyTheClassAxis) {
  expect_error<tl::ShapeError>(
      [&] {
        nn::cross_entropy(kLogits, i64({0, 1, 2}));
      },
      "nn::cross_entropy", "[3]", "[2, 3]", "[2]");
  expect_error<tl::ShapeError>(
      [&] {
        nn::nll_loss(kLogits, tl::reshape(i64({0, 1}), {2, 1}));
      },
      "nn::nll_loss", "[2, 1]");
  expect_error<tl::ShapeError>([&] { nn::cross_entropy(tl::scalar_tensor(1.0, tl::DType::f32), i64({0})); },
                               "nn::cross_entropy", "class axis");
}

TEST(Losses, ClassificationScoresMustBeFloating) {
  expect_error<tl::DTypeError>(
      [&] {
        nn::cross_entropy(i64({1, 2, 3}), tl::scalar_tensor(0, tl::DType::i64));
      },
      "nn::cross_entropy", "logits must be floating");
}

TEST(Losses, LabelSmoothingOutsideTheUnitIntervalIsRefused) {
  expect_error<tl::ValueError>(
      [&] {
        nn::cross_entropy(kLogits, i64({0, 1}), 1.5);
      },
      "nn::cross_entropy", "label_smoothing", "1.5");
}

TEST(Losses, ElementwiseLossesNeedOneShapeAndDtype) {
  const Tensor a = f32({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor b = f32({1, 2, 3}, {3});
  expect_error<tl::ShapeError>([&] { nn::mse_loss(a, b); }, "nn::mse_loss", "[2, 3]", "[3]");
  expect_error<tl::ShapeError>([&] { nn::huber_loss(a, b); }, "nn::huber_loss", "[2, 3]", "[3]");
  expect_error<tl::ShapeError>([&] { nn::binary_cross_entropy_with_logits(a, b); },
                               "nn::binary_cross_entropy_with_logits", "[2, 3]", "[3]");
  expect_error<tl::DTypeError>([&] { nn::mse_loss(a, a.astype(tl::DType::f64)); }, "nn::mse_loss", "f32",
                               "f64");
  expect_error<tl::DTypeError>(
      [&] {
        nn::mse_loss(i64({1, 2}), i64({1, 2}));
      },
      "nn::mse_loss", "pred must be floating");
}

TEST(Losses, HuberDeltaMustBePositive) {
  const Tensor a = f32({1, 2}, {2});
  expect_error<tl::ValueError>([&] { nn::huber_loss(a, a, 0.0); }, "nn::huber_loss", "delta");
}

TEST(Losses, ReductionsOfOneLoss) {
  // Per-sample, summed and averaged cross-entropy of the same batch agree.
  const Tensor labels = i64({2, 0});
  const auto none = nn::cross_entropy(kLogits, labels, nn::Reduction::none).to_vector<float>();
  ASSERT_EQ(none.size(), 2u);
  EXPECT_FLOAT_EQ(nn::cross_entropy(kLogits, labels, nn::Reduction::sum).item<float>(), none[0] + none[1]);
  EXPECT_FLOAT_EQ(nn::cross_entropy(kLogits, labels).item<float>(), (none[0] + none[1]) / 2);
}

}  // namespace
