// tl::lax: the low-level op surface (as JAX's jax.lax). These are StableHLO-level
// ops that the user-level functions of ops.hpp are built from, with StableHLO's
// semantics and argument conventions: no broadcasting beyond what the op defines,
// no dtype promotion, axes as given (not negative). Derivative rules and printed
// gradients (tl::gradient_source) are written with them where no user-level
// function says the same thing. Like every op, each one computes on host tensors
// or records into the active trace, and checks its arguments (tlaloc::Error
// naming the op, the shapes and dtypes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tlaloc/tensor.hpp"

namespace tlaloc::lax {

// Operand axis i becomes result axis dims[i]; the operand's sizes are 1 or the
// result's size on that axis (stablehlo.broadcast_in_dim).
Tensor broadcast_in_dim(const Tensor& x, const Shape& shape, const std::vector<std::int64_t>& dims);

// a `direction` b elementwise with broadcasting, as stablehlo.compare.
// direction: "EQ", "NE", "GE", "GT", "LE", "LT". compare_type: "" (from the dtype:
// floats FLOAT, bool and unsigned UNSIGNED, else SIGNED), "FLOAT", "TOTALORDER"
// (floats ordered -NaN < -Inf < ... < -0 < +0 < ... < Inf < NaN), "SIGNED",
// "UNSIGNED".
Tensor compare(const Tensor& a, const Tensor& b, const std::string& direction, const std::string& compare_type = "");

// C's arithmetic (stablehlo.divide and stablehlo.remainder): integer division
// truncates toward zero, the remainder takes the dividend's sign.
Tensor div(const Tensor& a, const Tensor& b);
Tensor rem(const Tensor& a, const Tensor& b);
Tensor cbrt(const Tensor& x);
Tensor round_nearest_afz(const Tensor& x);  // halfway cases away from zero
// x rounded to a float type with the given exponent and mantissa bits, in x's type.
Tensor reduce_precision(const Tensor& x, std::int64_t exponent_bits, std::int64_t mantissa_bits);
// min(max(x, lo), hi) with NaN propagating; lo and hi may be scalars.
Tensor clamp(const Tensor& lo, const Tensor& x, const Tensor& hi);

// x padded with `value` (a scalar of x's dtype): low/high widths per axis (negative
// ones crop) and `interior` elements between neighbours (stablehlo.pad).
Tensor pad(const Tensor& x, const Tensor& value, const std::vector<std::int64_t>& low,
           const std::vector<std::int64_t>& high, const std::vector<std::int64_t>& interior);

// Windows at starts given as integer scalar tensors (computed values), clamped so
// the window fits (stablehlo.dynamic_slice / dynamic_update_slice).
Tensor dynamic_slice(const Tensor& x, const std::vector<Tensor>& starts, const Shape& sizes);
Tensor dynamic_update_slice(const Tensor& x, const Tensor& update, const std::vector<Tensor>& starts);

// The size of one axis as an i32 scalar (known only at run time for a tensor
// whose size a loop decides).
Tensor get_dimension_size(const Tensor& x, std::int64_t dimension);

// The identity, which a compiler may not look through (a scheduling fence).
std::vector<Tensor> optimization_barrier(const std::vector<Tensor>& xs);

}  // namespace tlaloc::lax
