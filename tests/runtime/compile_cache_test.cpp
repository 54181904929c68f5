// The on-disk compile cache of the PJRT Session (docs/RUNTIME.md), with Tlaloc's
// CPU plugin: a second process loads what the first compiled (the counters show
// it), entries that fail any check are recompiled and overwritten, processes
// filling one directory at once stay correct, and a cache that cannot be written
// costs nothing but the saving. Results are checked against eager Tlaloc ops.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>
#include <tlaloc/runtime.hpp>

#include "io/sha256.hpp"
#include "runtime/sample_program.hpp"
#include "support/spawn.hpp"

namespace {

namespace fs = std::filesystem;
namespace rt = tlaloc::runtime;
using tltest::sample::kProgram;

std::vector<float> expected() { return ((tltest::sample::x() + tltest::sample::y()) * tltest::sample::x()).to_vector<float>(); }

// A fresh, empty directory per test.
fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("tlaloc_cache_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void spit(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

std::vector<fs::path> files_in(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path());
  return out;
}

using tltest::Child;

// A child process running compile_cache_child with TLALOC_PJRT_CACHE_DIR=dir.
Child spawn_child(const fs::path& dir) {
  return tltest::spawn_reading_stdout({TLALOC_COMPILE_CACHE_CHILD, TLALOC_PJRT_CPU_PLUGIN},
                                      {"TLALOC_PJRT_CACHE_DIR=" + dir.string()});
}

struct ChildResult {
  int status = -1;
  std::string counters, values;
};

ChildResult finish(const Child& c) {
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(c.out_fd, buf, sizeof buf)) > 0;) text.append(buf, std::size_t(n));
  ::close(c.out_fd);
  ChildResult r;
  ::waitpid(c.pid, &r.status, 0);
  std::istringstream lines(text);
  std::getline(lines, r.counters);
  std::getline(lines, r.values);
  return r;
}

std::vector<float> parse_values(const std::string& line) {
  std::istringstream in(line);
  std::vector<float> v;
  for (float f; in >> f;) v.push_back(f);
  return v;
}

rt::Session pjrt_session(const fs::path& dir) {
  return rt::Session({.backend = rt::Backend::pjrt, .plugin_path = TLALOC_PJRT_CPU_PLUGIN, .cache_dir = dir.string()});
}

// Compiles and runs the program in a new session; returns its counters.
rt::CacheStats compile_and_check(const fs::path& dir) {
  const rt::Session s = pjrt_session(dir);
  const tlaloc::Tensor args[] = {tltest::sample::x(), tltest::sample::y()};
  EXPECT_EQ(s.compile(kProgram).run(args).at(0).to_vector<float>(), expected());
  return s.cache_stats();
}

TEST(CompileCache, ASecondProcessLoadsInsteadOfCompiling) {
  const fs::path dir = fresh_dir("processes");
  const ChildResult first = finish(spawn_child(dir));
  ASSERT_EQ(first.status, 0);
  EXPECT_EQ(first.counters, "misses=1 disk_hits=0 disk_misses=1 disk_rejected=0 disk_writes=1 disk_write_failures=0");
  EXPECT_EQ(parse_values(first.values), expected());
  const ChildResult second = finish(spawn_child(dir));
  ASSERT_EQ(second.status, 0);
  EXPECT_EQ(second.counters, "misses=1 disk_hits=1 disk_misses=0 disk_rejected=0 disk_writes=0 disk_write_failures=0");
  EXPECT_EQ(parse_values(second.values), expected());
  EXPECT_EQ(files_in(dir).size(), 1u);
  fs::remove_all(dir);
}

// The entry is the documented header and the plugin's own serialization (its line
// "tlaloc_cpu executable 1", then the program text), under a name that is its key.
TEST(CompileCache, EntriesHoldTheHeaderAndThePluginsBytes) {
  const fs::path dir = fresh_dir("format");
  (void)compile_and_check(dir);
  const std::vector<fs::path> files = files_in(dir);
  ASSERT_EQ(files.size(), 1u);
  const std::string key = files[0].stem().string(), bytes = slurp(files[0]);
  EXPECT_EQ(files[0].extension(), ".tlxc");
  const std::string payload = std::string("tlaloc_cpu executable 1\n") + kProgram;
  ASSERT_EQ(bytes.size(), 8 + 4 + 64 + 8 + 64 + payload.size());
  EXPECT_EQ(bytes.substr(0, 8), "TLXCACHE");
  EXPECT_EQ(bytes.substr(8, 4), std::string("\x01\0\0\0", 4));
  EXPECT_EQ(bytes.substr(12, 64), key);
  std::uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = (length << 8) | static_cast<unsigned char>(bytes[std::size_t(76 + i)]);
  EXPECT_EQ(length, payload.size());
  EXPECT_EQ(bytes.substr(84, 64), tlaloc::io::sha256_hex(payload));  // OpenSSL's SHA-256
  EXPECT_EQ(bytes.substr(148), payload);
  fs::remove_all(dir);
}

struct Corruption {
  const char* name;
  std::string (*apply)(const std::string& entry, const std::string& key, const std::string& other_entry);
};

