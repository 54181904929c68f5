// c_api_threads DIR: one model of the C API (include/tlaloc/serve.h), loaded from the
// serve_fixture artifact in DIR, run by eight threads at once, 100 times each: every
// output must equal the eager model's (DIR/expected.bin). Exit status 0 when all do.
#include <tlaloc/serve.h>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

namespace {

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: c_api_threads DIR\n");
    return 2;
  }
  const std::string dir = argv[1], x = read(dir + "/x.bin"), expected = read(dir + "/expected.bin");
  tlaloc_model* m = tlaloc_model_load(dir.c_str());
  if (m == nullptr) {
    std::fprintf(stderr, "c_api_threads: %s\n", tlaloc_last_error());
    return 1;
  }
  const std::int64_t shape[] = {3, 6};
  const tlaloc_tensor_view in = {TLALOC_F32, 2, shape, x.data()};
  constexpr int kThreads = 8, kCalls = 100;
  std::vector<int> wrong(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i) {
        tlaloc_tensor* out = nullptr;
        if (tlaloc_model_run(m, "logits", &in, 1, &out, 1) != 0) {
          std::fprintf(stderr, "c_api_threads: thread %d: %s\n", t, tlaloc_last_error());
          ++wrong[std::size_t(t)];
          continue;
        }
        if (tlaloc_tensor_nbytes(out) != expected.size() ||
            std::memcmp(tlaloc_tensor_data(out), expected.data(), expected.size()) != 0)
          ++wrong[std::size_t(t)];
        tlaloc_tensor_free(out);
      }
    });
  for (std::thread& t : threads) t.join();
  tlaloc_model_free(m);
  int total = 0;
  for (int w : wrong) total += w;
  std::printf("%d threads x %d runs of one model: %d differ from the eager model\n", kThreads, kCalls, total);
  return total == 0 ? 0 : 1;
}
