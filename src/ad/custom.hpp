// The engine's steps at a custom_rule op, and what the public custom rules share
// with them (src/ad/custom.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ad/modes.hpp"
#include "tlaloc/custom.hpp"

namespace tlaloc::ad {

void custom_jvp_step(JvpPass& p, const Op& op);
void custom_vjp_forward(VjpPass& p, const Op& op);
void custom_vjp_backward(VjpPass& p, const Op& op);

// The index a custom_rule op names its rule by (its "rule" attribute).
std::int64_t register_rule(const std::shared_ptr<const detail::CustomRule>& r);

// Applies a program to arguments: the engine records it into the trace that owns
// them (record_call); the public API may also run it on host tensors.
using ApplyFn = std::function<std::vector<Tensor>(const Function&, std::span<const Tensor>)>;

// custom_jvp in reverse mode: the rule's tangent map at `primals`, traced, is
// transposed by the engine, which is only right when that map is linear (otherwise
// `nonlinear` is called with the op that is not). Returns each argument's cotangent
// for the results' `seeds` (undefined: zero), the transposed map applied by `apply`.
std::vector<Tensor> transpose_jvp_rule(const detail::CustomRule& rule, std::span<const Tensor> primals,
                                       std::span<const TensorType> results, std::span<const Tensor> seeds,
                                       const std::function<void(const std::string&)>& nonlinear,
                                       const ApplyFn& apply);
std::string nonlinear_message(const std::string& rule, const std::string& op);

}  // namespace tlaloc::ad
