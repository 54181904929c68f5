// Writes a lowered program's gradient as one C++ function over the public API (the
// readable `.grad.cpp` tlaloc-grad leaves in its dump directory).
#pragma once

#include <string>

#include "program.hpp"

namespace tlaloc_grad {

// `inline tl::Tensor NAME(params...)` returning the gradient with respect to the
// program's wrt parameter, or (with_value) std::pair{value, gradient}.
std::string emit_gradient(const Program& p, bool with_value);

}  // namespace tlaloc_grad
