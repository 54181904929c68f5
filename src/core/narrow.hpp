// The narrow storage types (docs/DTYPES.md): 2- and 4-bit integers and the 4-, 6- and
// 8-bit floats. Each element takes one byte: a narrow integer holds its value sign- or
// zero-extended (so its bytes read as i8 or u8), a narrow float its bits in the low
// bits. Kernels never see them: ops compute in compute_dtype and round back here.
#pragma once

#include <cstdint>

#include "tlaloc/tensor.hpp"

namespace tlaloc::detail {

// The value of a narrow float's bits (NaN and infinities included).
double narrow_float_value(DType t, std::uint8_t bits);
// v rounded to the nearest value of narrow float t, as bits: ties to the even
// encoding (up in f8e8m0fnu, which has no mantissa bit). Overflow gives infinity
// where t has one, else NaN where t has one, else the largest value; NaN gives NaN,
// or zero where t has none.
std::uint8_t narrow_float_bits(DType t, double v);
// A narrow integer's byte from any integer: two's-complement wrap to the width.
std::uint8_t narrow_int_byte(DType t, std::int64_t v);

// x (a narrow type) in its compute_dtype, each value exact.
Tensor widened(const Tensor& x);
// x rounded to narrow type t. x is t's compute_dtype, or f64 for a narrow float.
// Integers wrap, unless `saturate` (values from a floating type): they clamp.
Tensor narrowed(const Tensor& x, DType t, bool saturate = false);

}  // namespace tlaloc::detail
