// The programs the public transforms run, as IR functions: what tl::grad, tl::jvp
// and tl::vjp execute, and what tl::gradient_source prints. All but grad_program
// come optimized; tl::grad optimizes grad_program's result (ir::optimize).
#pragma once

#include <vector>

#include "ir/ir.hpp"

namespace tlaloc::ad {

// f returns one floating scalar: (params) -> (f if with_value, then the gradient
// of each wrt parameter), the form of tl::grad and tl::value_and_grad.
ir::Function grad_program(const ir::Function& f, const std::vector<bool>& wrt, bool with_value = false);
// (params, tangents of wrt) -> (results, tangents): tl::jvp.
ir::Function jvp_program(const ir::Function& f, const std::vector<bool>& wrt);
// (params, cotangents of results) -> (results, cotangents of wrt): tl::vjp's pullback.
ir::Function vjp_program(const ir::Function& f, const std::vector<bool>& wrt);
// Forward over reverse: (params, v) -> H v, the Hessian of scalar f (one wrt
// parameter) applied to v; tl::hessian is this over a basis.
ir::Function hvp_program(const ir::Function& f, std::size_t wrt);

}  // namespace tlaloc::ad
