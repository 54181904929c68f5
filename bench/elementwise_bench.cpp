// Elementwise ops, a full sum, and eager dispatch overhead. bench/run.sh runs the
// same cases in PyTorch (bench/torch_bench.py) and prints the ratios.
#include <benchmark/benchmark.h>

#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

namespace {

// Arguments: element count, thread count.
template <class F> void run(benchmark::State& state, F f, bool binary) {
  tl::set_num_threads(int(state.range(1)));
  const std::int64_t n = state.range(0);
  const tl::Tensor a = tl::random::uniform(tl::random::key(1), {n}, tl::DType::f32, -3.0, 3.0);
  const tl::Tensor b = tl::random::uniform(tl::random::key(2), {n}, tl::DType::f32, -3.0, 3.0);
  for (auto _ : state) {
    tl::Tensor y = binary ? f(a, b) : f(a, a);
    benchmark::DoNotOptimize(y.raw_data());
  }
  state.SetBytesProcessed(state.iterations() * n * 4 * (binary ? 3 : 2));
}

void sizes(benchmark::internal::Benchmark* b) {
  for (std::int64_t n : {1 << 20, 1 << 24})
    for (std::int64_t t : {1, 2}) b->Args({n, t});
  b->Unit(benchmark::kMicrosecond)->UseRealTime();
}

void BM_add(benchmark::State& s) { run(s, [](auto& a, auto& b) { return a + b; }, true); }
void BM_mul(benchmark::State& s) { run(s, [](auto& a, auto& b) { return a * b; }, true); }
void BM_tanh(benchmark::State& s) { run(s, [](auto& a, auto&) { return tl::tanh(a); }, false); }
void BM_exp(benchmark::State& s) { run(s, [](auto& a, auto&) { return tl::exp(a); }, false); }
void BM_sigmoid(benchmark::State& s) { run(s, [](auto& a, auto&) { return tl::sigmoid(a); }, false); }
void BM_sum(benchmark::State& s) { run(s, [](auto& a, auto&) { return tl::sum(a); }, false); }
BENCHMARK(BM_add)->Apply(sizes);
BENCHMARK(BM_mul)->Apply(sizes);
BENCHMARK(BM_tanh)->Apply(sizes);
BENCHMARK(BM_exp)->Apply(sizes);
BENCHMARK(BM_sigmoid)->Apply(sizes);
BENCHMARK(BM_sum)->Apply(sizes);

// Eager dispatch: the whole cost of a small op call, from arguments to result tensor.
void BM_dispatch_add8(benchmark::State& state) {
  tl::set_num_threads(1);
  const tl::Tensor a = tl::ones({8}), b = tl::ones({8});
  for (auto _ : state) {
    tl::Tensor y = a + b;
    benchmark::DoNotOptimize(y.raw_data());
  }
}
BENCHMARK(BM_dispatch_add8)->Args({8, 1})->Unit(benchmark::kNanosecond);

}  // namespace

BENCHMARK_MAIN();
