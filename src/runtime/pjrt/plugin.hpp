// A loaded PJRT plugin: the shared library, its API table, and the checks that make
// calling into that table safe. Everything in the runtime that talks PJRT starts here.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include "runtime/pjrt/pjrt_abi.h"

namespace tlaloc::runtime::pjrt {

struct ApiVersion {
  int major = 0;
  int minor = 0;
  friend bool operator==(const ApiVersion&, const ApiVersion&) = default;
};

// Copyable handle on a plugin library. Libraries stay loaded for the life of the
// process once they pass the checks: plugins start threads and register handlers
// that outlive any one client, so unloading them is never safe.
class Plugin {
 public:
  // Opens the shared library at `path` (RTLD_NOW | RTLD_LOCAL), finds GetPjrtApi and
  // checks the table it returns (not null, struct_size, major version equal, minor
  // version new enough) before calling anything in it; then runs
  // PJRT_Plugin_Initialize, once per library per process. `kOwnCpu` names Tlaloc's
  // CPU plugin where it is installed; any other relative path is taken from the
  // current directory (never searched for along LD_LIBRARY_PATH). Every failure
  // throws PluginError naming the path and what is wrong.
  static Plugin load(const std::filesystem::path& name_or_path);
  // The short name of Tlaloc's own CPU plugin.
  static constexpr const char* kOwnCpu = "tlaloc_cpu";

  // The plugin named by TLALOC_PJRT_PLUGIN_PATH; nothing when it is unset or empty.
  static std::optional<std::filesystem::path> path_from_env();

  const tlp_api& api() const { return *api_; }
  ApiVersion version() const { return {api_->version.major_version, api_->version.minor_version}; }
  // Bytes of the table the plugin filled (its struct_size).
  std::size_t table_size() const { return api_->struct_size; }
  const std::filesystem::path& path() const { return path_; }

  // Whether the plugin provides the entry point in `slot`: the slot lies within its
  // table and is not NULL. Slots past TLP_API_REQUIRED_SIZE may be missing from
  // older plugins; any slot may be NULL in a plugin that does not offer it.
  template <class Fn>
  bool has(Fn* tlp_api::*slot) const {
    const auto* base = reinterpret_cast<const char*>(api_);
    const auto* field = reinterpret_cast<const char*>(&(api_->*slot));
    const auto end = static_cast<std::size_t>(field - base) + sizeof(Fn*);
    return end <= api_->struct_size && api_->*slot != nullptr;
  }

  // An error the plugin returned: its code (TLP_UNKNOWN when the plugin cannot say)
  // and message; the error is freed.
  struct Failure {
    int code = 0;
    std::string message;
  };
  Failure take_error(tlp_error* error) const;
  // The same as "CODE: message".
  std::string consume_error(tlp_error* error) const;

 private:
  Plugin(std::filesystem::path path, const tlp_api* api) : path_(std::move(path)), api_(api) {}

  std::filesystem::path path_;
  const tlp_api* api_;
};

// The name of a PJRT error code ("INVALID_ARGUMENT"), or "code N" for one not known.
std::string error_code_name(int code);

}  // namespace tlaloc::runtime::pjrt
