// Error reporting: every message starts with the op's public name.
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string_view>

#include "tlaloc/error.hpp"
#include "tlaloc/tensor.hpp"

namespace tlaloc::detail {

template <class E = Error, class... Args>
[[noreturn]] void fail(std::string_view op, fmt::format_string<Args...> f, Args&&... args) {
  throw E(fmt::format("tl::{}: {}", op, fmt::format(f, std::forward<Args>(args)...)));
}

// Maps axis in [-rank, rank) to [0, rank), or throws AxisError naming op.
std::int64_t normalize_axis(std::string_view op, std::int64_t axis, std::int64_t rank);
// Sorted, unique, normalized axes; `all` gives every axis.
std::vector<std::int64_t> normalize_axes(std::string_view op, const std::vector<std::int64_t>& axes,
                                         std::int64_t rank);

}  // namespace tlaloc::detail

template <> struct fmt::formatter<tlaloc::DType> : fmt::formatter<std::string_view> {
  auto format(tlaloc::DType t, format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(tlaloc::dtype_name(t), ctx);
  }
};
