// The engine's forward mode run at build time (engine_rules.cpp): an op's tangent as
// C++ text written from the op's own rule in src/ops.
#pragma once

#include <string>
#include <vector>

#include "ir/op.hpp"
#include "rules.hpp"
#include "tlaloc/tensor.hpp"

namespace tlaloc_grad {

// The tangent of op `r.name` called with n's arguments, from the operands' tangents t
// (empty: zero), written by the AD engine's forward mode: the op recorded on values of
// unknown type named by the generated function's text, tl::ad::JvpPass::step run on
// it (the op's own JVP rule), and the tangent written back as one C++ expression;
// empty where the engine gives none.
std::string engine_tangent(const Rule& r, const Names& n, const std::vector<std::string>& t);

// The attributes of a call of def's public function (OpDef::called_as) whose
// arguments after the tensors are `arguments`, in order; the attributes left out take
// their defaults. Throws std::invalid_argument where there are more than it takes.
tlaloc::detail::Attrs called_attributes(const tlaloc::detail::OpDef& def,
                                        const std::vector<tlaloc::detail::AttrValue>& arguments);

// The op `def` recorded on `in` for a call of its public function whose arguments
// after the tensors are `written`: each an attribute as written (Written), the
// operands converted as the function does.
tlaloc::Tensor record_called(const tlaloc::detail::OpDef& def, std::vector<tlaloc::Tensor> in,
                             const std::vector<std::string>& written);

// The registry op that the function of an elementwise rule records (engine_elementwise).
const tlaloc::detail::OpDef& elementwise_op(const Rule& r);

}  // namespace tlaloc_grad
