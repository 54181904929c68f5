// Loading PJRT plugins: every way a plugin path can be wrong gives its own clear
// PluginError, and a well-formed table loads with its version read. The libraries
// are the fakes of tests/runtime/fake_pjrt_plugin.cpp.
#include "runtime/pjrt/plugin.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "support/expect_error.hpp"
#include "tlaloc/runtime.hpp"

namespace {

namespace fs = std::filesystem;
using tlaloc::runtime::PluginError;
using tlaloc::runtime::pjrt::ApiVersion;
using tlaloc::runtime::pjrt::Plugin;

const std::string kWho = "runtime::pjrt::Plugin::load";

fs::path fake(const std::string& kind) {
  return fs::path(TLALOC_FAKE_PJRT_DIR) / ("fake_pjrt_" + kind + ".so");
}

void expect_load_error(const fs::path& path, const std::vector<std::string>& pieces) {
  std::vector<std::string> all = pieces;
  all.push_back("tl::" + kWho + ": '" + path.string() + "'");
  tltest::expect_error_with<PluginError>([&] { Plugin::load(path); }, all);
}

// Reads one of the counters a fake exports, through its already-loaded library.
int fake_counter(const fs::path& path, const char* name) {
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return -1;
  auto* counter = reinterpret_cast<int (*)()>(::dlsym(handle, name));
  const int value = counter != nullptr ? counter() : -1;
  ::dlclose(handle);
  return value;
}

fs::path scratch_dir() {
  const fs::path dir = fs::temp_directory_path() / ("tlaloc_plugin_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

TEST(PjrtPlugin, MissingFileIsNamed) {
  const fs::path path = scratch_dir() / "no_such_plugin.so";
  expect_load_error(path, {"no such file"});
}

TEST(PjrtPlugin, EmptyPathIsRefused) {
  tltest::expect_error_with<PluginError>([] { Plugin::load(""); }, {"no plugin path given"});
}

TEST(PjrtPlugin, DirectoryIsNotAPlugin) {
  const fs::path dir = scratch_dir();
  expect_load_error(dir, {"is a directory"});
}

TEST(PjrtPlugin, NonLibraryFileGivesTheLoadersReason) {
  const fs::path path = scratch_dir() / "text.so";
  std::ofstream(path) << "this is not an ELF file\n";
  // The reason must be the dynamic loader's own, asked here independently.
  ASSERT_EQ(::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL), nullptr);
  const std::string loader_says = ::dlerror();
  expect_load_error(path, {"cannot be loaded as a shared library", loader_says});
}

TEST(PjrtPlugin, LibraryWithoutGetPjrtApi) {
  expect_load_error(fake("no_entry"), {"not a PJRT plugin", "does not export GetPjrtApi"});
}

TEST(PjrtPlugin, NullApiTable) {
  expect_load_error(fake("null_api"), {"GetPjrtApi returned a null API table"});
}

TEST(PjrtPlugin, TableTooSmallForItsVersion) {
  expect_load_error(fake("tiny"), {"struct_size is 16 bytes", "too small to hold its version (40 bytes)"});
  EXPECT_EQ(fake_counter(fake("tiny"), "fake_pjrt_initialize_calls"), -1)
      << "a refused library is unloaded again";
}

TEST(PjrtPlugin, IncompatibleMajorVersion) {
  expect_load_error(fake("major1"), {"PJRT API version 1.3 is incompatible", "major version 0"});
}

TEST(PjrtPlugin, MinorVersionOlderThanTheTableLayout) {
  expect_load_error(fake("old_minor"), {"PJRT API version 0.56 is too old", "0.57 or newer"});
}

TEST(PjrtPlugin, TableTooShortForTheOriginalEntryPoints) {
  // 90 slots of 8 bytes after the 40-byte header: 760 bytes; the fake stops one short.
  expect_load_error(fake("truncated"), {"struct_size is 752 bytes", "PJRT 0.60", "at least the 760 bytes"});
}

TEST(PjrtPlugin, ValidTableLoadsAndReportsItsVersion) {
  const Plugin plugin = Plugin::load(fake("valid"));
  EXPECT_EQ(plugin.version(), (ApiVersion{0, 117}));
  EXPECT_EQ(plugin.table_size(), 1144u);  // 40-byte header + 138 slots
  EXPECT_EQ(plugin.path(), fake("valid"));
  EXPECT_TRUE(plugin.has(&tlp_api::error_message));
  EXPECT_TRUE(plugin.has(&tlp_api::plugin_initialize));
  EXPECT_FALSE(plugin.has(&tlp_api::client_create)) << "a NULL slot is absent";
  EXPECT_FALSE(plugin.has(&tlp_api::topology_memory_space_kind_ids));
}

TEST(PjrtPlugin, InitializeRunsOncePerLibrary) {
  const fs::path path = fake("valid");
  Plugin::load(path);
  Plugin::load(path);
  EXPECT_EQ(fake_counter(path, "fake_pjrt_initialize_calls"), 1);
}

TEST(PjrtPlugin, OlderTableLoadsWithoutTheLaterSlots) {
  const Plugin plugin = Plugin::load(fake("older_table"));
  EXPECT_EQ(plugin.version(), (ApiVersion{0, 60}));
  EXPECT_EQ(plugin.table_size(), 40u + 8u * 101u);
  EXPECT_TRUE(plugin.has(&tlp_api::error_destroy));
  // The fake leaves a pointer past its struct_size: has() must not trust it.
  EXPECT_NE(plugin.api().event_create, nullptr);
  EXPECT_FALSE(plugin.has(&tlp_api::event_create));
}

TEST(PjrtPlugin, FailedInitializeReportsThePluginsError) {
  const fs::path path = fake("init_fails");
  expect_load_error(path, {"PJRT_Plugin_Initialize failed", "INTERNAL: fake initialize failure"});
  EXPECT_EQ(fake_counter(path, "fake_pjrt_errors_destroyed"), 1) << "the plugin's error is freed";
}

TEST(PjrtPlugin, ShortNameOnlyWhereInstalled) {
  // This test program is not installed: nothing lies where the short name leads
  // (tests/install/relocated.sh loads it from an installed prefix).
  expect_load_error(Plugin::kOwnCpu, {"Tlaloc's CPU plugin is not installed beside this library",
                                      "/tlaloc/libtlaloc_pjrt_cpu.so", "set TLALOC_PJRT_PLUGIN_PATH"});
}

TEST(PjrtPlugin, PathFromEnvironment) {
  const char* saved = std::getenv("TLALOC_PJRT_PLUGIN_PATH");
  const std::string restore = saved != nullptr ? saved : "";
  ::unsetenv("TLALOC_PJRT_PLUGIN_PATH");
  EXPECT_EQ(Plugin::path_from_env(), std::nullopt);
  ::setenv("TLALOC_PJRT_PLUGIN_PATH", "", 1);
  EXPECT_EQ(Plugin::path_from_env(), std::nullopt);
  ::setenv("TLALOC_PJRT_PLUGIN_PATH", "/opt/plugins/xla_cuda_plugin.so", 1);
  EXPECT_EQ(Plugin::path_from_env(), fs::path("/opt/plugins/xla_cuda_plugin.so"));
  if (saved != nullptr) {
    ::setenv("TLALOC_PJRT_PLUGIN_PATH", restore.c_str(), 1);
  } else {
    ::unsetenv("TLALOC_PJRT_PLUGIN_PATH");
  }
}

TEST(PjrtPlugin, ErrorCodeNames) {
  EXPECT_EQ(tlaloc::runtime::pjrt::error_code_name(TLP_INVALID_ARGUMENT), "INVALID_ARGUMENT");
  EXPECT_EQ(tlaloc::runtime::pjrt::error_code_name(TLP_UNIMPLEMENTED), "UNIMPLEMENTED");
  EXPECT_EQ(tlaloc::runtime::pjrt::error_code_name(42), "code 42");
}

}  // namespace
