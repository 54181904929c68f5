// One MLP loss through every gradient entry point: tl::grad, tl::jit(tl::grad),
// tl::value_and_grad, parameters as a std::vector<Tensor> and as separate arguments
// (argnums). They all run the same rules and kernels in the same order, so the
// gradients must agree bit for bit, not merely to a tolerance.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>

#include <tlaloc/tlaloc.hpp>

namespace {

namespace tl = tlaloc;
using tl::Tensor;

Tensor mlp_loss(const Tensor& w1, const Tensor& b1, const Tensor& w2, const Tensor& b2, const Tensor& x,
                const Tensor& y) {
  const Tensor hidden = tl::tanh(tl::matmul(x, w1) + b1);
  const Tensor logits = tl::matmul(hidden, w2) + b2;
  const Tensor target = tl::one_hot(y, logits.shape().back(), logits.dtype());
  return tl::mean(-tl::sum(target * tl::log_softmax(logits, -1), -1));
}

// The parameters as one list: {W1, b1, W2, b2}.
Tensor mlp_loss_list(const std::vector<Tensor>& p, const Tensor& x, const Tensor& y) {
  return mlp_loss(p[0], p[1], p[2], p[3], x, y);
}

Tensor uniform(const tl::Shape& shape, std::uint64_t seed) {
  return tl::random::uniform(tl::random::key(seed), shape, tl::DType::f32, -1.0, 1.0);
}

void expect_bitwise_equal(const std::vector<Tensor>& got, const std::vector<Tensor>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t k = 0; k < got.size(); ++k) {
    ASSERT_EQ(got[k].shape(), want[k].shape()) << what << ", parameter " << k;
    ASSERT_EQ(got[k].dtype(), want[k].dtype()) << what << ", parameter " << k;
    const auto a = got[k].to_vector<float>(), b = want[k].to_vector<float>();
    for (std::size_t i = 0; i < a.size(); ++i)
      EXPECT_EQ(std::bit_cast<std::uint32_t>(a[i]), std::bit_cast<std::uint32_t>(b[i]))
          << what << ", parameter " << k << " element " << i << ": " << a[i] << " vs " << b[i];
  }
}

TEST(Compositions, MlpGradientIsTheSameThroughEveryEntryPoint) {
  const std::vector<Tensor> params{uniform({6, 5}, 1), uniform({5}, 2), uniform({5, 3}, 3), uniform({3}, 4)};
  const Tensor x = uniform({4, 6}, 5);
  const Tensor y = tl::tensor(std::vector<std::int64_t>{2, 0, 1, 2});

  const std::vector<Tensor> g = tl::grad(mlp_loss_list)(params, x, y);
  ASSERT_EQ(g.size(), 4u);
  for (std::size_t k = 0; k < g.size(); ++k) EXPECT_EQ(g[k].shape(), params[k].shape());

  const auto jitted = tl::jit(tl::grad(mlp_loss_list));
  expect_bitwise_equal(jitted(params, x, y), g, "jit(grad)");
  expect_bitwise_equal(jitted(params, x, y), g, "jit(grad), cached");
  EXPECT_EQ(jitted.traces(), 1u);

  const auto [value, g_with_value] = tl::value_and_grad(mlp_loss_list)(params, x, y);
  expect_bitwise_equal(g_with_value, g, "value_and_grad");
  EXPECT_EQ(std::bit_cast<std::uint32_t>(value.item<float>()),
            std::bit_cast<std::uint32_t>(mlp_loss_list(params, x, y).item<float>()));

  const std::vector<Tensor> g_argnums =
      tl::grad(mlp_loss, tl::argnums{0, 1, 2, 3})(params[0], params[1], params[2], params[3], x, y);
  expect_bitwise_equal(g_argnums, g, "argnums{0, 1, 2, 3}");
  // In the order listed, as JAX's argnums.
  const std::vector<Tensor> g_reordered =
      tl::grad(mlp_loss, tl::argnums{3, 0, 2})(params[0], params[1], params[2], params[3], x, y);
  expect_bitwise_equal(g_reordered, std::vector<Tensor>{g[3], g[0], g[2]}, "argnums{3, 0, 2}");
}

}  // namespace
