#include "runtime/installed.hpp"

#include <dlfcn.h>

#include <system_error>

namespace tlaloc::runtime {
namespace {

namespace fs = std::filesystem;

// The file this code was linked into: a shared library (libtlaloc, libtlaloc_serve),
// or the program itself, for which dladdr gives only argv[0].
fs::path file_holding_this_code() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<const void*>(&file_holding_this_code), &info) != 0 &&
      info.dli_fname != nullptr && std::string_view(info.dli_fname).find(".so") != std::string_view::npos)
    return info.dli_fname;
  std::error_code ec;
  return fs::read_symlink("/proc/self/exe", ec);
}

}  // namespace

std::vector<fs::path> module_candidates(std::string_view file) {
  const fs::path dir = file_holding_this_code().parent_path();
  const fs::path in_libdir = fs::path(TLALOC_LIB_TO_PLUGIN) / file;
  return {(dir / in_libdir).lexically_normal(), (dir / TLALOC_BIN_TO_LIB / in_libdir).lexically_normal()};
}

}  // namespace tlaloc::runtime
