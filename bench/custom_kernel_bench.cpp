// examples/custom-kernel's fused RMSNorm, forward and backward on [4096, 1024] f32,
// against the same function composed of library ops; both are tl::grad programs
// (traced once, optimized, then run). Prints the median seconds of each:
//   fused SECONDS composed SECONDS
// after checking that the two give the same gradients (within 1e-4).
//   custom_kernel_bench [repeats]
#include <tlaloc/tlaloc.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../examples/custom-kernel/rms_norm.hpp"

namespace tl = tlaloc;

namespace {

template <class F>
double median_seconds(int repeats, const F& f) {
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 20;
  const tl::Tensor x = tl::random::normal(tl::random::key(1), {4096, 1024});
  const tl::Tensor w = tl::random::normal(tl::random::key(2), {1024});
  const tl::Tensor dy = tl::random::normal(tl::random::key(3), {4096, 1024});
  const auto of = [&dy](auto norm) {
    return tl::grad(
        [norm, &dy](const tl::Tensor& a, const tl::Tensor& b) { return tl::sum(norm(a, b) * dy); },
        tl::argnums{0, 1});
  };
  const auto fused = of(rms::rms_norm);
  const auto composed = of(rms::rms_norm_composed);
  const std::vector<tl::Tensor> a = fused(x, w), b = composed(x, w);
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!tl::allclose(a[i], b[i], 1e-4, 1e-4)) {
      std::fprintf(stderr, "custom_kernel_bench: the fused and composed gradients differ\n");
      return 1;
    }
  const double f = median_seconds(repeats, [&] { (void)fused(x, w); });
  const double c = median_seconds(repeats, [&] { (void)composed(x, w); });
  std::printf("fused %.6f composed %.6f\n", f, c);
  return 0;
}