const Corruption kCorruptions[] = {
    {"payload byte flipped", [](const std::string& e, const std::string&, const std::string&) {
       std::string b = e;
       b.back() = char(b.back() ^ 0x20);
       return b;
     }},
    {"checksum byte flipped", [](const std::string& e, const std::string&, const std::string&) {
       std::string b = e;
       b[100] = b[100] == '0' ? '1' : '0';
       return b;
     }},
    {"truncated", [](const std::string& e, const std::string&, const std::string&) { return e.substr(0, e.size() - 5); }},
    {"truncated inside the header", [](const std::string& e, const std::string&, const std::string&) {
       return e.substr(0, 40);
     }},
    {"empty", [](const std::string&, const std::string&, const std::string&) { return std::string(); }},
    {"foreign magic", [](const std::string& e, const std::string&, const std::string&) {
       return "NOTOURS!" + e.substr(8);
     }},
    {"another format version", [](const std::string& e, const std::string&, const std::string&) {
       std::string b = e;
       b[8] = 2;
       return b;
     }},
    {"another key inside", [](const std::string&, const std::string&, const std::string& other) { return other; }},
    {"longer payload than its length", [](const std::string& e, const std::string&, const std::string&) {
       return e + "x";
     }},
    // Well-formed and checksummed, but bytes the plugin refuses to load.
    {"bytes the plugin refuses", [](const std::string& e, const std::string& key, const std::string&) {
       const std::string payload = "not an executable";
       std::string b = e.substr(0, 12) + key;
       for (int i = 0; i < 8; ++i) b += static_cast<char>(i == 0 ? payload.size() : 0);
       return b + tlaloc::io::sha256_hex(payload) + payload;
     }},
};

TEST(CompileCache, ABadEntryIsRecompiledAndOverwritten) {
  const fs::path other_dir = fresh_dir("other");
  {
    const rt::Session s = pjrt_session(other_dir);
    (void)s.compile(std::string(kProgram) + "\n");  // another program: another key
  }
  const std::string other_entry = slurp(files_in(other_dir).at(0));
  const fs::path dir = fresh_dir("corrupt");
  (void)compile_and_check(dir);
  const fs::path entry = files_in(dir).at(0);
  const std::string good = slurp(entry), key = entry.stem().string();
  for (const Corruption& c : kCorruptions) {
    SCOPED_TRACE(c.name);
    spit(entry, c.apply(good, key, other_entry));
    const rt::CacheStats stats = compile_and_check(dir);
    EXPECT_EQ(stats.disk_rejected, 1u);
    EXPECT_EQ(stats.disk_hits, 0u);
    EXPECT_EQ(stats.disk_writes, 1u);
    EXPECT_EQ(slurp(entry), good);  // overwritten with a valid entry
    EXPECT_EQ(compile_and_check(dir).disk_hits, 1u);
  }
  fs::remove_all(dir);
  fs::remove_all(other_dir);
}

// Two processes on an empty directory, several times: both run correctly, and
// what they leave is one valid entry (a third process loads it) and no
// temporary files.
TEST(CompileCache, TwoProcessesFillingOneDirectoryAtOnce) {
  for (int round = 0; round < 4; ++round) {
    SCOPED_TRACE(round);
    const fs::path dir = fresh_dir("concurrent");
    const Child a = spawn_child(dir), b = spawn_child(dir);
    for (const ChildResult& r : {finish(a), finish(b)}) {
      ASSERT_EQ(r.status, 0);
      EXPECT_EQ(parse_values(r.values), expected());
      EXPECT_NE(r.counters.find("disk_rejected=0 "), std::string::npos) << r.counters;
      EXPECT_NE(r.counters.find("disk_write_failures=0"), std::string::npos) << r.counters;
    }
    EXPECT_EQ(files_in(dir).size(), 1u);
    const ChildResult third = finish(spawn_child(dir));
    EXPECT_NE(third.counters.find("disk_hits=1 "), std::string::npos) << third.counters;
    fs::remove_all(dir);
  }
}

// Sessions on eight threads of one process, each writing the same entry.
TEST(CompileCache, SessionsOnThreadsFillingOneDirectoryAtOnce) {
  const fs::path dir = fresh_dir("threads");
  std::atomic<std::size_t> rejected{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) threads.emplace_back([&] { rejected += compile_and_check(dir).disk_rejected; });
  for (auto& t : threads) t.join();
  EXPECT_EQ(rejected, 0u);
  EXPECT_EQ(files_in(dir).size(), 1u);
  EXPECT_EQ(compile_and_check(dir).disk_hits, 1u);
  fs::remove_all(dir);
}

TEST(CompileCache, AnUnwritableDirectoryOnlyCostsTheSaving) {
  const fs::path dir = fresh_dir("unwritable");
  spit(dir / "file", "x");
  const rt::CacheStats stats = compile_and_check(dir / "file" / "cache");  // under a regular file
  EXPECT_EQ(stats.disk_misses, 1u);
  EXPECT_EQ(stats.disk_writes, 0u);
  EXPECT_EQ(stats.disk_write_failures, 1u);
  fs::remove_all(dir);
}

TEST(CompileCache, NoDirectoryNoDiskCacheAndTheInterpreterHasNone) {
  const fs::path dir = fresh_dir("none");
  ::unsetenv("TLALOC_PJRT_CACHE_DIR");
  const rt::CacheStats stats = compile_and_check("");
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_EQ(stats.disk_misses + stats.disk_hits + stats.disk_writes, 0u);
  const rt::Session interp({.cache_dir = dir.string()});
  (void)interp.compile(kProgram);
  EXPECT_EQ(interp.cache_stats().disk_misses, 0u);
  EXPECT_TRUE(files_in(dir).empty());
  fs::remove_all(dir);
}

}  // namespace
