// DCE, CSE, constant folding and simplification: what they remove, and that the
// optimized program computes the same bits.
#include <gtest/gtest.h>

#include "interp/interpreter.hpp"
#include "ir/builder.hpp"
#include "ir/passes.hpp"
#include "tlaloc/tlaloc.hpp"

namespace tl = tlaloc;
using tl::ir::Function;
using tl::ir::TensorType;

namespace {

using Body = std::function<std::vector<tl::Tensor>(std::span<const tl::Tensor>)>;

Function trace1(const Body& body, TensorType t = {tl::DType::f32, {3}}) {
  return tl::ir::trace("f", std::vector<TensorType>{t}, body);
}

int count(const Function& f, std::string_view name) {
  int n = 0;
  for (const auto& op : f.body.ops) n += op.name() == name;
  return n;
}

std::vector<float> run(const Function& f, const tl::Tensor& x) {
  return tl::interp::run(f, std::vector<tl::Tensor>{x})[0].to_vector<float>();
}

const tl::Tensor kX = tl::tensor({-1.5f, 0.f, 2.f}, {3});

TEST(Passes, DceRemovesUnusedOps) {
  const Function f = trace1([](auto a) {
    (void)tl::exp(a[0]);
    return std::vector<tl::Tensor>{tl::neg(a[0])};
  });
  EXPECT_EQ(count(f, "exp"), 1);
  const Function g = tl::ir::dce(f);
  EXPECT_EQ(count(g, "exp"), 0);
  EXPECT_EQ(count(g, "neg"), 1);
  EXPECT_EQ(run(g, kX), (std::vector<float>{1.5f, -0.f, -2.f}));
}

TEST(Passes, CseMergesRepeatedOps) {
  const Function f = trace1([](auto a) { return std::vector<tl::Tensor>{tl::exp(a[0]) + tl::exp(a[0])}; });
  const Function g = tl::ir::cse(f);
  EXPECT_EQ(count(f, "exp"), 2);
  EXPECT_EQ(count(g, "exp"), 1);
  EXPECT_EQ(run(g, kX), run(f, kX));
}

TEST(Passes, FoldingComputesConstantsWithTheSameKernels) {
  const tl::Tensor c = tl::tensor({1.f, 2.f, 3.f}, {3});
  const Function f = trace1([&](auto a) { return std::vector<tl::Tensor>{a[0] * tl::exp(c)}; });
  const Function g = tl::ir::dce(tl::ir::fold_constants(f));
  EXPECT_EQ(count(g, "exp"), 0);
  EXPECT_EQ(run(g, kX), (kX * tl::exp(c)).to_vector<float>());
}

TEST(Passes, SimplifyRemovesOnlyExactIdentities) {
  const tl::Tensor one = tl::ones({3});
  const tl::Tensor zero = tl::zeros({3});
  const tl::Tensor minus_zero = tl::tensor({-0.f, -0.f, -0.f}, {3});
  const Function f = trace1([&](auto a) {
    const tl::Tensor y = tl::neg(tl::neg((a[0] * one - zero) + minus_zero));
    return std::vector<tl::Tensor>{y, a[0] + zero};  // x + 0 is not x when x is -0
  });
  const Function g = tl::ir::dce(tl::ir::simplify(f));
  EXPECT_EQ(count(g, "mul") + count(g, "sub") + count(g, "neg"), 0);
  EXPECT_EQ(count(g, "add"), 1);
  EXPECT_EQ(g.body.results[0], g.body.args[0]);
  const tl::Tensor nz = tl::tensor({-0.f}, {1});
  const Function h = tl::ir::simplify(
      trace1([&](auto a) { return std::vector<tl::Tensor>{a[0] + tl::zeros({1})}; }, {tl::DType::f32, {1}}));
  EXPECT_TRUE(std::signbit(tl::interp::run(h, std::vector<tl::Tensor>{nz})[0].item<float>()) == false);
}

TEST(Passes, OptimizedMlpGivesTheSameBits) {
  const auto ks = tl::random::split(tl::random::key(1), 3);
  const tl::Tensor x = tl::random::normal(ks[0], {5, 4});
  const tl::Tensor w = tl::random::normal(ks[1], {4, 6});
  const Function f = tl::ir::trace("mlp", std::vector<TensorType>{{tl::DType::f32, {5, 4}}}, [&](auto a) {
    const tl::Tensor h = tl::relu(tl::matmul(a[0], w) * 1.0f);
    return std::vector<tl::Tensor>{tl::sum(tl::tanh(h) + tl::tanh(h), 1)};
  });
  const Function g = tl::ir::optimize(f);
  EXPECT_LT(g.body.ops.size(), f.body.ops.size());
  EXPECT_EQ(tl::interp::run(g, std::vector<tl::Tensor>{x})[0].to_vector<float>(),
            tl::interp::run(f, std::vector<tl::Tensor>{x})[0].to_vector<float>());
}

}  // namespace
