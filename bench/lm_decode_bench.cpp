// Decode tokens per second of examples/lm's artifact through a PJRT Session (Tlaloc's
// CPU plugin unless another is named): a prompt of 16 bytes through prefill (bucket 16), then
// greedy decode steps with the KV caches kept as device buffers and donated to each
// step, the logits brought to the host and the next id chosen there, as the example
// generates. Prefill is not timed. Prints the median over `repeats` runs of `tokens`
// decode steps, one number in tokens/s (bench/run.sh sets the thread count and puts
// it next to bench/lm_decode_torch.py's).
//
//   lm_decode_bench ARTIFACT_DIR [PLUGIN ("": the CPU plugin)] [repeats] [tokens]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <tlaloc/serve.hpp>
#include <vector>

namespace {

namespace tr = tlaloc::runtime;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::int32_t greedy(const tlaloc::Tensor& logits) {
  const std::vector<float> v = logits.to_vector<float>();
  return static_cast<std::int32_t>(std::max_element(v.begin(), v.end()) - v.begin());
}

// Seconds for `tokens` decode steps after a prefill of the prompt "This program is ".
double decode_seconds(const tlaloc::serve::Model& m, std::int64_t tokens) {
  const tr::Session& s = m.session();
  const std::string prompt = "This program is ";
  std::vector<std::int32_t> ids(prompt.begin(), prompt.end());
  const auto n = static_cast<std::int64_t>(ids.size());
  std::vector<tr::Buffer> out;
  for (const tlaloc::Tensor& t : m.run("prefill", {tlaloc::tensor(ids, {1, n})}))
    out.push_back(s.to_device(t));
  std::vector<std::size_t> donate;  // the caches: the decode inputs after token and position
  for (std::size_t i = 2; i < out.size() + 1; ++i) donate.push_back(i);
  const auto t0 = std::chrono::steady_clock::now();
  for (std::int64_t t = 0; t < tokens; ++t) {
    ids.push_back(greedy(out[0].to_host()));
    std::vector<tr::Buffer> in{s.to_device(tlaloc::tensor(std::vector<std::int32_t>{ids.back()}, {1, 1})),
                               s.to_device(tlaloc::scalar_tensor(n + t, tlaloc::DType::i32))};
    in.insert(in.end(), out.begin() + 1, out.end());
    out = m.run("decode", in, {.donate = donate});
  }
  (void)greedy(out[0].to_host());  // the last step's result, waited for
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fmt::print(stderr, "usage: lm_decode_bench ARTIFACT_DIR [PLUGIN] [repeats] [tokens]\n");
    return 2;
  }
  const std::string plugin = argc > 2 && *argv[2] ? argv[2] : TLALOC_PJRT_CPU_PLUGIN;
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 5;
  const std::int64_t tokens = argc > 4 ? std::atoll(argv[4]) : 100;
  try {
    const auto m = tlaloc::serve::Model::load(argv[1], {.backend = tr::Backend::pjrt, .plugin_path = plugin});
    (void)decode_seconds(m, 4);  // warm-up: compiles the entry points
    std::vector<double> rates;
    for (int r = 0; r < repeats; ++r) rates.push_back(static_cast<double>(tokens) / decode_seconds(m, tokens));
    fmt::print("{:.1f}\n", median(rates));
    return 0;
  } catch (const std::exception& ex) {
    fmt::print(stderr, "lm_decode_bench: {}\n", ex.what());
    return 1;
  }
}
