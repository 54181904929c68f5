#include "stablehlo/struct_attrs.hpp"

#include <fmt/format.h>

namespace tlaloc::stablehlo {

// Filled in with the ops that use them (dot_general, gather, scatter, convolution).
bool struct_attr_present(const StableHloAttr& a, const detail::Attrs&) {
  throw Error(fmt::format("StableHLO attribute '{}' has no codec yet", a.name));
}

std::string struct_attr_text(const StableHloAttr& a, const detail::Attrs&) {
  throw Error(fmt::format("StableHLO attribute '{}' has no codec yet", a.name));
}

void decode_struct_attr(const StableHloAttr& a, const AttrNode& n, detail::Attrs&, Cursor& c) {
  c.fail_at(n.pos, fmt::format("StableHLO attribute '{}' is not supported yet", a.name));
}

}  // namespace tlaloc::stablehlo
