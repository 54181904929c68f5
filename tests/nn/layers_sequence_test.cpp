// Sequence layers of tl::nn: GRU and DecoderLM names and shapes, the GRU's scan equal
// to the same equations unrolled in C++ (bit for bit), GRU gradients against finite
// differences, the LM's causality, and tl::grad of a next-token loss. The match with
// torch.nn.GRU is the oracle lane's (tests/oracle/layers_sequence_cases.cpp).
#include <gtest/gtest.h>

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

TEST(LayersSequence, NamesAndShapes) {
  const nn::GRU gru{.input_size = 3, .hidden_size = 5};
  const nn::Params p = gru.init(tl::random::key(0));
  EXPECT_EQ(p.names(), (std::vector<std::string>{"weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"}));
  EXPECT_EQ(p.at("weight_ih_l0").shape(), (tl::Shape{15, 3}));
  EXPECT_EQ(p.at("weight_hh_l0").shape(), (tl::Shape{15, 5}));
  EXPECT_EQ(p.at("bias_hh_l0").shape(), (tl::Shape{15}));
  const float bound = 1.0f / std::sqrt(5.0f);
  for (const auto& entry : p)
    for (float v : values(entry.second)) EXPECT_LE(std::abs(v), bound) << entry.first;
  const nn::GRU::Result r = gru.apply(p, tl::ones({2, 4, 3}), tl::zeros({2, 5}));
  EXPECT_EQ(r.outputs.shape(), (tl::Shape{2, 4, 5}));
  EXPECT_EQ(r.h_last.shape(), (tl::Shape{2, 5}));

  const nn::DecoderLM lm{.vocab = 11, .d_model = 8, .num_layers = 2, .num_heads = 2, .num_kv_heads = 1, .d_ff = 12};
  const nn::Params pl = lm.init(tl::random::key(1));
  const std::vector<std::string> names = pl.names();
  EXPECT_EQ(names.front(), "embed.weight");
  EXPECT_EQ(names.back(), "lm_head.weight");
  EXPECT_TRUE(pl.contains("blocks.0.attn.q_proj.weight"));
  EXPECT_TRUE(pl.contains("blocks.1.mlp.down_proj.weight"));
  EXPECT_TRUE(pl.contains("norm.weight"));
  EXPECT_EQ(pl.size(), 1 + 2 * 9 + 1 + 1u);
  EXPECT_EQ(pl.at("embed.weight").shape(), (tl::Shape{11, 8}));
  EXPECT_EQ(pl.at("lm_head.weight").shape(), (tl::Shape{11, 8}));
  const Tensor tokens = tl::random::randint(tl::random::key(2), {3, 6}, 0, 11);
  EXPECT_EQ(lm(pl, tokens).shape(), (tl::Shape{3, 6, 11}));
}

TEST(LayersSequence, GruScanEqualsUnrolledLoop) {
  const nn::GRU gru{.input_size = 4, .hidden_size = 6};
  const auto k = tl::random::split(tl::random::key(3), 3);
  const nn::Params p = gru.init(k[0]);
  const std::int64_t b = 2, t = 5, hs = 6;
  const Tensor x = tl::random::normal(k[1], {b, t, 4});
  const Tensor h0 = tl::random::normal(k[2], {b, hs});
  const nn::GRU::Result r = gru.apply(p, x, h0);

  // PyTorch's equations, one step at a time in C++ (input projections of all steps
  // computed at once, as the layer does).
  const Tensor gi = tl::matmul(tl::permute(x, {1, 0, 2}), tl::transpose(p.at("weight_ih_l0"))) + p.at("bias_ih_l0");
  Tensor h = h0;
  std::vector<Tensor> outs;
  for (std::int64_t s = 0; s < t; ++s) {
    const Tensor g = tl::reshape(tl::slice(gi, 0, s, s + 1), {b, 3 * hs});
    const Tensor gh = tl::matmul(h, tl::transpose(p.at("weight_hh_l0"))) + p.at("bias_hh_l0");
    const Tensor rg = tl::sigmoid(tl::slice(g, 1, 0, hs) + tl::slice(gh, 1, 0, hs));
    const Tensor z = tl::sigmoid(tl::slice(g, 1, hs, 2 * hs) + tl::slice(gh, 1, hs, 2 * hs));
    const Tensor n = tl::tanh(tl::slice(g, 1, 2 * hs, 3 * hs) + rg * tl::slice(gh, 1, 2 * hs, 3 * hs));
    h = (1.0f - z) * n + z * h;
    outs.push_back(tl::reshape(h, {b, 1, hs}));
  }
  expect_bit_equal(r.outputs, tl::concat(outs, 1));
  expect_bit_equal(r.h_last, h);
}

TEST(LayersSequence, GruGradientMatchesFiniteDifferences) {
  const nn::GRU gru{.input_size = 3, .hidden_size = 4};
  const auto keys = tl::random::split(tl::random::key(4), 3);
  const nn::Params p = gru.init(keys[0]);
  const Tensor x = tl::random::normal(keys[1], {2, 5, 3});
  const Tensor h0 = tl::random::normal(keys[2], {2, 4});
  auto loss = [&gru](const nn::Params& q, const Tensor& in, const Tensor& h) {
    const nn::GRU::Result r = gru.apply(q, in, h);
    return tl::sum(tl::square(r.outputs)) + tl::sum(r.h_last);
  };
  const nn::Params g = tl::grad(loss)(p, x, h0);
  ASSERT_EQ(g.names(), p.names());

  nn::Params p64;
  for (const auto& [name, t] : p) p64.set(name, t.astype(tl::DType::f64));
  const Tensor x64 = x.astype(tl::DType::f64), h64 = h0.astype(tl::DType::f64);
  const double eps = 1e-6;
  for (const auto& entry : p) {
    const std::string& name = entry.first;
    const Tensor& t = entry.second;
    const std::vector<double> base = t.astype(tl::DType::f64).to_vector<double>();
    const std::vector<float> gv = values(g.at(name));
    for (std::size_t i : {std::size_t{0}, base.size() / 2, base.size() - 1}) {
      auto at = [&](double delta) {
        std::vector<double> v = base;
        v[i] += delta;
        nn::Params q = p64;
        q.set(name, tl::tensor(v, t.shape()));
        return loss(q, x64, h64).item<double>();
      };
      const double fd = (at(eps) - at(-eps)) / (2 * eps);
      EXPECT_NEAR(gv[i], fd, 1e-4 * (1 + std::abs(fd))) << name << "[" << i << "]";
    }
  }
}

