// Element types, their sizes and names, the 16-bit float storage types, and the
// promotion rule used by every binary op (docs/DTYPES.md).
#pragma once

#include <bit>
#include <complex>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "tlaloc/export.hpp"

TLALOC_PUBLIC_BEGIN
namespace tlaloc {

// New types go at the end: the numeric values are stable.
enum class DType : std::uint8_t {
  f32,
  f64,
  bf16,
  f16,
  i8,
  i32,
  i64,
  u8,
  boolean,
  i16,
  u16,
  u32,
  u64,
  c64,
  c128,
  // Narrow storage types (docs/DTYPES.md): one element per byte; ops compute in
  // compute_dtype (i8, u8 or f32) and round each result back.
  i2,
  i4,
  u2,
  u4,
  f8e3m4,
  f8e4m3,
  f8e4m3fn,
  f8e4m3fnuz,
  f8e4m3b11fnuz,
  f8e5m2,
  f8e5m2fnuz,
  f8e8m0fnu,
  f4e2m1fn,
  f6e2m3fn,
  f6e3m2fn
};

// Every real element type with kernels of its own; complex_dtypes and narrow_dtypes
// hold the others.
inline constexpr DType all_dtypes[] = {DType::f32, DType::f64, DType::bf16,   DType::f16, DType::i8,
                                       DType::i16, DType::i32, DType::i64,    DType::u8,  DType::u16,
                                       DType::u32, DType::u64, DType::boolean};
inline constexpr DType complex_dtypes[] = {DType::c64, DType::c128};
inline constexpr DType narrow_dtypes[] = {DType::i2,       DType::i4,         DType::u2,
                                          DType::u4,       DType::f8e3m4,     DType::f8e4m3,
                                          DType::f8e4m3fn, DType::f8e4m3fnuz, DType::f8e4m3b11fnuz,
                                          DType::f8e5m2,   DType::f8e5m2fnuz, DType::f8e8m0fnu,
                                          DType::f4e2m1fn, DType::f6e2m3fn,   DType::f6e3m2fn};

std::string_view dtype_name(DType t);  // "f32", ..., "bool", "c64", "c128", "i4", "f8e4m3fn"
std::size_t itemsize(DType t);         // bytes per element in memory (1 for the narrow types)
int bit_width(DType t);                // bits of the value: 4 for i4, 8 for f8e5m2, 1 for bool
// The types stored one per byte whose kernels are those of compute_dtype.
constexpr bool is_narrow(DType t) { return t >= DType::i2 && t <= DType::f6e3m2fn; }
constexpr bool is_narrow_float(DType t) { return t >= DType::f8e3m4 && t <= DType::f6e3m2fn; }
// The type a narrow type's ops compute in (i8, u8 or f32); other types map to themselves.
constexpr DType compute_dtype(DType t) {
  return t == DType::i2 || t == DType::i4   ? DType::i8
         : t == DType::u2 || t == DType::u4 ? DType::u8
         : is_narrow_float(t)               ? DType::f32
                                            : t;
}
constexpr bool is_floating(DType t) {
  return t == DType::f32 || t == DType::f64 || t == DType::bf16 || t == DType::f16 || is_narrow_float(t);
}
constexpr bool is_half(DType t) { return t == DType::bf16 || t == DType::f16; }
// c64 holds two f32 (real, imaginary), c128 two f64, laid out as std::complex.
constexpr bool is_complex(DType t) { return t == DType::c64 || t == DType::c128; }
// Floating or complex: the types true division and the float functions keep.
constexpr bool is_inexact(DType t) { return is_floating(t) || is_complex(t); }
// The dtype statistics (mean, var, std, logsumexp) compute in: f32 for 16-bit floats,
// narrow types and integers, as JAX does, else the input's own (complex ones included).
constexpr DType stats_dtype(DType t) {
  return is_inexact(t) && !is_half(t) && !is_narrow(t) ? t : DType::f32;
}
// The type of a complex type's parts (f32 for c64); other types map to themselves.
constexpr DType real_dtype(DType t) {
  return t == DType::c64 ? DType::f32 : t == DType::c128 ? DType::f64 : t;
}
// The complex type whose parts are t (c64 for f32, c128 for f64; others throw).
DType complex_dtype(DType t);
constexpr bool is_unsigned(DType t) {  // bool excluded
  return t == DType::u8 || t == DType::u16 || t == DType::u32 || t == DType::u64 || t == DType::u2 ||
         t == DType::u4;
}
constexpr bool is_integral(DType t) {  // bool excluded
  return is_unsigned(t) || t == DType::i8 || t == DType::i16 || t == DType::i32 || t == DType::i64 ||
         t == DType::i2 || t == DType::i4;
}

// The smallest type both operands convert to without losing their kind
// (bool < integers < floating < complex; a complex type with f64 is c128). Unsigned with signed gives the
// smallest signed type holding both (u8 with i8 is i16); u64 with a signed type has none and throws a
// DTypeError. f16 with bf16 gives f32, as do two different narrow floats. See docs/DTYPES.md.
DType promote_types(DType a, DType b);

// Brain float: the top 16 bits of an IEEE f32. Conversion rounds to nearest even.
struct bf16 {
  std::uint16_t bits = 0;
  bf16() = default;
  explicit bf16(float f) : bits(from_float(f)) {}
  explicit operator float() const { return std::bit_cast<float>(std::uint32_t(bits) << 16); }
  static std::uint16_t from_float(float f) {
    auto u = std::bit_cast<std::uint32_t>(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return std::uint16_t((u >> 16) | 0x40u);  // quiet NaN
    u += 0x7fffu + ((u >> 16) & 1u);
    return std::uint16_t(u >> 16);
  }
};

// IEEE binary16. Conversion rounds to nearest even, overflow gives inf.
struct f16 {
  std::uint16_t bits = 0;
  f16() = default;
  explicit f16(float f) : bits(from_float(f)) {}
  explicit operator float() const { return to_float(bits); }
  static std::uint16_t from_float(float f);
  static float to_float(std::uint16_t h);
};

template <class T> struct dtype_of;
template <> struct dtype_of<float> { static constexpr DType value = DType::f32; };
template <> struct dtype_of<double> { static constexpr DType value = DType::f64; };
template <> struct dtype_of<bf16> { static constexpr DType value = DType::bf16; };
template <> struct dtype_of<f16> { static constexpr DType value = DType::f16; };
template <> struct dtype_of<std::int8_t> { static constexpr DType value = DType::i8; };
template <> struct dtype_of<std::int16_t> { static constexpr DType value = DType::i16; };
template <> struct dtype_of<std::int32_t> { static constexpr DType value = DType::i32; };
template <> struct dtype_of<std::int64_t> { static constexpr DType value = DType::i64; };
template <> struct dtype_of<std::uint8_t> { static constexpr DType value = DType::u8; };
template <> struct dtype_of<std::uint16_t> { static constexpr DType value = DType::u16; };
template <> struct dtype_of<std::uint32_t> { static constexpr DType value = DType::u32; };
template <> struct dtype_of<std::uint64_t> { static constexpr DType value = DType::u64; };
template <> struct dtype_of<bool> { static constexpr DType value = DType::boolean; };
template <>
struct dtype_of<std::complex<float>> {
  static constexpr DType value = DType::c64;
};
template <>
struct dtype_of<std::complex<double>> {
  static constexpr DType value = DType::c128;
};
template <class T> inline constexpr DType dtype_v = dtype_of<T>::value;

}  // namespace tlaloc
TLALOC_PUBLIC_END
