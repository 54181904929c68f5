// Ops of the reduction, linear-algebra and network families that stay without
// (complete) rules are refused by name, with the reason, never differentiated to zero.
#include <gtest/gtest.h>

#include <tlaloc/tlaloc.hpp>

#include "ir/op.hpp"
#include "support/expect_error.hpp"

namespace {

namespace tl = tlaloc;
using tl::Tensor;
using Ints = std::vector<std::int64_t>;

Tensor call(std::string_view op, std::vector<Tensor> in, const tl::detail::Attrs& attrs) {
  return tl::detail::call(*tl::detail::find_op(op), std::span<const Tensor>(in), attrs)[0];
}

// A 1-D convolution [N, C, W] x [O, I, K]: forward mode works, reverse mode covers
// the 2-D cases only.
const tl::detail::Attrs conv1d{{"input_batch_dimension", std::int64_t(0)},
                               {"input_feature_dimension", std::int64_t(1)},
                               {"input_spatial_dimensions", Ints{2}},
                               {"kernel_output_feature_dimension", std::int64_t(0)},
                               {"kernel_input_feature_dimension", std::int64_t(1)},
                               {"kernel_spatial_dimensions", Ints{2}},
                               {"output_batch_dimension", std::int64_t(0)},
                               {"output_feature_dimension", std::int64_t(1)},
                               {"output_spatial_dimensions", Ints{2}},
                               {"feature_group_count", std::int64_t(1)},
                               {"batch_group_count", std::int64_t(1)}};

TEST(GradRefusals, ConvolutionOutsideTwoSpatialDimsIsRefusedInReverseMode) {
  const Tensor x = tl::ones({1, 1, 4}, tl::DType::f64), w = tl::ones({1, 1, 2}, tl::DType::f64);
  const auto f = [&](const Tensor& a) { return tl::sum(call("convolution", {a, w}, conv1d)); };
  tltest::expect_error_with<tl::NotDifferentiableError>([&] { (void)tl::grad(f)(x); },
                                                       {"convolution", "1 spatial dims"});
  // Forward mode: the op applied to the tangent (each output sums two inputs).
  const std::vector<Tensor> t = tl::detail::run_jvp(
      [&](std::span<const Tensor> a) { return std::vector<Tensor>{call("convolution", {a[0], w}, conv1d)}; },
      std::vector<Tensor>{x}, std::vector<Tensor>{x});
  EXPECT_EQ(t[1].to_vector<double>(), (std::vector<double>{2, 2, 2}));
}

TEST(GradRefusals, BatchNormGradHasNoRules) {
  const Tensor x = tl::ones({2, 3}, tl::DType::f64), v = tl::ones({3}, tl::DType::f64);
  const auto f = [&](const Tensor& a) {
    return tl::sum(call("batch_norm_grad", {a, v, v, v, a}, {{"epsilon", 1e-3}, {"feature_index", std::int64_t(1)}}));
  };
  tltest::expect_error_with<tl::NotDifferentiableError>([&] { (void)tl::grad(f)(x); }, {"batch_norm_grad"});
}

}  // namespace
