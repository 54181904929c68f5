// Gradients through the reduction, linear-algebra and network rules lower to
// StableHLO and run from the text with the eager results: the rules' negative
// paddings, lhs dilations and interior paddings are valid StableHLO.
#include <gtest/gtest.h>

#include "ir/op.hpp"
#include "support/lowering.hpp"

namespace {

namespace tl = tlaloc;
using tl::Tensor;

Tensor call(std::string_view op, std::vector<Tensor> in, const tl::detail::Attrs& attrs) {
  return tl::detail::call(*tl::detail::find_op(op), std::span<const Tensor>(in), attrs)[0];
}

Tensor uniform(const tl::Shape& s, std::uint64_t seed) {
  return tl::random::uniform(tl::random::key(seed), s, tl::DType::f32, 0.5f, 1.5f);
}

// The gradient of sum(f(x) * u) as the traced function's result.
tltest::Fn gradient_of(std::function<Tensor(const Tensor&)> f) {
  return [f](std::span<const Tensor> a) {
    const Tensor u = a[1];
    return std::vector<Tensor>{tl::grad([&](const Tensor& x) { return tl::sum(f(x) * u); })(a[0])};
  };
}

TEST(GradLowering, ConvolutionWithUnreadRowsGroupsAndDilation) {
  const Tensor w = uniform({4, 2, 2, 2}, 2);
  const tl::Conv2dOptions opt{{2, 1}, {0, 1}, {2, 1}, 2};
  const Tensor x = uniform({1, 4, 6, 5}, 1);
  const auto f = [&](const Tensor& v) { return tl::conv2d(v, w, opt); };
  tltest::expect_round_trip(gradient_of(f), {x, uniform(f(x).shape(), 3)}, "stablehlo.convolution");
  const auto fw = [&](const Tensor& v) { return tl::conv2d(x, v, opt); };
  tltest::expect_round_trip(gradient_of(fw), {w, uniform(fw(w).shape(), 4)}, "stablehlo.convolution");
}

TEST(GradLowering, Pooling) {
  const Tensor x = uniform({1, 2, 5, 4}, 5);
  const tl::Pool2dOptions opt{{2, 3}, {2, 1}, {0, 1}};
  const auto fmax = [&](const Tensor& v) { return tl::max_pool2d(v, opt); };
  tltest::expect_round_trip(gradient_of(fmax), {x, uniform(fmax(x).shape(), 6)}, "stablehlo.pad");
  const auto favg = [&](const Tensor& v) { return tl::avg_pool2d(v, opt); };
  tltest::expect_round_trip(gradient_of(favg), {x, uniform(favg(x).shape(), 7)}, "stablehlo.convolution");
}

// Ties inside windows, overlapping windows and cotangents of both signs of zero:
// max_pool_grad's kernel adds in the order, and with the zeros, of the ops it lowers to.
TEST(GradLowering, MaxPoolTiesAndSignedZeros) {
  const Tensor x = tl::floor(tl::random::uniform(tl::random::key(16), {2, 3, 7, 6}, tl::DType::f32, 0.0f, 3.0f));
  const tl::Pool2dOptions opt{{3, 3}, {2, 1}, {1, 1}};
  Tensor u = tl::round(tl::random::normal(tl::random::key(17), tl::max_pool2d(x, opt).shape()));
  const Tensor neg_zero = tl::zeros(u.shape()) * -1.0f;
  u = tl::where(u == 0.0f, tl::where(tl::random::uniform(tl::random::key(18), u.shape()) < 0.5f, neg_zero, 0.0), u);
  const auto fmax = [&](const Tensor& v) { return tl::max_pool2d(v, opt); };
  tltest::expect_round_trip(gradient_of(fmax), {x, u}, "stablehlo.pad");
}

TEST(GradLowering, ProductsAndScans) {
  const Tensor x = uniform({3, 4}, 8);
  const auto f = [](const Tensor& v) { return tl::prod(v, 1, true) * tl::cumprod(v, 1) + tl::cumsum(v, 0); };
  tltest::expect_round_trip(gradient_of(f), {x, uniform({3, 4}, 9)});
}

TEST(GradLowering, CholeskyAndTriangularSolve) {
  const Tensor m = uniform({3, 3}, 10);
  const Tensor a = tl::matmul(m, tl::transpose(m)) + tl::eye(3, -1, 0, tl::DType::f32) * 3.0f;
  const auto f = [](const Tensor& v) {
    const Tensor l = call("cholesky", {v}, {{"lower", true}});
    return call("triangular_solve", {l, v},
                {{"left_side", true}, {"lower", true}, {"unit_diagonal", false}, {"transpose_a", std::string("TRANSPOSE")}});
  };
  tltest::expect_round_trip(gradient_of(f), {a, uniform({3, 3}, 11)}, "stablehlo.triangular_solve");
}

TEST(GradLowering, BatchNormTraining) {
  const Tensor x = uniform({2, 3, 2}, 12), s = uniform({3}, 13), b = uniform({3}, 14);
  const auto f = [&](const Tensor& v) {
    return call("batch_norm_training", {v, s, b}, {{"epsilon", 1e-3}, {"feature_index", std::int64_t(1)}});
  };
  tltest::expect_round_trip(gradient_of(f), {x, uniform({2, 3, 2}, 15)});
}

}  // namespace
