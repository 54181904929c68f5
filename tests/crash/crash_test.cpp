// Writers killed with SIGKILL at random moments (crash_writer, a process of its own)
// while they write a checkpoint, an exported artifact and a compile-cache entry, over
// and over: after each kill the previous version is intact or the new one complete,
// and loading never fails; the next write removes what the killed writers left.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <tlaloc/runtime.hpp>

#include "crash/versions.hpp"
#include "runtime/sample_program.hpp"
#include "support/nn_files.hpp"
#include "support/spawn.hpp"

namespace {

namespace fs = std::filesystem;
namespace tl = tlaloc;
namespace rt = tlaloc::runtime;

constexpr int kKills = 30;  // per kind

// Starts crash_writer and returns once it has begun its second write (the first one
// is done: the file exists in one version or the other from then on).
pid_t start_writer(const std::string& kind, const fs::path& dir) {
  const tltest::Child child =
      tltest::spawn_reading_stdout({TLALOC_CRASH_WRITER, kind, dir.string(), TLALOC_PJRT_CPU_PLUGIN});
  char c = 0;
  while (::read(child.out_fd, &c, 1) == 1 && c != '\n') {
  }
  ::close(child.out_fd);
  return child.pid;
}

void kill_after(pid_t pid, std::chrono::microseconds delay) {
  std::this_thread::sleep_for(delay);
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status)) << "the writer stopped on its own: status " << status;
}

// The version every value of the loaded parameters holds, or 0 if they disagree.
int version_of(const tl::nn::Params& p) {
  int version = 0;
  for (const auto& [name, t] : p) {
    for (const float v : t.to_vector<float>()) {
      if (version == 0) version = int(v);
      if (v != float(version)) return 0;
    }
  }
  return version;
}

int checkpoint_version(const fs::path& dir) {
  const tl::nn::Checkpoint c = tl::nn::load_checkpoint(dir / "model.ckpt");
  EXPECT_EQ(version_of(c.model), c.step) << "a checkpoint mixing versions";
  return int(c.step);
}

int artifact_version(const fs::path& dir) {
  const tl::serve::Model m = tl::serve::Model::load(dir / "artifact");
  // x @ W + b with x all ones: 1024 v + v in every element.
  const std::vector<float> y = m.run("dense", {tl::ones({1, 1024})}).at(0).to_vector<float>();
  for (const float v : y)
    if (v != y[0]) return 0;
  return y[0] == 1025.0f ? 1 : y[0] == 2050.0f ? 2 : 0;
}

int cache_version(const fs::path& dir) {
  const rt::Session s(
      {.backend = rt::Backend::pjrt, .plugin_path = TLALOC_PJRT_CPU_PLUGIN, .cache_dir = dir.string()});
  const tl::Tensor args[] = {tltest::sample::x(), tltest::sample::y()};
  const std::vector<float> want =
      ((tltest::sample::x() + tltest::sample::y()) * tltest::sample::x()).to_vector<float>();
  return s.compile(tltest::sample::kProgram).run(args).at(0).to_vector<float>() == want ? 1 : 0;
}

// Names in `dir` (not recursing) that a writer made as temporaries.
std::vector<std::string> leftovers(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(".tmp-") != std::string::npos) out.push_back(e.path().filename());
  return out;
}

void kill_writers(const std::string& kind, const std::function<void(const fs::path&)>& write_first,
                  const std::function<int(const fs::path&)>& version, std::chrono::microseconds longest) {
  const fs::path dir = tltest::fresh_dir("crash_" + kind);
  write_first(dir);
  std::mt19937 random(7);
  std::uniform_int_distribution<long> delay(0, longest.count());
  std::set<int> seen;
  for (int i = 0; i < kKills; ++i) {
    kill_after(start_writer(kind, dir), std::chrono::microseconds(delay(random)));
    SCOPED_TRACE(kind + " after kill " + std::to_string(i));
    int v = 0;
    EXPECT_NO_THROW(v = version(dir));
    EXPECT_NE(v, 0) << "neither version, whole";
    seen.insert(v);
  }
  std::printf("%s: %d kills, versions seen after them:", kind.c_str(), kKills);
  for (int v : seen) std::printf(" %d", v);
  std::printf("\n");
  write_first(dir);
  EXPECT_EQ(leftovers(dir), std::vector<std::string>{}) << "the next write leaves no temporaries behind";
  fs::remove_all(dir);
}

TEST(Crash, KilledCheckpointWritersLeaveOneVersionWhole) {
  kill_writers(
      "checkpoint", [](const fs::path& d) { crash::write_checkpoint(d, 1); }, checkpoint_version,
      std::chrono::milliseconds(40));
}

TEST(Crash, KilledExportsLeaveOneArtifactWhole) {
  kill_writers(
      "artifact", [](const fs::path& d) { crash::write_artifact(d, 1); }, artifact_version,
      std::chrono::milliseconds(80));
}

TEST(Crash, KilledCompileCacheWritersLeaveAUsableCache) {
  kill_writers(
      "cache", [](const fs::path& d) { (void)cache_version(d); }, cache_version,
      std::chrono::milliseconds(40));
}

}  // namespace
