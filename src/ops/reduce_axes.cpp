#include "ops/reduce_axes.hpp"

#include "core/check.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/like.hpp"

namespace tlaloc::detail {

Attrs reduction_attrs(std::string_view op, const Tensor& x, const Axes& axes, bool keepdims) {
  if (is_untyped(x)) {
    Attrs a{{"axes", axes.list()}, {"keepdims", keepdims}};
    if (axes.all()) a.set("all", true);
    return a;
  }
  const Attrs written{{"axes", axes.list()}, {"all", axes.all()}};
  return {{"axes", reduced_axes(op, written, x.rank())}, {"keepdims", keepdims}};
}

bool every_axis(const Attrs& attrs) { return attrs.has("all") && attrs.get<bool>("all"); }

std::vector<std::int64_t> reduced_axes(std::string_view op, const Attrs& attrs, std::int64_t rank) {
  if (!every_axis(attrs)) return normalize_axes(op, attrs.get<std::vector<std::int64_t>>("axes"), rank);
  std::vector<std::int64_t> all(static_cast<std::size_t>(rank));
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = std::int64_t(i);
  return all;
}

Axes axes_of(const Attrs& attrs) {
  return every_axis(attrs) ? Axes() : Axes(attrs.get<std::vector<std::int64_t>>("axes"));
}

std::string cpp_axes_of(const Attrs& attrs) {
  return every_axis(attrs) ? "{}" : cpp_axes(attrs.get<std::vector<std::int64_t>>("axes"));
}

}  // namespace tlaloc::detail
