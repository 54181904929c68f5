// Attention layers of tl::nn: names and shapes, rotary embedding against its formula,
// the causal mask (outputs before t do not see inputs after t, bit for bit), grouped-
// query attention equal to full attention with repeated k/v weights, gradients of a
// TransformerBlock against finite differences, jit equal to eager, and bad input.
// The match with a PyTorch implementation is the oracle lane's
// (tests/oracle/layers_attention_cases.cpp).
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

void expect_near(const Tensor& a, const Tensor& b, float tol) {
  ASSERT_EQ(a.shape(), b.shape());
  const std::vector<float> va = values(a), vb = values(b);
  for (std::size_t i = 0; i < va.size(); ++i) EXPECT_NEAR(va[i], vb[i], tol) << "at " << i;
}

TEST(LayersAttention, NamesAndShapes) {
  const nn::MultiHeadAttention mha{.d_model = 16, .num_heads = 4, .num_kv_heads = 2};
  const nn::Params p = mha.init(tl::random::key(0));
  EXPECT_EQ(p.names(), (std::vector<std::string>{"q_proj.weight", "q_proj.bias", "k_proj.weight", "k_proj.bias",
                                                 "v_proj.weight", "v_proj.bias", "o_proj.weight", "o_proj.bias"}));
  EXPECT_EQ(p.at("q_proj.weight").shape(), (tl::Shape{16, 16}));
  EXPECT_EQ(p.at("k_proj.weight").shape(), (tl::Shape{8, 16}));  // 2 kv heads of size 4
  EXPECT_EQ(p.at("v_proj.bias").shape(), (tl::Shape{8}));
  EXPECT_EQ(mha(p, tl::ones({2, 5, 16})).shape(), (tl::Shape{2, 5, 16}));

  const nn::TransformerBlock block{.d_model = 8, .num_heads = 2, .num_kv_heads = 1, .d_ff = 12};
  const nn::Params pb = block.init(tl::random::key(1));
  EXPECT_EQ(pb.names(), (std::vector<std::string>{"attn_norm.weight", "attn.q_proj.weight", "attn.k_proj.weight",
                                                  "attn.v_proj.weight", "attn.o_proj.weight", "mlp_norm.weight",
                                                  "mlp.gate_proj.weight", "mlp.up_proj.weight",
                                                  "mlp.down_proj.weight"}));
  EXPECT_EQ(pb.at("attn.k_proj.weight").shape(), (tl::Shape{4, 8}));
  EXPECT_EQ(pb.at("mlp.gate_proj.weight").shape(), (tl::Shape{12, 8}));
  EXPECT_EQ(pb.at("mlp.down_proj.weight").shape(), (tl::Shape{8, 12}));
  EXPECT_EQ(block(pb, tl::ones({3, 4, 8})).shape(), (tl::Shape{3, 4, 8}));
}

TEST(LayersAttention, RotaryRotatesHalvesByPositionTimesFrequency) {
  const int b = 1, t = 3, h = 2, d = 4;
  const Tensor x = tl::random::normal(tl::random::key(3), {b, t, h, d});
  const Tensor y = nn::apply_rotary(x, 2, 100.0);
  const std::vector<float> xv = values(x), yv = values(y);
  for (int ti = 0; ti < t; ++ti)
    for (int hi = 0; hi < h; ++hi)
      for (int i = 0; i < d / 2; ++i) {
        const double angle = (ti + 2) * std::pow(100.0, -2.0 * i / d);
        const std::size_t at = static_cast<std::size_t>((ti * h + hi) * d + i);
        const double x1 = xv[at], x2 = xv[at + d / 2];
        EXPECT_NEAR(yv[at], x1 * std::cos(angle) - x2 * std::sin(angle), 1e-5);
        EXPECT_NEAR(yv[at + d / 2], x2 * std::cos(angle) + x1 * std::sin(angle), 1e-5);
      }
  // Explicit positions equal to the offset form; position 0 is the identity.
  expect_bit_equal(nn::apply_rotary(x, tl::arange(2, 5), 100.0), y);
  expect_bit_equal(nn::apply_rotary(x, tl::tensor(std::vector<std::int64_t>{0, 0, 0}, {3})), x);
  // A rotation: the norm of each pair is kept.
  expect_near(tl::sum(tl::square(y), tl::Axes(3)), tl::sum(tl::square(x), tl::Axes(3)), 1e-5f);
}

TEST(LayersAttention, CausalOutputDoesNotSeeLaterInputs) {
  const nn::TransformerBlock block{.d_model = 8, .num_heads = 2, .d_ff = 16};
  const auto k = tl::random::split(tl::random::key(4), 3);
  const nn::Params p = block.init(k[0]);
  const int t = 6, cut = 3;
  const Tensor x = tl::random::normal(k[1], {2, t, 8});
  // Same first `cut` positions, different later ones.
  const Tensor x2 = tl::concat({tl::slice(x, 1, 0, cut), tl::random::normal(k[2], {2, t - cut, 8})}, 1);
  const Tensor y = block(p, x), y2 = block(p, x2);
  expect_bit_equal(tl::slice(y, 1, 0, cut), tl::slice(y2, 1, 0, cut));
  EXPECT_NE(values(tl::slice(y, 1, cut, t)), values(tl::slice(y2, 1, cut, t)));
  // Without the mask the first positions do see the later ones.
  const nn::MultiHeadAttention full{.d_model = 8, .num_heads = 2};
  const nn::Params pf = full.init(k[0]);
  EXPECT_NE(values(tl::slice(full(pf, x), 1, 0, cut)), values(tl::slice(full(pf, x2), 1, 0, cut)));
}

