// A process of its own for the compile cache tests (compile_cache_test.cpp):
// opens a PJRT Session on the plugin named by argv[1] (the cache directory comes
// from TLALOC_PJRT_CACHE_DIR), compiles and runs the shared program once, and
// prints its cache counters and the result on one line each.
#include <cstdio>
#include <exception>
#include <tlaloc/runtime.hpp>

#include "runtime/sample_program.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s PLUGIN\n", argv[0]);
    return 2;
  }
  try {
    namespace rt = tlaloc::runtime;
    const rt::Session s({.backend = rt::Backend::pjrt, .plugin_path = argv[1]});
    const rt::Executable e = s.compile(tltest::sample::kProgram);
    const tlaloc::Tensor args[] = {tltest::sample::x(), tltest::sample::y()};
    const std::vector<float> out = e.run(args).at(0).to_vector<float>();
    const rt::CacheStats c = s.cache_stats();
    std::printf("misses=%zu disk_hits=%zu disk_misses=%zu disk_rejected=%zu disk_writes=%zu disk_write_failures=%zu\n",
                c.misses, c.disk_hits, c.disk_misses, c.disk_rejected, c.disk_writes, c.disk_write_failures);
    for (float v : out) std::printf("%.9g ", double(v));
    std::printf("\n");
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
