// Conversion of one element between any two supported element types, without UB:
// NaN converts to 0 and out-of-range values saturate when going to an integer.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "tlaloc/dtype.hpp"
#include "tlaloc/tensor.hpp"

namespace tlaloc::detail {

template <class T> inline constexpr bool is_half_v = std::is_same_v<T, bf16> || std::is_same_v<T, f16>;

// The type a kernel computes in for element type T: 16-bit floats widen to float.
template <class T> using compute_t = std::conditional_t<is_half_v<T>, float, T>;

template <class T>
inline constexpr bool is_complex_v = false;
template <class R>
inline constexpr bool is_complex_v<std::complex<R>> = true;

template <class To, class From> inline To convert_value(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (is_complex_v<From>) {
    // To a real type or bool: the real part's (the imaginary part is dropped, as the spec says).
    if constexpr (is_complex_v<To>)
      return To(typename To::value_type(v.real()), typename To::value_type(v.imag()));
    else
      return convert_value<To>(v.real());
  } else if constexpr (is_complex_v<To>) {
    return To(convert_value<typename To::value_type>(v), typename To::value_type(0));
  } else if constexpr (is_half_v<From>) {
    return convert_value<To>(static_cast<float>(v));
  } else if constexpr (is_half_v<To>) {
    return To(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    if (std::isnan(v)) return To(0);
    constexpr auto lo = double(std::numeric_limits<To>::min());
    constexpr auto hi = double(std::numeric_limits<To>::max());
    const double d = double(v);
    if (d <= lo) return std::numeric_limits<To>::min();
    if (d >= hi) return std::numeric_limits<To>::max();
    return static_cast<To>(v);
  } else if constexpr (std::is_integral_v<From> && std::is_integral_v<To>) {
    // Two's-complement wrap, as StableHLO's convert (and C++20) define it.
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

// A new host tensor holding x's elements converted to dtype t: the convert op's
// kernel, and what Tensor::to_vector reads.
Tensor converted(const Tensor& x, DType t);

}  // namespace tlaloc::detail
