// Gradients of an MLP (784-512-512-10, batch 256, f32) with a softmax
// cross-entropy loss, against the forward pass alone; the latency of a first call
// (trace, differentiate, optimize, plan); and what a cached call costs on top of
// running its program directly. bench/ad_ratio.py prints the ratios, and against
// PyTorch's forward + backward (bench/ad_torch_bench.py); bench/run.sh runs all.
//
// The thread count is the argument of each benchmark (/2): the PyTorch side is told
// the same one.
#include <benchmark/benchmark.h>

#include <tlaloc/tlaloc.hpp>

#include "ad/engine.hpp"
#include "interp/interpreter.hpp"
#include "ir/passes.hpp"

namespace tl = tlaloc;
using tl::Tensor;

namespace {

constexpr std::int64_t kBatch = 256;

std::vector<Tensor> mlp_params() {
  const auto k = tl::random::split(tl::random::key(3), 6);
  return {tl::random::normal(k[0], {784, 512}) * 0.03f, tl::random::normal(k[1], {512}) * 0.1f,
          tl::random::normal(k[2], {512, 512}) * 0.04f, tl::random::normal(k[3], {512}) * 0.1f,
          tl::random::normal(k[4], {512, 10}) * 0.04f,  tl::random::normal(k[5], {10}) * 0.1f};
}

// The mean over the batch of -log softmax(logits)[label].
Tensor mlp_loss(const std::vector<Tensor>& p, const Tensor& x, const Tensor& labels) {
  const Tensor h = tl::relu(tl::matmul(x, p[0]) + p[1]);
  const Tensor g = tl::relu(tl::matmul(h, p[2]) + p[3]);
  const Tensor logits = tl::matmul(g, p[4]) + p[5];
  return -tl::mean(tl::sum(tl::log_softmax(logits) * tl::one_hot(labels, 10), -1));
}

struct Data {
  std::vector<Tensor> params = mlp_params();
  Tensor x = tl::random::normal(tl::random::key(9), {kBatch, 784});
  Tensor labels = tl::random::randint(tl::random::key(10), {kBatch}, 0, 10, tl::DType::i64);
};
const Data& data() {
  static const Data d;
  return d;
}

void BM_mlp_loss_forward(benchmark::State& state) {
  tl::set_num_threads(int(state.range(0)));
  const Data& d = data();
  const auto f = tl::jit(mlp_loss);
  for (auto _ : state) benchmark::DoNotOptimize(f(d.params, d.x, d.labels).raw_data());
}

void BM_mlp_value_and_grad(benchmark::State& state) {
  tl::set_num_threads(int(state.range(0)));
  const Data& d = data();
  const auto f = tl::jit(tl::value_and_grad(mlp_loss));
  for (auto _ : state) benchmark::DoNotOptimize(f(d.params, d.x, d.labels).second[0].raw_data());
}

// The program tl::jit(g) runs for arguments `args`, traced and optimized the same way
// (src/ad/api.cpp run_jit), to run directly without the call's own work.
template <class G>
tl::interp::Program program_of(const G& g, const std::vector<Tensor>& args) {
  std::vector<tl::ir::TensorType> types;
  for (const Tensor& a : args) types.push_back({a.dtype(), a.shape()});
  const tl::ad::Traced t = tl::ad::trace("direct", types, g);
  return tl::interp::Program(tl::ir::optimize(t.f));
}

void BM_mlp_value_and_grad_program(benchmark::State& state) {
  tl::set_num_threads(int(state.range(0)));
  const Data& d = data();
  const auto vg = tl::value_and_grad(mlp_loss);
  std::vector<Tensor> args = d.params;
  args.push_back(d.x);
  args.push_back(d.labels);
  const tl::interp::Program prog = program_of(
      [&vg](std::span<const Tensor> a) {
        auto [v, g] = vg(std::vector<Tensor>(a.begin(), a.begin() + 6), a[6], a[7]);
        g.insert(g.begin(), v);
        return g;
      },
      args);
  for (auto _ : state) benchmark::DoNotOptimize(prog.run(args)[1].raw_data());
}

// A new tl::jit(tl::grad(mlp_loss)) each time: its first call traces, differentiates,
// optimizes, plans and runs once.
void BM_mlp_grad_first_call(benchmark::State& state) {
  tl::set_num_threads(int(state.range(0)));
  const Data& d = data();
  for (auto _ : state) {
    const auto f = tl::jit(tl::grad(mlp_loss));
    benchmark::DoNotOptimize(f(d.params, d.x, d.labels)[0].raw_data());
  }
}

// The first call's own work without its run: trace, differentiate, optimize, plan.
void BM_mlp_grad_compile(benchmark::State& state) {
  tl::set_num_threads(int(state.range(0)));
  const Data& d = data();
  std::vector<Tensor> args = d.params;
  args.push_back(d.x);
  args.push_back(d.labels);
  for (auto _ : state) {
    const auto g = tl::grad(mlp_loss);
    const tl::interp::Program prog = program_of(
        [&g](std::span<const Tensor> a) { return g(std::vector<Tensor>(a.begin(), a.begin() + 6), a[6], a[7]); },
        args);
    benchmark::DoNotOptimize(&prog);
  }
}

void BM_mlp_grad_cached_call(benchmark::State& state) {
  tl::set_num_threads(int(state.range(0)));
  const Data& d = data();
  const auto f = tl::jit(tl::grad(mlp_loss));
  for (auto _ : state) benchmark::DoNotOptimize(f(d.params, d.x, d.labels)[0].raw_data());
}

// Tiny inputs (8 elements), where the call's own work is all there is to see.
Tensor tiny_loss(const Tensor& x) { return tl::sum(tl::tanh(x) * x); }

void BM_tiny_grad_cached_call(benchmark::State& state) {
  tl::set_num_threads(int(state.range(0)));
  const Tensor x = tl::random::normal(tl::random::key(4), {8});
  const auto f = tl::jit(tl::grad(tiny_loss));
  for (auto _ : state) benchmark::DoNotOptimize(f(x).raw_data());
}

void BM_tiny_grad_program(benchmark::State& state) {
  tl::set_num_threads(int(state.range(0)));
  const Tensor x = tl::random::normal(tl::random::key(4), {8});
  const auto g = tl::grad(tiny_loss);
  const tl::interp::Program prog =
      program_of([&g](std::span<const Tensor> a) { return std::vector<Tensor>{g(a[0])}; }, {x});
  const std::vector<Tensor> args{x};
  for (auto _ : state) benchmark::DoNotOptimize(prog.run(args)[0].raw_data());
}

#define AD_BENCH(fn, unit) BENCHMARK(fn)->Arg(2)->Unit(benchmark::unit)->UseRealTime()
AD_BENCH(BM_mlp_loss_forward, kMicrosecond);
AD_BENCH(BM_mlp_value_and_grad, kMicrosecond);
AD_BENCH(BM_mlp_value_and_grad_program, kMicrosecond);
AD_BENCH(BM_mlp_grad_first_call, kMillisecond);
AD_BENCH(BM_mlp_grad_compile, kMillisecond);
AD_BENCH(BM_mlp_grad_cached_call, kMicrosecond);
AD_BENCH(BM_tiny_grad_cached_call, kNanosecond);
AD_BENCH(BM_tiny_grad_program, kNanosecond);

}  // namespace

BENCHMARK_MAIN();
