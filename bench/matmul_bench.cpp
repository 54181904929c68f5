// tl::matmul against cblas_sgemm called directly on the same square f32 problem.
// The time ratio (tl / BLAS) is what the op layer costs: dispatch, the shape rule
// and the allocation of a fresh result, which the direct call reuses.
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <tlaloc/tlaloc.hpp>
#include <vector>

namespace tl = tlaloc;

namespace {

// Both libraries get the same thread count: tl::matmul passes its own on to
// OpenBLAS, the direct call uses OpenBLAS's setting.
void use_threads(int t) {
  tl::set_num_threads(t);
  openblas_set_num_threads(t);
}

void count_flops(benchmark::State& state, std::int64_t n) {
  state.counters["FLOP/s"] = benchmark::Counter(2.0 * double(n) * double(n) * double(n),
                                                benchmark::Counter::kIsIterationInvariantRate);
}

// Arguments: matrix size, thread count.
void BM_tl_matmul(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  use_threads(int(state.range(1)));
  const tl::Tensor a = tl::reshape(tl::linspace(-1.0, 1.0, n * n), {n, n});
  const tl::Tensor b = tl::reshape(tl::linspace(1.0, -1.0, n * n), {n, n});
  for (auto _ : state) {
    tl::Tensor c = tl::matmul(a, b);
    benchmark::DoNotOptimize(c.raw_data());
  }
  count_flops(state, n);
}

void BM_cblas_sgemm(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  use_threads(int(state.range(1)));
  const tl::Tensor a = tl::reshape(tl::linspace(-1.0, 1.0, n * n), {n, n});
  const tl::Tensor b = tl::reshape(tl::linspace(1.0, -1.0, n * n), {n, n});
  std::vector<float> c(std::size_t(n * n));
  const auto m = blasint(n);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, m, m, 1.0f, a.data<float>(), m, b.data<float>(),
                m, 0.0f, c.data(), m);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  count_flops(state, n);
}

void sizes(benchmark::internal::Benchmark* b) {
  for (std::int64_t n : {256, 512, 1024, 2048})
    for (std::int64_t t : {1, 2}) b->Args({n, t});
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}
BENCHMARK(BM_tl_matmul)->Apply(sizes);
BENCHMARK(BM_cblas_sgemm)->Apply(sizes);

}  // namespace

BENCHMARK_MAIN();
