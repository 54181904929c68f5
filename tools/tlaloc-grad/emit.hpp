// Writes a lowered program's gradient as one C++ function over the public API (the
// readable `.grad.cpp` tlaloc-grad leaves in its dump directory).
#pragma once

#include <string>

#include "program.hpp"

namespace tlaloc_grad {

// `inline tl::Tensor NAME(params...)` returning the gradient with respect to the
// program's wrt parameter (a std::vector of them when listed), or (with_value)
// std::pair{value, gradient}.
std::string emit_gradient(const Program& p, bool with_value);

// `inline std::pair<tl::Tensor, tl::Tensor> NAME(params..., t_<wrt>, captures...)`:
// the value and its derivative along the tangent t_<wrt> (tl::jvp).
std::string emit_jvp(const Program& p);

// tl::hessian: `inline tl::Tensor NAME(params...)`, the Hessian of p with respect to
// its wrt parameter, from `gradient`, p's generated gradient lowered again (forward
// mode over it, along each basis vector, as the engine's jacfwd(jacrev(f))).
std::string emit_hessian(const Program& p, const Program& gradient);

// `inline std::pair<tl::Tensor, tl::Pullback> NAME(params...)`: the value and a
// pullback taking the result's cotangent, giving one per wrt parameter (tl::vjp).
std::string emit_vjp(const Program& p);

}  // namespace tlaloc_grad
