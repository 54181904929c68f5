// A reduction's axes as op attributes ("axes", "keepdims"). Where the operand's rank
// is known they are normalised when the op is recorded; where it is known only at run
// time (a value traced at build time, docs/ENGINE_AT_BUILD_TIME.md) they are kept as
// written, "all" standing for every axis, and normalised wherever they are read.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/op.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::detail {

Attrs reduction_attrs(std::string_view op, const Tensor& x, const Axes& axes, bool keepdims);
// The sorted, normalised axes the attributes name, for an operand of `rank`.
std::vector<std::int64_t> reduced_axes(std::string_view op, const Attrs& attrs, std::int64_t rank);
// The axes as the public functions take them.
Axes axes_of(const Attrs& attrs);
// The axes argument of a printed call: `{}` for every axis.
std::string cpp_axes_of(const Attrs& attrs);
// Whether the attributes say "every axis" without the rank.
bool every_axis(const Attrs& attrs);

}  // namespace tlaloc::detail
