// The targets of stablehlo.custom_call that the host interpreter runs besides the
// checks (ops/check.cpp, where the op is defined): each file that knows a target
// registers its kernel under the target's name.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "ir/ir.hpp"
#include "ir/op.hpp"
#include "tlaloc/kernel.hpp"
#include "tlaloc/xla_ffi.h"

namespace tlaloc::detail {

// The XLA FFI handlers of a target, what a runtime registers with a PJRT plugin: one
// for the host (a CPU plugin) and one for CUDA (a CUDA plugin), either may be absent.
struct FfiHandlers {
  tlaloc_ffi_handler* host = nullptr;
  tlaloc_ffi_handler* cuda = nullptr;
};

// What a target is: how it runs, how printed C++ spells it, its derivative rules
// (none: a derivative reaching it is refused by name) and its XLA FFI handlers.
struct CustomCallTarget {
  Kernel kernel;
  CppSpelling cpp;
  DerivRule jvp = nullptr, vjp = nullptr;
  FfiHandlers ffi = {};
};

// The attributes a target reads from its op, each under this prefix: StableHLO text
// writes them as the dictionary `backend_config` (api_version 4, XLA's typed FFI).
inline constexpr std::string_view kBackendConfigPrefix = "backend_config.";
// Those attributes, by their names in backend_config.
KernelAttrs kernel_attrs(const Attrs& attrs);

// Returns true, so that a file registers its targets as it initialises; a name
// registered twice is refused.
bool def_custom_call_target(std::string name, CustomCallTarget target);
const CustomCallTarget* find_custom_call_target(std::string_view name);

// Refuses, naming it, a custom_call of `m` whose target nothing registered (before
// the program runs: a program is compiled against the targets it names).
void refuse_unknown_targets(const ir::Module& m);

// The XLA FFI handlers of the targets `m` calls that have any, by target name: what a
// runtime registers with a PJRT plugin before the plugin compiles `m`.
std::map<std::string, FfiHandlers> ffi_handlers(const ir::Module& m);

}  // namespace tlaloc::detail
