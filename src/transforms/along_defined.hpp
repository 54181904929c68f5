// Forward mode over a library function of several tensors, along the tangents that are
// given: what generated Hessians call where the engine differentiates the ops a
// function records (prod_backward_jvp, a custom rule's halves).
#pragma once

#include <span>
#include <utility>

#include "tlaloc/control.hpp"
#include "tlaloc/transforms.hpp"

namespace tlaloc::transforms {

// f's results at args and their derivatives along the defined ones of `tangents`,
// the other arguments held constant (the engine's zero tangents are absent, not
// tensors of zeros). With no tangent defined, f runs as is and every tangent out is
// undefined.
std::pair<detail::Values, detail::Values> along_defined(const detail::FlatFn& f, std::span<const Tensor> args,
                                                        std::span<const Tensor> tangents);

}  // namespace tlaloc::transforms
