// The structured dimension-number attributes (#stablehlo.dot<...>, gather, scatter,
// conv): one MLIR attribute spread over several Attrs entries named by the spec.
#pragma once

#include "stablehlo/syntax.hpp"

namespace tlaloc::stablehlo {

bool struct_attr_present(const StableHloAttr& a, const detail::Attrs& attrs);
std::string struct_attr_text(const StableHloAttr& a, const detail::Attrs& attrs);
void decode_struct_attr(const StableHloAttr& a, const AttrNode& n, detail::Attrs& out, Cursor& c);

}  // namespace tlaloc::stablehlo
