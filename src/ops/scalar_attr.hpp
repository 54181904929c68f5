// A scalar argument held as an attribute (tl::full's value, a weak scalar's), as it
// was written: a double, an int64 or a bool.
#pragma once

#include <string_view>

#include "ir/op.hpp"

namespace tlaloc::detail {

// The scalar attribute `name` of op `op` (named in the error where it holds none).
Scalar scalar_attr(std::string_view op, const Attrs& attrs, std::string_view name);

}  // namespace tlaloc::detail
