// Lowerings of the one-axis indexing ops (src/ops/indexing.cpp) to StableHLO
// gather and scatter with fixed dimension numbers.
#pragma once

#include "ir/op.hpp"

namespace tlaloc::detail {

// take (along = false) or take_along_axis (along = true) as stablehlo.gather.
LowerFn lower_take(bool along);
// index_add (along = false) or scatter_add (along = true) as stablehlo.scatter
// with an `add` update computation.
LowerFn lower_index_add(bool along);

}  // namespace tlaloc::detail
