// The engine's steps at a custom_rule op (src/ad/custom.cpp).
#pragma once

#include "ad/modes.hpp"

namespace tlaloc::ad {

void custom_jvp_step(JvpPass& p, const Op& op);
void custom_vjp_forward(VjpPass& p, const Op& op);
void custom_vjp_backward(VjpPass& p, const Op& op);

}  // namespace tlaloc::ad
