// Layers of tl::nn: names and shapes, PyTorch's initialization bounds and moments,
// apply equal to the same ops written by hand (bit for bit), gradients through an
// MLP's Params against finite differences, and bad input. The match with torch.nn
// itself is the oracle lane's (tests/oracle/layers_cases.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <tlaloc/nn.hpp>
#include <tlaloc/tlaloc.hpp>

#include "support/expect_error.hpp"
#include "support/params_check.hpp"

namespace {

namespace tl = tlaloc;
namespace nn = tlaloc::nn;
using tl::Tensor;

std::vector<float> values(const Tensor& t) { return t.to_vector<float>(); }

using tltest::expect_bit_equal;

TEST(Params, IndexIsAnEntrysPosition) {
  const nn::Params p{{"fc.weight", tl::ones({2})}, {"fc.bias", tl::zeros({1})}, {"out", tl::ones({3})}};
  EXPECT_EQ(p.index("fc.weight"), 0u);
  EXPECT_EQ(p.index("out"), 2u);
  EXPECT_EQ(p.entries()[p.index("fc.bias")].first, "fc.bias");
  tltest::expect_error<tl::ValueError>([&] { (void)p.index("fc"); }, "nn::Params", "no parameter named 'fc'");
}

TEST(Layers, LinearHasTorchsNamesShapesAndBound) {
  const nn::Linear lin{.in_features = 300, .out_features = 40};
  const nn::Params p = lin.init(tl::random::key(0));
  EXPECT_EQ(p.names(), (std::vector<std::string>{"weight", "bias"}));
  EXPECT_EQ(p.at("weight").shape(), (tl::Shape{40, 300}));
  EXPECT_EQ(p.at("bias").shape(), (tl::Shape{40}));
  const float bound = 1.0f / std::sqrt(300.0f);
  for (const char* name : {"weight", "bias"}) {
    float lo = 1, hi = -1;
    for (float v : values(p.at(name))) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    EXPECT_GE(lo, -bound) << name;
    EXPECT_LE(hi, bound) << name;
  }
  // 12000 uniform draws fill the interval: the extremes lie near the bound.
  const std::vector<float> w = values(p.at("weight"));
  EXPECT_GT(*std::max_element(w.begin(), w.end()), 0.99f * bound);
  EXPECT_LT(*std::min_element(w.begin(), w.end()), -0.99f * bound);
  EXPECT_EQ(nn::Linear({.in_features = 3, .out_features = 2, .bias = false}).init(tl::random::key(0)).names(),
            (std::vector<std::string>{"weight"}));
}

TEST(Layers, InitDependsOnlyOnTheKey) {
  const nn::MLP mlp{.sizes = {4, 8, 3}};
  const nn::Params a = mlp.init(tl::random::key(7));
  const nn::Params b = mlp.init(tl::random::key(7));
  const nn::Params c = mlp.init(tl::random::key(8));
  for (const auto& [name, t] : a) {
    EXPECT_EQ(values(t), values(b.at(name))) << name;
    EXPECT_NE(values(t), values(c.at(name))) << name;
  }
  // Each layer has its own key: the two layers' weights are not the same draws.
  EXPECT_NE(values(a.at("layers.0.bias"))[0], values(a.at("layers.1.bias"))[0]);
}

TEST(Layers, MlpNamesEachLinearByItsIndex) {
  const nn::MLP mlp{.sizes = {5, 16, 8, 3}};
  const nn::Params p = mlp.init(tl::random::key(1));
  EXPECT_EQ(p.names(), (std::vector<std::string>{"layers.0.weight", "layers.0.bias", "layers.1.weight",
                                                 "layers.1.bias", "layers.2.weight", "layers.2.bias"}));
  EXPECT_EQ(p.at("layers.1.weight").shape(), (tl::Shape{8, 16}));
  EXPECT_EQ(p.at("layers.2.bias").shape(), (tl::Shape{3}));
  EXPECT_EQ(mlp(p, tl::ones({2, 7, 5})).shape(), (tl::Shape{2, 7, 3}));
}

TEST(Layers, EmbeddingIsStandardNormal) {
  const nn::Embedding emb{.num_embeddings = 1000, .embedding_dim = 100};
  const nn::Params p = emb.init(tl::random::key(3));
  EXPECT_EQ(p.names(), (std::vector<std::string>{"weight"}));
  const Tensor& w = p.at("weight");
  EXPECT_EQ(w.shape(), (tl::Shape{1000, 100}));
  // 1e5 draws: the mean's standard error is 0.003, the std's about 0.0022.
  EXPECT_NEAR(tl::mean(w).item<float>(), 0.0f, 0.015f);
  EXPECT_NEAR(std::sqrt(tl::var(w).item<float>()), 1.0f, 0.011f);
}

TEST(Layers, NormsStartAsOnesAndZeros) {
  const nn::Params ln = nn::LayerNorm{.normalized_shape = {3, 4}}.init(tl::random::key(0));
  EXPECT_EQ(ln.names(), (std::vector<std::string>{"weight", "bias"}));
  EXPECT_EQ(values(ln.at("weight")), std::vector<float>(12, 1.0f));
  EXPECT_EQ(values(ln.at("bias")), std::vector<float>(12, 0.0f));
  EXPECT_EQ(ln.at("weight").shape(), (tl::Shape{3, 4}));
  EXPECT_TRUE(nn::LayerNorm({.normalized_shape = {4}, .elementwise_affine = false}).init(tl::random::key(0)).empty());
  const nn::Params rms = nn::RMSNorm{.normalized_shape = {6}}.init(tl::random::key(0));
  EXPECT_EQ(rms.names(), (std::vector<std::string>{"weight"}));
  EXPECT_EQ(values(rms.at("weight")), std::vector<float>(6, 1.0f));
}

TEST(Layers, ApplyIsTheHandWrittenComputation) {
  const auto keys = tl::random::split(tl::random::key(11), 4);
  const Tensor x = tl::random::normal(keys[0], {3, 5, 6});

  const nn::Linear lin{.in_features = 6, .out_features = 4};
  const nn::Params pl = lin.init(keys[1]);
  expect_bit_equal(lin(pl, x), tl::matmul(x, tl::transpose(pl.at("weight"))) + pl.at("bias"));

  const nn::MLP mlp{.sizes = {6, 7, 2}, .activation = [](const Tensor& t) { return tl::tanh(t); }};
  const nn::Params pm = mlp.init(keys[2]);
  const Tensor h = tl::tanh(tl::matmul(x, tl::transpose(pm.at("layers.0.weight"))) + pm.at("layers.0.bias"));
  expect_bit_equal(mlp(pm, x), tl::matmul(h, tl::transpose(pm.at("layers.1.weight"))) + pm.at("layers.1.bias"));

  // Non-trivial affine parameters, so that they take part.
  const nn::Params pn{{"weight", tl::random::normal(keys[3], {5, 6})}, {"bias", tl::full({5, 6}, 0.25f)}};
  const nn::LayerNorm ln{.normalized_shape = {5, 6}};
  const tl::Axes axes{1, 2};
  const Tensor by_hand =
      (x - tl::mean(x, axes, true)) * tl::rsqrt(tl::var(x, axes, true) + 1e-5) * pn.at("weight") + pn.at("bias");
  expect_bit_equal(ln(pn, x), by_hand);

  const nn::Params pr{{"weight", pn.at("weight").astype(tl::DType::f32)}};
  const nn::RMSNorm rms{.normalized_shape = {5, 6}, .eps = 1e-5};
  expect_bit_equal(rms(pr, x), x * tl::rsqrt(tl::mean(tl::square(x), axes, true) + 1e-5) * pr.at("weight"));

  const nn::Embedding emb{.num_embeddings = 10, .embedding_dim = 3};
  const nn::Params pe = emb.init(keys[1]);
  const Tensor idx = tl::tensor(std::vector<std::int32_t>{4, 0, 9, 4}, {2, 2});
  const Tensor e = emb(pe, idx);
  EXPECT_EQ(e.shape(), (tl::Shape{2, 2, 3}));
  const std::vector<float> w = values(pe.at("weight")), ev = values(e);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(ev[static_cast<std::size_t>(i)], w[static_cast<std::size_t>(4 * 3 + i)]);
    EXPECT_EQ(ev[static_cast<std::size_t>(6 + i)], w[static_cast<std::size_t>(9 * 3 + i)]);
  }
}

