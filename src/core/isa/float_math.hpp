// f32 transcendental kernels compiled once per instruction set (the library's
// default, AVX2, and AVX-512), chosen at run time by what the processor supports. Both builds run
// the same scalar code from core/vmath.hpp, whose fused operations are explicit,
// so they give identical bits; only the vector width differs.
#pragma once

#include <cstdint>

namespace tlaloc::detail {

enum class FloatFn : std::uint8_t {
  exp, expm1, log, log1p, tanh, sigmoid, silu, softplus, erf, gelu_erf, gelu_tanh, sin, cos
};

// y[i] = fn(x[i]) for i in [0, n), with the widest instruction set available.
void float_math(FloatFn fn, const float* x, float* y, std::int64_t n);

// The two builds, for tests that compare them. `_avx512` needs AVX-512F/BW/VL/DQ
// and exists only on x86-64 (cpu_has_avx512() is false elsewhere).
void float_math_base(FloatFn fn, const float* x, float* y, std::int64_t n);
void float_math_avx512(FloatFn fn, const float* x, float* y, std::int64_t n);
bool cpu_has_avx512();

}  // namespace tlaloc::detail
