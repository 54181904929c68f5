// Elementwise fusion: which ops it groups, and that the fused program gives the
// bits of the unfused one (same kernels, chunk by chunk).
#include <gtest/gtest.h>

#include "interp/fusion.hpp"
#include "interp/interpreter.hpp"
#include "ir/builder.hpp"
#include "tlaloc/tlaloc.hpp"

namespace tl = tlaloc;
using tl::ir::TensorType;

namespace {

using Body = std::function<std::vector<tl::Tensor>(std::span<const tl::Tensor>)>;

int fusions(const tl::ir::Function& f) {
  int n = 0;
  for (const auto& op : f.body.ops) n += tl::interp::is_fusion(op);
  return n;
}

// A chain of six elementwise ops, with a scalar and an intermediate used later.
std::vector<tl::Tensor> chain(std::span<const tl::Tensor> a) {
  const tl::Tensor t = tl::tanh(a[0] * 0.5f + a[1]);
  const tl::Tensor y = tl::exp(-t) * tl::sigmoid(a[1]);
  return {y - t, tl::sum(t)};
}

void expect_same_bits(std::int64_t n, int threads) {
  tl::set_num_threads(threads);
  const auto ks = tl::random::split(tl::random::key(7), 2);
  const tl::Tensor x = tl::random::normal(ks[0], {n});
  const tl::Tensor z = tl::random::normal(ks[1], {n});
  const std::vector<TensorType> params(2, {tl::DType::f32, {n}});
  const tl::ir::Function f = tl::ir::trace("chain", params, chain);
  const tl::interp::Program fused(f);
  const tl::interp::Program plain(f, {.fuse = false});
  EXPECT_EQ(fusions(fused.entry()), 1);
  EXPECT_EQ(fusions(plain.entry()), 0);
  const auto a = fused.run({x, z});
  const auto b = plain.run({x, z});
  const auto e = chain(std::vector<tl::Tensor>{x, z});
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].to_vector<float>(), b[i].to_vector<float>()) << "result " << i;
    EXPECT_EQ(a[i].to_vector<float>(), e[i].to_vector<float>()) << "result " << i << " against eager";
  }
}

TEST(Fusion, SameBitsAsUnfusedAndEager) {
  expect_same_bits(100003, 1);  // not a multiple of the chunk: a short last chunk
  expect_same_bits(100003, 2);
  expect_same_bits(1 << 17, 2);
}

TEST(Fusion, LeavesSmallTensorsAndOtherOpsAlone) {
  const tl::ir::Function small =
      tl::ir::trace("small", std::vector<TensorType>(2, {tl::DType::f32, {64}}), chain);
  EXPECT_EQ(fusions(tl::interp::fuse(small)), 0);
  // A matmul between elementwise ops splits them into two groups.
  const std::int64_t n = 512;
  const tl::ir::Function f =
      tl::ir::trace("mm", std::vector<TensorType>{{tl::DType::f32, {n, n}}}, [](auto a) {
        const tl::Tensor h = tl::exp(tl::tanh(a[0]));
        return std::vector<tl::Tensor>{tl::sigmoid(tl::neg(tl::matmul(h, h)))};
      });
  const tl::ir::Function g = tl::interp::fuse(f);
  EXPECT_EQ(fusions(g), 2);
  tl::ir::verify(g);
  const tl::Tensor x = tl::random::normal(tl::random::key(1), {n, n});
  EXPECT_EQ(tl::interp::Program(f).run({x})[0].to_vector<float>(),
            tl::interp::Program(f, {.fuse = false}).run({x})[0].to_vector<float>());
}

}  // namespace
