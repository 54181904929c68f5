// The shares of a bilinear product's cotangent (matmul_backward, dot_general_backward,
// conv2d_backward) as ops, for values whose types are known at run time only (traced
// at build time, docs/ENGINE_AT_BUILD_TIME.md). Each op runs, lowers and prints as the
// library's function, and carries that function's own rules.
#pragma once

#include <string_view>

#include "ir/op.hpp"

namespace tlaloc::detail {

// Operand `operand`'s share (0: a, 1: b) of g, the cotangent of product(a, b), under
// the product's attributes.
using ShareFn = Tensor (*)(const Tensor& g, const Tensor& a, const Tensor& b, const Attrs& attrs,
                           int operand);
// The product itself.
using ProductFn = Tensor (*)(const Tensor& a, const Tensor& b, const Attrs& attrs);

// An op share(g, a, b) with attribute "operand" k: linear in g and in the other
// operand, reading operand k for its shape only; the share has operand k's type.
// Its spelling is the caller's to give.
OpDef& def_product_share(std::string_view name, ShareFn share, ProductFn product);

// The share by the library's function where every type and attribute is known, else
// recorded as `op` (made by def_product_share).
Tensor share_or_op(const OpDef& op, ShareFn share, const Tensor& g, const Tensor& a, const Tensor& b,
                   const Attrs& attrs, int operand);

}  // namespace tlaloc::detail
