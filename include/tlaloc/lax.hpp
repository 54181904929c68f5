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
#include <functional>
#include <span>
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

// ---- ops with a region ---------------------------------------------------------------
// A region: a C++ callable from scalars (rank-0 tensors) to scalars, traced once
// into the op (on host tensors the op runs a one-op program of it; inside a
// trace the op is recorded with the traced region). It may use tensors it
// captures as constants.
using Region = std::function<std::vector<Tensor>(std::span<const Tensor>)>;

// inputs reduced over `dimensions` by `body`, starting from `inits` (one scalar
// per input): body(a) takes the accumulators a[0..n) (the inits' dtypes), then one
// element of each input a[n..2n), and returns the n new accumulators
// (stablehlo.reduce). The elements are combined in an unspecified order.
std::vector<Tensor> reduce(const std::vector<Tensor>& inputs, const std::vector<Tensor>& inits,
                           const std::vector<std::int64_t>& dimensions, const Region& body);

// inputs (of one shape) sorted together along `dimension`, ordered by
// `comparator`: it takes two elements of each input (a[2i] and a[2i+1] of input
// i) and returns a boolean scalar, true when the first goes before the second
// (stablehlo.sort). The sort is stable.
std::vector<Tensor> sort(const std::vector<Tensor>& inputs, std::int64_t dimension, const Region& comparator);

// `body` applied at each position to one element of each input (of one shape);
// it returns one scalar, whose dtype is the result's (stablehlo.map over all axes).
Tensor map(const std::vector<Tensor>& inputs, const Region& body);

}  // namespace tlaloc::lax
