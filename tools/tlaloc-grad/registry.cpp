// The one place tlaloc-grad reads the library's op registry: the derivative of a
// unary elementwise op as written beside its kernel (src/ops/unary.cpp).
#include "ops/op.hpp"
#include "rules.hpp"

namespace tlaloc_grad {

std::string registry_derivative(const std::string& op) {
  const tlaloc::detail::OpDef* def = tlaloc::detail::find_op(op);
  return def == nullptr ? std::string() : def->derivative_text();
}

}  // namespace tlaloc_grad
