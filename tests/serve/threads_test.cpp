// One serve::Model, one jitted function and one gradient function shared by eight
// threads: every call gives the bits a serial call gives. (The Session itself:
// SessionOn.RunsFromSeveralThreadsAtOnce; the C API: c_api_threads.cpp.)
#include <gtest/gtest.h>

#include <thread>
#include <tlaloc/nn.hpp>
#include <tlaloc/serve.hpp>
#include <tlaloc/tlaloc.hpp>
#include <vector>

#include "support/nn_files.hpp"

namespace {

namespace tl = tlaloc;
using tl::Tensor;

constexpr int kThreads = 8, kCalls = 40;

// Runs call(thread, i) on kThreads threads, kCalls times each, and compares each
// result with the serial one.
template <class Call>
void same_as_serial(const Call& call) {
  std::vector<std::vector<std::vector<float>>> serial(kThreads), parallel(kThreads);
  for (int t = 0; t < kThreads; ++t)
    for (int i = 0; i < kCalls; ++i) serial[std::size_t(t)].push_back(call(t, i));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i) parallel[std::size_t(t)].push_back(call(t, i));
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(parallel, serial);
}

Tensor input(int t, int i, const tl::Shape& shape) {
  return tl::random::normal(tl::random::key(std::uint64_t(1000 * t + i)), shape);
}

const tl::nn::MLP kMlp{.sizes = {6, 16, 4}};

TEST(Threads, OneModelOnEveryBackend) {
  const tl::nn::Params p = kMlp.init(tl::random::key(3));
  const std::filesystem::path dir = tltest::fresh_dir("threads_model");
  tl::serve::export_function(
      dir, "logits", p, [](const tl::nn::Params& q, const Tensor& x) { return kMlp(q, x); },
      {.inputs = {"x"}}, tl::zeros({3, 6}));
  for (const tl::runtime::SessionOptions& options :
       {tl::runtime::SessionOptions{}, tl::runtime::SessionOptions{.backend = tl::runtime::Backend::pjrt,
                                       .plugin_path = TLALOC_PJRT_CPU_PLUGIN}}) {
    const tl::serve::Model m = tl::serve::Model::load(dir, options);
    SCOPED_TRACE(m.session().platform_name());
    same_as_serial([&](int t, int i) {
      return m.run("logits", {input(t, i, {3, 6})}).at(0).to_vector<float>();
    });
  }
  std::filesystem::remove_all(dir);
}

TEST(Threads, OneJittedFunction) {
  const auto f = tl::jit([](const Tensor& x, const Tensor& y) { return tl::tanh(tl::matmul(x, y)) + x; });
  same_as_serial([&](int t, int i) {
    return f(input(t, i, {4, 4}), input(i, t, {4, 4})).to_vector<float>();
  });
  EXPECT_EQ(f.traces(), 1u);
}

TEST(Threads, OneGradientFunction) {
  const auto df = tl::grad([](const Tensor& x) { return tl::sum(tl::sin(x) * x); });
  same_as_serial([&](int t, int i) { return df(input(t, i, {5})).to_vector<float>(); });
  EXPECT_EQ(df.traces(), 1u);
}

}  // namespace
