// crash_writer KIND DIR: writes without end, alternating version 1 and version 2,
// until it is killed (tests/crash/crash_test.cpp kills it with SIGKILL at random
// moments). KIND is checkpoint (DIR/model.ckpt), artifact (DIR/artifact) or cache (a
// compile-cache entry in DIR, removed before each compile so that it is written
// again). Prints "writing" once its first write has begun, so that kills land on
// writes rather than on the start of the process.
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <tlaloc/runtime.hpp>

#include "crash/versions.hpp"
#include "runtime/sample_program.hpp"

namespace fs = std::filesystem;
namespace rt = tlaloc::runtime;

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s checkpoint|artifact|cache DIR PLUGIN\n", argv[0]);
    return 2;
  }
  const std::string kind = argv[1];
  const fs::path dir = argv[2];
  try {
    for (int i = 0;; ++i) {
      const int version = 1 + i % 2;
      if (i == 1) {
        std::printf("writing\n");
        std::fflush(stdout);
      }
      if (kind == "checkpoint") {
        crash::write_checkpoint(dir, version);
      } else if (kind == "artifact") {
        crash::write_artifact(dir, version);
      } else if (kind == "cache") {
        for (const auto& entry : fs::directory_iterator(dir)) fs::remove_all(entry.path());
        const rt::Session s(
            {.backend = rt::Backend::pjrt, .plugin_path = argv[3], .cache_dir = dir.string()});
        (void)s.compile(tltest::sample::kProgram);
      } else {
        std::fprintf(stderr, "crash_writer: unknown kind '%s'\n", kind.c_str());
        return 2;
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "crash_writer: %s\n", e.what());
    return 1;
  }
}
