#include "core/status_code.hpp"

#include <fmt/format.h>

#include <array>
#include <string_view>

namespace tlaloc::detail {

std::string status_code_name(int code) {
  static constexpr std::array<std::string_view, 17> names = {
      "OK",        "CANCELLED",      "UNKNOWN",           "INVALID_ARGUMENT",   "DEADLINE_EXCEEDED",
      "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
      "ABORTED",   "OUT_OF_RANGE",   "UNIMPLEMENTED",     "INTERNAL",           "UNAVAILABLE",
      "DATA_LOSS", "UNAUTHENTICATED"};
  if (code >= 0 && code < static_cast<int>(names.size()))
    return std::string(names[static_cast<std::size_t>(code)]);
  return fmt::format("code {}", code);
}

}  // namespace tlaloc::detail
