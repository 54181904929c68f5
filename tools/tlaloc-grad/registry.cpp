// The one place tlaloc-grad reads the library's op registry: the derivatives of the
// elementwise ops as written beside their kernels (src/ops/unary.cpp, binary.cpp).
#include "ops/op.hpp"
#include "rules.hpp"

namespace tlaloc_grad {

std::vector<std::pair<std::string, std::vector<std::string>>> registry_derivatives() {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const tlaloc::detail::OpDef* def : tlaloc::detail::all_ops())
    if (!def->derivative_texts().empty()) out.emplace_back(def->name(), def->derivative_texts());
  return out;
}

}  // namespace tlaloc_grad
