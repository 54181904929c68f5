// The MLP gradient written at build time by tlaloc-grad against tl::jit(tl::grad(f))
// of the same function: time per gradient, medians of alternating rounds, and their
// ratio (the bound: within 10%). Both must give the same bits.
//
//   grad_tool_bench [rounds] [iterations per round]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "mlp_loss.hpp"

namespace tl = tlaloc;

tl::Tensor generated_gradient(const tl::Tensor& w1, const tl::Tensor& b1, const tl::Tensor& w2, const tl::Tensor& b2,
                              const tl::Tensor& w3, const tl::Tensor& b3, const tl::Tensor& x, const tl::Tensor& y);

namespace {

template <class F>
double seconds_per_call(F f, int iterations) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / iterations;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 7;
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 10;
  const auto keys = tl::random::split(tl::random::key(0), 8);
  const tl::Tensor w1 = tl::random::normal(keys[0], {784, 512}) * 0.03, b1 = tl::zeros({512});
  const tl::Tensor w2 = tl::random::normal(keys[1], {512, 512}) * 0.04, b2 = tl::zeros({512});
  const tl::Tensor w3 = tl::random::normal(keys[2], {512, 10}) * 0.04, b3 = tl::zeros({10});
  const tl::Tensor x = tl::random::normal(keys[3], {256, 784}), y = tl::random::normal(keys[4], {256, 10});
  auto jitted = tl::jit(tl::grad(mlp_loss));

  const tl::Tensor a = generated_gradient(w1, b1, w2, b2, w3, b3, x, y);
  const tl::Tensor b = jitted(w1, b1, w2, b2, w3, b3, x, y);
  const bool same = std::memcmp(a.raw_data(), b.raw_data(), std::size_t(a.numel()) * sizeof(float)) == 0;
  std::printf("bit-identical: %s\n", same ? "yes" : "no");

  std::vector<double> generated, traced;
  for (int r = 0; r < rounds; ++r) {
    generated.push_back(seconds_per_call([&] { generated_gradient(w1, b1, w2, b2, w3, b3, x, y); }, iterations));
    traced.push_back(seconds_per_call([&] { jitted(w1, b1, w2, b2, w3, b3, x, y); }, iterations));
  }
  const double g = median(generated), t = median(traced);
  std::printf("generated (tlaloc-grad): %.3f ms   jit(grad): %.3f ms   ratio %.3f\n", g * 1e3, t * 1e3, g / t);
  return same ? 0 : 1;
}
