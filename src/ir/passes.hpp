// Function-level passes. Each returns a new function and leaves the input alone.
#pragma once

#include "ir/ir.hpp"

namespace tlaloc::ir {

// Removes ops whose results are unused and that have no side effects.
Function dce(const Function& f);
// Merges ops with the same op, operands, attributes and no regions or side effects.
Function cse(const Function& f);
// Runs ops whose operands are all constants (below a size limit) at compile time,
// with the same kernels, so the folded value is the value the program would compute.
Function fold_constants(const Function& f);
// Rewrites patterns that need no arithmetic: x+0, x*1, x-0, x/1 (exact in IEEE),
// neg(neg x), a convert or broadcast or reshape to the operand's own type,
// transpose of transpose, reshape of reshape.
Function simplify(const Function& f);
// simplify, fold_constants, cse and dce until nothing changes.
Function optimize(const Function& f);

}  // namespace tlaloc::ir
