// What the rule files (rules.cpp, rules_layout.cpp) share: the table they fill and
// the few ways they write C++ text.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "rules.hpp"

namespace tlaloc_grad {

using RuleTable = std::map<std::string, Rule, std::less<>>;

// An expression's text as an operand of a binary operator: parenthesized unless it is
// a name, a number or a call, negated or not, or a recording's placeholder (written in
// with parentheses where its value needs them: engine_writer.hpp).
std::string paren(const std::string& s);
// "a, b, c", and the braced "{a, b, c}" (a list argument).
std::string comma_list(const std::vector<std::string>& items);
std::string braced(const std::vector<std::string>& items);
// `tl::fn(args...)`.
std::string call(const std::string& fn, const std::vector<std::string>& args);
// The forward call as the user wrote it: `tl::<rule name>(operands...)`.
std::string spell_call(const Rule& r, const Names& n);
std::string shape_of(const std::string& t);
// `share` converted to tensor t's dtype (the transpose of a conversion the forward
// call made; astype returns the share itself where the dtypes agree).
std::string in_dtype_of(const std::string& share, const std::string& t);
// Ops linear in operand 0: the op applied to its tangent, the other operands as they are
// (shapes, or tensors the result does not vary with: one read for its shape and dtype,
// a pool's routing); zero where operand 0 has none.
std::string linear_jvp(const Rule& r, const Names& n, const std::vector<std::string>& t);
// Ops linear in the listed tensor operands jointly: the op applied to their tangents,
// zeros (like the operand) standing in for a missing one.
std::string jointly_linear_jvp(const Rule& r, const Names& n, const std::vector<std::string>& t,
                               const std::vector<std::size_t>& linear);

// The rules of ops that move data without arithmetic: layout, joins, slices and
// indexing (rules_layout.cpp).
void add_layout_rules(RuleTable& t);

}  // namespace tlaloc_grad
