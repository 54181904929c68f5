// Applying a traced program to arguments, the step every public transform ends with.
#pragma once

#include <span>
#include <vector>

#include "ir/ir.hpp"

namespace tlaloc::transforms {

// Runs f on args: recorded into the trace that owns one of them (f's ops are
// inlined there, ad::record_call), or run by the interpreter when all are host
// tensors.
std::vector<Tensor> apply(const ir::Function& f, std::span<const Tensor> args);

}  // namespace tlaloc::transforms
