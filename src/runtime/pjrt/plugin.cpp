#include "runtime/pjrt/plugin.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <mutex>
#include <set>
#include <string_view>
#include <system_error>
#include <vector>

#include "core/status_code.hpp"
#include "runtime/installed.hpp"
#include "tlaloc/runtime.hpp"

namespace tlaloc::runtime::pjrt {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kWho = "tl::runtime::pjrt::Plugin::load";

[[noreturn]] void fail(const fs::path& path, std::string_view what) {
  throw PluginError(fmt::format("{}: '{}': {}", kWho, path.string(), what));
}

// Closes a library that failed the checks. Nothing in it has been called but its
// static constructors, so unloading it again is safe.
struct CloseUnlessKept {
  void* handle;
  bool keep = false;
  ~CloseUnlessKept() {
    if (!keep) ::dlclose(handle);
  }
};

fs::path own_plugin() {
  const std::vector<fs::path> candidates = module_candidates(TLALOC_OWN_PLUGIN_FILE);
  for (const fs::path& candidate : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return candidate;
  }
  fail(Plugin::kOwnCpu,
       fmt::format("Tlaloc's CPU plugin is not installed beside this library (looked for '{}' and '{}'); "
                   "pass the plugin's path or set TLALOC_PJRT_PLUGIN_PATH",
                   candidates[0].string(), candidates[1].string()));
}

void* open_library(const fs::path& path) {
  if (path.empty()) fail(path, "no plugin path given (set TLALOC_PJRT_PLUGIN_PATH or pass one)");
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status))
    fail(path, "no such file (a PJRT plugin is a shared library exporting GetPjrtApi)");
  if (fs::is_directory(status)) fail(path, "is a directory, not a PJRT plugin shared library");
  ::dlerror();
  void* handle = ::dlopen(fs::absolute(path).c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    fail(path,
         fmt::format("cannot be loaded as a shared library: {}", why != nullptr ? why : "dlopen failed"));
  }
  return handle;
}

const tlp_api* find_table(void* handle, const fs::path& path) {
  void* symbol = ::dlsym(handle, TLP_GET_API_SYMBOL);
  if (symbol == nullptr)
    fail(path, "is a shared library but not a PJRT plugin: it does not export GetPjrtApi");
  const tlp_api* api = reinterpret_cast<tlp_get_api_fn*>(symbol)();
  if (api == nullptr) fail(path, "GetPjrtApi returned a null API table");
  return api;
}

// Everything here reads data only: no entry point of the table runs before it passes.
void check_table(const tlp_api& api, const fs::path& path) {
  if (api.struct_size < TLP_API_VERSION_END)
    fail(path,
         fmt::format("the API table's struct_size is {} bytes, too small to hold its version ({} bytes): "
                     "not a PJRT plugin, or a broken one",
                     api.struct_size, TLP_API_VERSION_END));
  const int major = api.version.major_version, minor = api.version.minor_version;
  if (major != TLP_API_MAJOR)
    fail(path, fmt::format("PJRT API version {}.{} is incompatible: Tlaloc speaks major version {} "
                           "(minor {} or newer; written against {}.{})",
                           major, minor, TLP_API_MAJOR, TLP_API_OLDEST_MINOR, TLP_API_MAJOR, TLP_API_MINOR));
  if (minor < TLP_API_OLDEST_MINOR)
    fail(path,
         fmt::format("PJRT API version {}.{} is too old: Tlaloc needs {}.{} or newer, whose table has the "
                     "layout Tlaloc declares",
                     major, minor, TLP_API_MAJOR, TLP_API_OLDEST_MINOR));
  if (api.struct_size < TLP_API_REQUIRED_SIZE)
    fail(path,
         fmt::format("the API table's struct_size is {} bytes, too small for PJRT {}.{}: Tlaloc needs at "
                     "least the {} bytes of the original 90 entry points",
                     api.struct_size, major, minor, TLP_API_REQUIRED_SIZE));
}

// Libraries (dlopen handles) whose PJRT_Plugin_Initialize has succeeded.
std::mutex registry_mutex;
std::set<void*>& initialized_libraries() {
  static std::set<void*> libraries;
  return libraries;
}

}  // namespace

Plugin Plugin::load(const fs::path& name_or_path) {
  const fs::path path = name_or_path == kOwnCpu ? own_plugin() : name_or_path;
  const std::lock_guard lock(registry_mutex);
  CloseUnlessKept library{open_library(path)};
  const tlp_api* api = find_table(library.handle, path);
  check_table(*api, path);
  Plugin plugin(path, api);
  // A second load of the same library adds a reference that the first one's keeps
  // unnecessary (dlopen counts them): let the guard drop it.
  if (initialized_libraries().count(library.handle) != 0) return plugin;
  library.keep = true;  // from here on the plugin's code runs: never unload it
  if (plugin.has(&tlp_api::plugin_initialize)) {
    tlp_plugin_initialize_args args{};
    args.struct_size = TLP_PLUGIN_INITIALIZE_ARGS_SIZE;
    if (tlp_error* error = api->plugin_initialize(&args))
      fail(path, "PJRT_Plugin_Initialize failed: " + plugin.consume_error(error));
  }
  initialized_libraries().insert(library.handle);
  return plugin;
}

std::optional<fs::path> Plugin::path_from_env() {
  const char* value = std::getenv("TLALOC_PJRT_PLUGIN_PATH");
  if (value == nullptr || *value == '\0') return std::nullopt;
  return fs::path(value);
}

Plugin::Failure Plugin::take_error(tlp_error* error) const {
  if (error == nullptr) return {TLP_OK, "OK"};
  Failure f{TLP_UNKNOWN, "(the plugin gave no message)"};
  if (has(&tlp_api::error_get_code)) {
    tlp_error_get_code_args args{};
    args.struct_size = TLP_ERROR_GET_CODE_ARGS_SIZE;
    args.error = error;
    if (tlp_error* failed = api_->error_get_code(&args)) {
      take_error(failed);  // the code stays unknown; the message below still helps
    } else {
      f.code = args.code;
    }
  }
  if (has(&tlp_api::error_message)) {
    tlp_error_message_args args{};
    args.struct_size = TLP_ERROR_MESSAGE_ARGS_SIZE;
    args.error = error;
    api_->error_message(&args);
    if (args.message != nullptr) f.message.assign(args.message, args.message_size);
  }
  if (has(&tlp_api::error_destroy)) {
    tlp_error_destroy_args args{};
    args.struct_size = TLP_ERROR_DESTROY_ARGS_SIZE;
    args.error = error;
    api_->error_destroy(&args);
  }
  return f;
}

std::string Plugin::consume_error(tlp_error* error) const {
  if (error == nullptr) return "OK";
  const Failure f = take_error(error);
  return error_code_name(f.code) + ": " + f.message;
}

std::string error_code_name(int code) { return tlaloc::detail::status_code_name(code); }

}  // namespace tlaloc::runtime::pjrt
