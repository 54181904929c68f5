// The engine's derivative rules run at build time (engine_rules.cpp): the share of
// an elementwise op's operand, or its result's tangent, as C++ text written from the
// op's own rule in src/ops.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rules.hpp"

namespace tlaloc_grad {

// Operand i's share of the cotangent n.g of registry op `op` (empty: none), or
// nullopt where the rule reads a rank, shape or dtype, which are known only at run
// time, or the registry has no such rule.
std::optional<std::string> engine_vjp(std::string_view op, std::size_t i, const Names& n);

// The tangent of op `r.name` called with n's arguments, from the operands' tangents t
// (empty: zero), written by the AD engine's forward mode: the op recorded on values of
// unknown type named by the generated function's text, tl::ad::JvpPass::step run on
// it (the op's own JVP rule, or for an op the tool spells from its rules, that rule's
// text), and the tangent written back as one C++ expression; empty where the engine
// gives none.
std::string engine_tangent(const Rule& r, const Names& n, const std::vector<std::string>& t);

// The registry's elementwise ops whose rules come from partial derivatives
// (OpDef::partials) and which are spelled by their own name, `tl::<name>(...)` or an
// operator: the public functions the user writes. With their operand counts.
std::vector<std::pair<std::string, std::size_t>> engine_elementwise_ops();

}  // namespace tlaloc_grad
