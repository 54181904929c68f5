// Where Tlaloc's own loadable modules are installed (the PJRT CPU plugin, the MPI
// transport), seen from the code asking: from the library (lib/tlaloc beside it) or
// from a program (../lib/tlaloc). Both are relative, so a prefix moved elsewhere
// keeps working (docs/INSTALL.md).
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

namespace tlaloc::runtime {

// The places a module named `file` may be, in the order to try them.
std::vector<std::filesystem::path> module_candidates(std::string_view file);

}  // namespace tlaloc::runtime
