// Lowerings of Tlaloc's reductions to StableHLO's reduce with a one-op body.
#pragma once

#include "ops/op.hpp"

namespace tlaloc::detail {

enum class ReduceBody : std::uint8_t { add, mul, max, min };

// Lowers the registry reduction `op` (attrs `axes`, `keepdims`) to stablehlo.reduce
// with `body` and its identity as the init value, as JAX does.
LowerFn lower_to_reduce(std::string op, ReduceBody body);

}  // namespace tlaloc::detail
