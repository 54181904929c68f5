// Lowerings of Tlaloc's reductions and scans to StableHLO's reduce and
// reduce_window.
#pragma once

#include "ir/op.hpp"

namespace tlaloc::detail {

enum class ReduceBody : std::uint8_t { add, mul, max, min };

// Lowers the registry reduction `op` (attrs `axes`, `keepdims`) to stablehlo.reduce
// with `body` and its identity as the init value, as JAX does.
LowerFn lower_to_reduce(std::string op, ReduceBody body);

// argmax / argmin (attrs `axis`, `keepdims`) as a variadic stablehlo.reduce of
// (value, iota index) pairs; ties go to the smallest index, NaN is the extreme.
LowerFn lower_arg_reduce(bool is_max);
// cumsum / cumprod (attr `axis`; body add or mul) as stablehlo.reduce_window.
LowerFn lower_scan(std::string op, ReduceBody body);

}  // namespace tlaloc::detail
