// Running programs on backends: the PJRT runtime (docs/PJRT.md). So far only its
// error type; tl::runtime::Session comes with the rest of the runtime.
#pragma once

#include "tlaloc/error.hpp"

namespace tlaloc::runtime {

// A PJRT plugin that cannot be loaded (missing, not a plugin, incompatible version),
// or an error a plugin reported. (Here rather than in tlaloc/error.hpp while only the
// runtime talks to plugins.)
class PluginError : public Error {
 public:
  using Error::Error;
};

}  // namespace tlaloc::runtime
