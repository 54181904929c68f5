// The structured dimension-number attributes (#stablehlo.dot<...>, gather, scatter,
// conv): one MLIR attribute spread over several Attrs entries named by the spec.
#pragma once

#include "stablehlo/syntax.hpp"

namespace tlaloc::stablehlo {

bool struct_attr_present(const StableHloAttr& a, const detail::Attrs& attrs);
std::string struct_attr_text(const StableHloAttr& a, const detail::Attrs& attrs);
// A convolution's layouts as the compact form writes them, `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`
// (the pretty form's dim_numbers and the body of #stablehlo.conv<...>).
std::string conv_layouts_text(const detail::Attrs& attrs);
void parse_conv_layouts(Cursor& c, detail::Attrs& out);
void decode_struct_attr(const StableHloAttr& a, const AttrNode& n, detail::Attrs& out, Cursor& c);

}  // namespace tlaloc::stablehlo