TEST(Layers, LayerNormOutputHasZeroMeanAndUnitVariance) {
  const nn::LayerNorm ln{.normalized_shape = {64}};
  const Tensor x = tl::random::normal(tl::random::key(5), {4, 64}) * 3.0f + 2.0f;
  const Tensor y = ln(ln.init(tl::random::key(0)), x);
  EXPECT_EQ(y.dtype(), tl::DType::f32);  // eps, a double, does not promote
  for (float m : values(tl::mean(y, -1))) EXPECT_NEAR(m, 0.0f, 1e-5f);
  for (float v : values(tl::var(y, -1))) EXPECT_NEAR(v, 1.0f, 1e-3f);
}

TEST(Layers, MlpGradientHasItsParamsNamesAndMatchesFiniteDifferences) {
  const nn::MLP mlp{.sizes = {3, 5, 2}, .activation = [](const Tensor& t) { return tl::tanh(t); }};
  const auto keys = tl::random::split(tl::random::key(21), 2);
  const nn::Params p = mlp.init(keys[0]);
  const Tensor x = tl::random::normal(keys[1], {4, 3});
  auto loss = [&](const nn::Params& q, const Tensor& in) { return tl::sum(tl::square(mlp(q, in))); };
  const nn::Params g = tl::grad(loss)(p, x);
  ASSERT_EQ(g.names(), p.names());
  for (const auto& [name, t] : p) EXPECT_EQ(g.at(name).shape(), t.shape()) << name;

  // Central differences in f64, a few elements of each parameter.
  const Tensor x64 = x.astype(tl::DType::f64);
  tltest::expect_grad_matches_differences(p, g, [&](const nn::Params& q) { return loss(q, x64).item<double>(); }, 1e-4);
}

