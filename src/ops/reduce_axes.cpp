#include "ops/reduce_axes.hpp"

#include "core/check.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/like.hpp"

namespace tlaloc::detail {

Attrs reduction_attrs(std::string_view op, const Tensor& x, const Axes& axes, bool keepdims) {
  if (is_untyped(x)) {
    // "all" either way: a printer cannot compare the axes with an unknown rank.
    return {{"axes", axes.list()}, {"keepdims", keepdims}, {"all", axes.all()}};
  }
  const Attrs written{{"axes", axes.list()}, {"all", axes.all()}};
  return {{"axes", reduced_axes(op, written, x.rank())}, {"keepdims", keepdims}};
}

// A call tlaloc-grad records without axes names none: every axis, as "all" says.
bool every_axis(const Attrs& attrs) {
  return !attrs.has("axes") || (attrs.has("all") && attrs.get<bool>("all"));
}

// The axes as a list; one axis may be given alone, as tl::Axes takes it (tl::sum(x, 1)
// read by tlaloc-grad).
static std::vector<std::int64_t> listed_axes(const Attrs& attrs) {
  for (const auto& [key, v] : attrs.items())
    if (const auto* one = std::get_if<std::int64_t>(&v); key == "axes" && one != nullptr) return {*one};
  return attrs.get<std::vector<std::int64_t>>("axes");
}

std::vector<std::int64_t> reduced_axes(std::string_view op, const Attrs& attrs, std::int64_t rank) {
  if (!every_axis(attrs)) return normalize_axes(op, listed_axes(attrs), rank);
  std::vector<std::int64_t> all(static_cast<std::size_t>(rank));
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = std::int64_t(i);
  return all;
}

Axes axes_of(const Attrs& attrs) { return every_axis(attrs) ? Axes() : Axes(listed_axes(attrs)); }

std::string cpp_axes_of(const Attrs& attrs) {
  if (every_axis(attrs)) return "{}";
  if (const std::string* written = cpp_written(attrs, "axes")) return *written;
  return cpp_axes(attrs.get<std::vector<std::int64_t>>("axes"));
}

}  // namespace tlaloc::detail
