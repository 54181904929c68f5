// The targets of stablehlo.custom_call that the host interpreter runs besides the
// checks (ops/check.cpp, where the op is defined): each file that knows a target
// registers its kernel under the target's name.
#pragma once

#include <string>
#include <string_view>

#include "ir/op.hpp"

namespace tlaloc::detail {

// What a target is: how it runs, and how printed C++ spells it.
struct CustomCallTarget {
  Kernel kernel;
  CppSpelling cpp;
};

// Returns true, so that a file registers its targets as it initialises.
bool def_custom_call_target(std::string name, CustomCallTarget target);
const CustomCallTarget* find_custom_call_target(std::string_view name);

}  // namespace tlaloc::detail