TEST(Layers, BadInputNamesTheLayer) {
  const nn::Linear lin{.in_features = 3, .out_features = 2};
  const nn::Params p = lin.init(tl::random::key(0));
  tltest::expect_error<tl::ShapeError>([&] { lin(p, tl::ones({2, 4})); }, "nn::Linear", "2x4", "in_features = 3");
  tltest::expect_error<tl::ValueError>([&] { nn::Linear{.in_features = 0, .out_features = 2}.init(tl::random::key(0)); },
                                       "nn::Linear", "in_features");
  tltest::expect_error<tl::ValueError>([&] { nn::MLP{.sizes = {3}}.init(tl::random::key(0)); }, "nn::MLP",
                                       "at least 2 sizes");
  tltest::expect_error<tl::ShapeError>(
      [&] { nn::LayerNorm{.normalized_shape = {4}}(nn::LayerNorm{.normalized_shape = {4}}.init({}), tl::ones({4, 3})); },
      "nn::LayerNorm", "4x3");
  tltest::expect_error<tl::ValueError>([&] { nn::RMSNorm{.normalized_shape = {}}.init({}); }, "nn::RMSNorm",
                                       "normalized_shape");
  tltest::expect_error<tl::ValueError>([&] { nn::Embedding{.num_embeddings = 0, .embedding_dim = 2}.init({}); },
                                       "nn::Embedding");
  // A missing parameter is Params' error, naming it.
  EXPECT_THROW(lin(nn::Params{{"weight", p.at("weight")}}, tl::ones({1, 3})), tl::ValueError);
}

}  // namespace