TEST(LayersSequence, LmLogitsAtTDoNotDependOnLaterTokens) {
  const nn::DecoderLM lm{.vocab = 13, .d_model = 8, .num_layers = 2, .num_heads = 2, .num_kv_heads = 2, .d_ff = 16};
  const auto k = tl::random::split(tl::random::key(5), 3);
  const nn::Params p = lm.init(k[0]);
  const std::int64_t t = 7, cut = 4;
  const Tensor tokens = tl::random::randint(k[1], {2, t}, 0, 13);
  const Tensor other = tl::concat({tl::slice(tokens, 1, 0, cut), tl::random::randint(k[2], {2, t - cut}, 0, 13)}, 1);
  const Tensor a = lm(p, tokens), b = lm(p, other);
  expect_bit_equal(tl::slice(a, 1, 0, cut), tl::slice(b, 1, 0, cut));
  EXPECT_NE(values(tl::slice(a, 1, cut, t)), values(tl::slice(b, 1, cut, t)));
}

TEST(LayersSequence, GradOfNextTokenLossHasTheModelsNames) {
  const nn::DecoderLM lm{.vocab = 10, .d_model = 8, .num_layers = 1, .num_heads = 2, .num_kv_heads = 1, .d_ff = 12};
  const auto k = tl::random::split(tl::random::key(6), 2);
  const nn::Params p = lm.init(k[0]);
  constexpr std::int64_t b = 2, t = 6;
  const Tensor tokens = tl::random::randint(k[1], {b, t + 1}, 0, 10);
  auto loss = [&lm](const nn::Params& q, const Tensor& seq) {
    const Tensor logits = lm(q, tl::slice(seq, 1, 0, t));  // predict token s + 1 from tokens 0..s
    return nn::cross_entropy(tl::reshape(logits, {b * t, 10}), tl::reshape(tl::slice(seq, 1, 1, t + 1), {b * t}));
  };
  const nn::Params g = tl::grad(loss)(p, tokens);
  EXPECT_EQ(g.names(), p.names());
  for (const auto& [name, gt] : g) {
    EXPECT_EQ(gt.shape(), p.at(name).shape()) << name;
    for (float v : values(gt)) ASSERT_TRUE(std::isfinite(v)) << name;
  }
  EXPECT_TRUE(std::isfinite(loss(p, tokens).item<float>()));
}

TEST(LayersSequence, JitOfTheGruEqualsEager) {
  const nn::GRU gru{.input_size = 3, .hidden_size = 4};
  const auto keys = tl::random::split(tl::random::key(7), 3);
  const nn::Params p = gru.init(keys[0]);
  const Tensor x = tl::random::normal(keys[1], {2, 6, 3});
  const Tensor h0 = tl::random::normal(keys[2], {2, 4});
  const auto f = [&gru](const nn::Params& q, const Tensor& in, const Tensor& h) { return gru.apply(q, in, h).outputs; };
  expect_bit_equal(tl::jit(f)(p, x, h0), f(p, x, h0));
  const auto loss = [&f](const nn::Params& q, const Tensor& in, const Tensor& h) {
    return tl::sum(tl::square(f(q, in, h)));
  };
  const nn::Params ge = tl::grad(loss)(p, x, h0);
  const nn::Params gj = tl::jit([&loss](const nn::Params& q, const Tensor& in, const Tensor& h) {
    return tl::grad(loss)(q, in, h);
  })(p, x, h0);
  ASSERT_EQ(gj.names(), ge.names());
  for (const auto& [name, t] : ge) expect_bit_equal(gj.at(name), t);
}

TEST(LayersSequence, BadInputNamesTheLayer) {
  tltest::expect_error<tl::ValueError>([] { nn::GRU{.input_size = 0, .hidden_size = 4}.init({}); }, "nn::GRU",
                                       "input_size = 0");
  const nn::GRU gru{.input_size = 3, .hidden_size = 4};
  const nn::Params p = gru.init(tl::random::key(8));
  tltest::expect_error<tl::ShapeError>([&] { gru.apply(p, tl::ones({2, 5, 2}), tl::zeros({2, 4})); }, "nn::GRU",
                                       "input_size = 3");
  tltest::expect_error<tl::ShapeError>([&] { gru.apply(p, tl::ones({2, 5, 3}), tl::zeros({3, 4})); }, "nn::GRU",
                                       "h0");
  const nn::DecoderLM lm{.vocab = 5, .d_model = 4, .num_layers = 1, .num_heads = 1, .d_ff = 8};
  tltest::expect_error<tl::ShapeError>([&] { lm(lm.init(tl::random::key(9)), tl::zeros({2, 3, 1}, tl::DType::i32)); },
                                       "nn::DecoderLM", "[B, T]");
}

}  // namespace
