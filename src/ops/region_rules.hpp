// Derivative rules of the StableHLO ops that carry regions (scatter, reduce,
// reduce_window, sort, map), and what they share. A rule sees only the name of
// the op each region applies to its two arguments (Rule::body: "add", "maximum",
// ...), not the region itself, so it supports the bodies it can rebuild and
// refuses any other by name. The rules live beside their ops' files
// (scatter_rules.cpp, ...) and are attached in the op declarations.
#pragma once

#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

#include "ir/builder.hpp"
#include "ops/rule.hpp"

namespace tlaloc::detail {

// Throws NotDifferentiableError "tl::<op>: <why>".
[[noreturn]] void refuse_rule(std::string_view op, std::string_view why);

// Records registry op `op` on `in` (under the trace that owns them) with one
// region built by `body` on arguments of `region_args` types, and returns its
// results, whose types the op's shape rule gives.
std::vector<Tensor> record_with_region(std::string_view op, std::span<const Tensor> in, const Attrs& attrs,
                                       std::span<const TensorType> region_args, const ir::RegionBody& body);
// ...with the region applying registry op `body` ("add", "maximum") to two
// scalars of dtype t.
std::vector<Tensor> record_with_body(std::string_view op, std::span<const Tensor> in, const Attrs& attrs,
                                     DType t, std::string_view body);

// x padded by (lo, hi) per axis with `interior` holes between elements, holding
// `fill` (negative widths crop, as StableHLO's pad).
Tensor pad_with(const Tensor& x, double fill, const std::vector<std::int64_t>& lo,
                const std::vector<std::int64_t>& hi, const std::vector<std::int64_t>& interior);

// The rules (scatter_rules.cpp, reduce_region_rules.cpp, reduce_window_rules.cpp,
// sort_rules.cpp, map.cpp).
std::vector<Tensor> scatter_jvp(const Rule& r);
std::vector<Tensor> scatter_vjp(const Rule& r);
std::vector<Tensor> reduce_jvp(const Rule& r);
std::vector<Tensor> reduce_vjp(const Rule& r);
std::vector<Tensor> reduce_window_jvp(const Rule& r);
std::vector<Tensor> reduce_window_vjp(const Rule& r);
std::vector<Tensor> sort_jvp(const Rule& r);
std::vector<Tensor> sort_vjp(const Rule& r);

}  // namespace tlaloc::detail
