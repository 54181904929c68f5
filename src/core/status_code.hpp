// The names of absl::StatusCode's values ("INVALID_ARGUMENT"), which both C ABIs
// Tlaloc speaks (PJRT's and XLA's FFI) use for their error codes.
#pragma once

#include <string>

namespace tlaloc::detail {

// The code's name, or "code N" for one outside 0..16.
std::string status_code_name(int code);

}  // namespace tlaloc::detail
