// StableHLO tensor types: `tensor<2x?x3xf32>` and element types (i1, si/ui, f16...).
#pragma once

#include <optional>
#include <string>

#include "ir/ir.hpp"
#include "stablehlo/cursor.hpp"

namespace tlaloc::stablehlo {

using detail::TensorType;

// Dimensions larger than this are refused when parsing (a typo, not a tensor).
inline constexpr std::int64_t kMaxDim = std::int64_t(1) << 40;

std::string element_type_name(DType t);  // "f32", "i1", "ui8", ...
std::optional<DType> element_type_of(std::string_view name);
std::string type_text(const ir::TensorType& t);  // "tensor<2x?xf32>"

ir::TensorType parse_type(Cursor& c);  // tensor<...> (ranked only)
DType parse_element_type(Cursor& c);
bool at_type(Cursor& c);  // the next text starts a type

}  // namespace tlaloc::stablehlo
