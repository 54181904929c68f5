// Rows whose rules are written with ops of another family (reverse, pad, slice)
// check second order only where those ops have derivative rules of their own:
// first order never needs them, the derivative of a rule does.
#pragma once

#include <initializer_list>
#include <string_view>

#include "ops/op.hpp"

namespace gradcheck {

inline bool have_rules(std::initializer_list<std::string_view> ops) {
  for (std::string_view name : ops) {
    const tlaloc::detail::OpDef* op = tlaloc::detail::find_op(name);
    if (op == nullptr || !op->jvp_rule() || !op->vjp_rule()) return false;
  }
  return true;
}

}  // namespace gradcheck
