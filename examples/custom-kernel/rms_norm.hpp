// The fused RMSNorm kernels (rms_norm_kernels.cpp) as Tlaloc ops, and the same
// function composed of library ops, the reference they are checked against.
#pragma once

#include <tlaloc/tlaloc.hpp>

namespace rms {

namespace tl = tlaloc;

inline constexpr double kEps = 1e-6;

// y = x / sqrt(mean(x^2 over the last axis) + eps) * w, for x [n, d] and w [d] in f32.
// Its derivative is the backward kernel: one pass gives dx and dw.
tl::Tensor rms_norm(const tl::Tensor& x, const tl::Tensor& w);

// The same function, composed of library ops.
tl::Tensor rms_norm_composed(const tl::Tensor& x, const tl::Tensor& w);

}  // namespace rms
