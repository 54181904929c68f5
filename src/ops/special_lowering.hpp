// StableHLO decompositions of special functions that chlo has no op for.
#pragma once

#include <span>
#include <vector>

#include "ir/op.hpp"

namespace tlaloc::detail {

std::vector<Tensor> lower_bessel_i0e(std::span<const Tensor> in, const Attrs& attrs);
// P(a, x) and Q(a, x) with two while loops (the series and the continued fraction).
std::vector<Tensor> lower_igamma(std::span<const Tensor> in, const Attrs& attrs);
std::vector<Tensor> lower_igammac(std::span<const Tensor> in, const Attrs& attrs);
// I_x(a, b) with a while loop (the continued fraction).
std::vector<Tensor> lower_betainc(std::span<const Tensor> in, const Attrs& attrs);

}  // namespace tlaloc::detail
