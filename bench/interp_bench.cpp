// The interpreter against eager calls: an MLP forward (784-512-512-10) at batch 1
// and 256, and a chain of six elementwise ops on 16M elements run eagerly,
// interpreted without fusion and interpreted with fusion. bench/interp_ratio.py
// prints the ratios (bench/run.sh runs both).
#include <benchmark/benchmark.h>

#include <tlaloc/tlaloc.hpp>

#include "interp/interpreter.hpp"
#include "ir/builder.hpp"

namespace tl = tlaloc;
using tl::ir::TensorType;

namespace {

struct Mlp {
  tl::Tensor w1, b1, w2, b2, w3, b3;
  explicit Mlp(std::int64_t seed) {
    const auto k = tl::random::split(tl::random::key(std::uint64_t(seed)), 6);
    w1 = tl::random::normal(k[0], {784, 512}) * 0.03f;
    b1 = tl::random::normal(k[1], {512}) * 0.1f;
    w2 = tl::random::normal(k[2], {512, 512}) * 0.04f;
    b2 = tl::random::normal(k[3], {512}) * 0.1f;
    w3 = tl::random::normal(k[4], {512, 10}) * 0.04f;
    b3 = tl::random::normal(k[5], {10}) * 0.1f;
  }
  tl::Tensor operator()(const tl::Tensor& x) const {
    const tl::Tensor h = tl::relu(tl::matmul(x, w1) + b1);
    const tl::Tensor g = tl::relu(tl::matmul(h, w2) + b2);
    return tl::matmul(g, w3) + b3;
  }
};

const Mlp& mlp() {
  static const Mlp m(3);
  return m;
}

void BM_mlp_eager(benchmark::State& state) {
  tl::set_num_threads(2);
  const tl::Tensor x = tl::random::normal(tl::random::key(9), {state.range(0), 784});
  for (auto _ : state) benchmark::DoNotOptimize(mlp()(x).raw_data());
}

void BM_mlp_interp(benchmark::State& state) {
  tl::set_num_threads(2);
  const std::int64_t batch = state.range(0);
  const tl::Tensor x = tl::random::normal(tl::random::key(9), {batch, 784});
  const tl::interp::Program prog(tl::ir::trace("mlp", std::vector<TensorType>{{tl::DType::f32, {batch, 784}}},
                                               [](auto a) { return std::vector<tl::Tensor>{mlp()(a[0])}; }));
  for (auto _ : state) benchmark::DoNotOptimize(prog.run({x})[0].raw_data());
}

constexpr std::int64_t kChain = std::int64_t(1) << 24;

// Six ops, three of them transcendental (compute-bound), and six cheap ones
// (memory-bound), where fusion saves the most.
tl::Tensor chain(const tl::Tensor& x, const tl::Tensor& z) {
  const tl::Tensor t = tl::tanh(x * 0.5f + z);
  return tl::exp(-t) * tl::sigmoid(z);
}
tl::Tensor cheap_chain(const tl::Tensor& x, const tl::Tensor& z) {
  const tl::Tensor t = tl::relu(x * 0.5f + z);
  return tl::abs(t * z - x);
}

using Chain = tl::Tensor (*)(const tl::Tensor&, const tl::Tensor&);

void run_eager(benchmark::State& state, Chain f) {
  tl::set_num_threads(int(state.range(0)));
  const tl::Tensor x = tl::random::normal(tl::random::key(1), {kChain});
  const tl::Tensor z = tl::random::normal(tl::random::key(2), {kChain});
  for (auto _ : state) benchmark::DoNotOptimize(f(x, z).raw_data());
}

void run_program(benchmark::State& state, Chain f, bool fuse) {
  tl::set_num_threads(int(state.range(0)));
  const tl::Tensor x = tl::random::normal(tl::random::key(1), {kChain});
  const tl::Tensor z = tl::random::normal(tl::random::key(2), {kChain});
  const tl::interp::Program prog(
      tl::ir::trace("chain", std::vector<TensorType>(2, {tl::DType::f32, {kChain}}),
                    [f](auto a) { return std::vector<tl::Tensor>{f(a[0], a[1])}; }),
      {.fuse = fuse});
  for (auto _ : state) benchmark::DoNotOptimize(prog.run({x, z})[0].raw_data());
}
void BM_chain_eager(benchmark::State& state) { run_eager(state, chain); }
void BM_chain_unfused(benchmark::State& state) { run_program(state, chain, false); }
void BM_chain_fused(benchmark::State& state) { run_program(state, chain, true); }
void BM_cheap_chain_eager(benchmark::State& state) { run_eager(state, cheap_chain); }
void BM_cheap_chain_unfused(benchmark::State& state) { run_program(state, cheap_chain, false); }
void BM_cheap_chain_fused(benchmark::State& state) { run_program(state, cheap_chain, true); }

BENCHMARK(BM_mlp_eager)->Arg(1)->Arg(256)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_mlp_interp)->Arg(1)->Arg(256)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_chain_eager)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_chain_unfused)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_chain_fused)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_cheap_chain_eager)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_cheap_chain_unfused)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_cheap_chain_fused)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
