// The few ways the tool writes C++ text that its files share (rules.cpp).
#pragma once

#include <string>
#include <vector>

#include "rules.hpp"

namespace tlaloc_grad {

// An expression's text as an operand of a binary operator: parenthesized unless it is
// a name, a number or a call, negated or not, or a recording's placeholder (written in
// with parentheses where its value needs them: engine_writer.hpp).
std::string paren(const std::string& s);
// "a, b, c", and the braced "{a, b, c}" (a list argument).
std::string comma_list(const std::vector<std::string>& items);
std::string braced(const std::vector<std::string>& items);

}  // namespace tlaloc_grad