TEST(LayersAttention, GroupedQueryEqualsFullAttentionWithRepeatedKvWeights) {
  const std::int64_t d = 12, heads = 6, kv = 2, dh = d / heads;
  const nn::MultiHeadAttention gqa{.d_model = d, .num_heads = heads, .num_kv_heads = kv, .causal = true, .rotary = true};
  const nn::MultiHeadAttention mha{.d_model = d, .num_heads = heads, .causal = true, .rotary = true};
  const auto k = tl::random::split(tl::random::key(5), 2);
  const nn::Params pg = gqa.init(k[0]);
  // Query head h uses kv head h / (heads / kv): repeat each kv head's rows (and bias)
  // heads / kv times, in order.
  nn::Params pf;
  for (const auto& [name, t] : pg) {
    if (name.rfind("k_proj", 0) == 0 || name.rfind("v_proj", 0) == 0) {
      tl::Shape grouped = t.shape();
      grouped[0] = kv;
      grouped.insert(grouped.begin() + 1, dh);
      tl::Shape full = t.shape();
      full[0] = d;
      pf.set(name, tl::reshape(tl::repeat(tl::reshape(t, grouped), heads / kv, 0), full));
    } else {
      pf.set(name, t);
    }
  }
  const Tensor x = tl::random::normal(k[1], {2, 5, d});
  expect_near(gqa(pg, x), mha(pf, x), 1e-6f);
}

TEST(LayersAttention, BlockGradientMatchesFiniteDifferences) {
  const nn::TransformerBlock block{.d_model = 8, .num_heads = 2, .num_kv_heads = 1, .d_ff = 12};
  const auto keys = tl::random::split(tl::random::key(6), 2);
  const nn::Params p = block.init(keys[0]);
  const Tensor x = tl::random::normal(keys[1], {2, 4, 8});
  auto loss = [&](const nn::Params& q, const Tensor& in) { return tl::sum(tl::square(block(q, in))); };
  const nn::Params g = tl::grad(loss)(p, x);
  ASSERT_EQ(g.names(), p.names());

  // Central differences in f64, a few elements of each parameter.
  const Tensor x64 = x.astype(tl::DType::f64);
  tltest::expect_grad_matches_differences(p, g, [&](const nn::Params& q) { return loss(q, x64).item<double>(); }, 1e-4);
}

TEST(LayersAttention, JitOfTheBlockEqualsEager) {
  const nn::TransformerBlock block{.d_model = 8, .num_heads = 4, .num_kv_heads = 2, .d_ff = 16};
  const auto keys = tl::random::split(tl::random::key(7), 2);
  const nn::Params p = block.init(keys[0]);
  const Tensor x = tl::random::normal(keys[1], {2, 5, 8});
  const auto f = [&block](const nn::Params& q, const Tensor& in) { return block(q, in); };
  expect_bit_equal(tl::jit(f)(p, x), f(p, x));
  const auto loss = [&block](const nn::Params& q, const Tensor& in) { return tl::sum(tl::square(block(q, in))); };
  const nn::Params ge = tl::grad(loss)(p, x);
  const nn::Params gj = tl::jit([&loss](const nn::Params& q, const Tensor& in) { return tl::grad(loss)(q, in); })(p, x);
  ASSERT_EQ(gj.names(), ge.names());
  for (const auto& [name, t] : ge) expect_bit_equal(gj.at(name), t);
}

TEST(LayersAttention, BadInputNamesTheLayer) {
  tltest::expect_error<tl::ValueError>([] { nn::MultiHeadAttention{.d_model = 10, .num_heads = 4}.init({}); },
                                       "nn::MultiHeadAttention", "multiple of num_heads");
  tltest::expect_error<tl::ValueError>(
      [] { nn::MultiHeadAttention{.d_model = 12, .num_heads = 4, .num_kv_heads = 3}.init({}); },
      "nn::MultiHeadAttention", "num_kv_heads = 3");
  const nn::MultiHeadAttention mha{.d_model = 8, .num_heads = 2};
  const nn::Params p = mha.init(tl::random::key(0));
  tltest::expect_error<tl::ShapeError>([&] { mha(p, tl::ones({2, 8})); }, "nn::MultiHeadAttention", "2x8");
  tltest::expect_error<tl::ShapeError>([] { nn::apply_rotary(tl::ones({1, 2, 1, 3})); }, "nn::apply_rotary", "odd");
  tltest::expect_error<tl::ShapeError>([] { nn::apply_rotary(tl::ones({1, 2, 1, 4}), tl::arange(3)); },
                                       "nn::apply_rotary", "T = 2");
  tltest::expect_error<tl::ValueError>([] { nn::TransformerBlock{.d_model = 8, .num_heads = 2}.init({}); },
                                       "nn::TransformerBlock", "d_ff");
}

}  // namespace
