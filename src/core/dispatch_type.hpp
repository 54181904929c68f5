// Switches over a runtime DType to a compile-time element type.
#pragma once

#include <complex>
#include <cstdint>

#include "core/check.hpp"
#include "tlaloc/dtype.hpp"

// Runs BODY with `T` bound to the element type of DT. bf16/f16 are included: kernels
// that compute on them usually widen to float inside.
#define TLALOC_DTYPE_CASE(DT, TYPE, ...) \
  case DT: {                             \
    using T = TYPE;                      \
    __VA_ARGS__;                         \
    break;                               \
  }
#define TLALOC_SWITCH_INTEGER_CASES(...)                              \
  TLALOC_DTYPE_CASE(::tlaloc::DType::i8, std::int8_t, __VA_ARGS__)    \
  TLALOC_DTYPE_CASE(::tlaloc::DType::i16, std::int16_t, __VA_ARGS__)  \
  TLALOC_DTYPE_CASE(::tlaloc::DType::i32, std::int32_t, __VA_ARGS__)  \
  TLALOC_DTYPE_CASE(::tlaloc::DType::i64, std::int64_t, __VA_ARGS__)  \
  TLALOC_DTYPE_CASE(::tlaloc::DType::u8, std::uint8_t, __VA_ARGS__)   \
  TLALOC_DTYPE_CASE(::tlaloc::DType::u16, std::uint16_t, __VA_ARGS__) \
  TLALOC_DTYPE_CASE(::tlaloc::DType::u32, std::uint32_t, __VA_ARGS__) \
  TLALOC_DTYPE_CASE(::tlaloc::DType::u64, std::uint64_t, __VA_ARGS__)
#define TLALOC_SWITCH_REAL_CASES(...)                                   \
  TLALOC_DTYPE_CASE(::tlaloc::DType::f32, float, __VA_ARGS__)           \
  TLALOC_DTYPE_CASE(::tlaloc::DType::f64, double, __VA_ARGS__)          \
  TLALOC_DTYPE_CASE(::tlaloc::DType::bf16, ::tlaloc::bf16, __VA_ARGS__) \
  TLALOC_DTYPE_CASE(::tlaloc::DType::f16, ::tlaloc::f16, __VA_ARGS__)   \
  TLALOC_SWITCH_INTEGER_CASES(__VA_ARGS__)                              \
  TLALOC_DTYPE_CASE(::tlaloc::DType::boolean, bool, __VA_ARGS__)
#define TLALOC_SWITCH_COMPLEX_CASES(...)                                    \
  TLALOC_DTYPE_CASE(::tlaloc::DType::c64, std::complex<float>, __VA_ARGS__) \
  TLALOC_DTYPE_CASE(::tlaloc::DType::c128, std::complex<double>, __VA_ARGS__)
// The narrow storage types have no kernels: OpDef::run computes them in their
// compute_dtype (core/narrow.hpp), so a switch that meets one was reached around it.
#define TLALOC_NARROW_CASES            \
  case ::tlaloc::DType::i2:            \
  case ::tlaloc::DType::i4:            \
  case ::tlaloc::DType::u2:            \
  case ::tlaloc::DType::u4:            \
  case ::tlaloc::DType::f8e3m4:        \
  case ::tlaloc::DType::f8e4m3:        \
  case ::tlaloc::DType::f8e4m3fn:      \
  case ::tlaloc::DType::f8e4m3fnuz:    \
  case ::tlaloc::DType::f8e4m3b11fnuz: \
  case ::tlaloc::DType::f8e5m2:        \
  case ::tlaloc::DType::f8e5m2fnuz:    \
  case ::tlaloc::DType::f8e8m0fnu:     \
  case ::tlaloc::DType::f4e2m1fn:      \
  case ::tlaloc::DType::f6e2m3fn:      \
  case ::tlaloc::DType::f6e3m2fn:
// Every real element type; a complex one is refused by name (kernels that take
// complex values say so with TLALOC_SWITCH_WITH_COMPLEX).
#define TLALOC_SWITCH_ALL(dtype, op, ...)                                          \
  switch (dtype) {                                                                 \
    TLALOC_SWITCH_REAL_CASES(__VA_ARGS__)                                          \
    case ::tlaloc::DType::c64:                                                     \
    case ::tlaloc::DType::c128:                                                    \
      TLALOC_NARROW_CASES                                                          \
      ::tlaloc::detail::fail<::tlaloc::DTypeError>(op, "no kernel for {}", dtype); \
  }
// Every element type, complex ones included (narrow ones refused).
#define TLALOC_SWITCH_WITH_COMPLEX(dtype, op, ...)                               \
  switch (dtype) {                                                               \
    TLALOC_SWITCH_REAL_CASES(__VA_ARGS__)                                        \
    TLALOC_SWITCH_COMPLEX_CASES(__VA_ARGS__)                                     \
    TLALOC_NARROW_CASES                                                          \
    ::tlaloc::detail::fail<::tlaloc::DTypeError>(op, "no kernel for {}", dtype); \
  }
// The complex element types only.
#define TLALOC_SWITCH_COMPLEX(dtype, op, ...)                                      \
  switch (dtype) {                                                                 \
    TLALOC_SWITCH_COMPLEX_CASES(__VA_ARGS__)                                       \
    default:                                                                       \
      ::tlaloc::detail::fail<::tlaloc::DTypeError>(op, "no kernel for {}", dtype); \
  }
// Element types that kernels compute in directly (no 16-bit floats).
#define TLALOC_SWITCH_COMPUTE(dtype, op, ...)                                      \
  switch (dtype) {                                                                 \
    TLALOC_DTYPE_CASE(::tlaloc::DType::f32, float, __VA_ARGS__)                    \
    TLALOC_DTYPE_CASE(::tlaloc::DType::f64, double, __VA_ARGS__)                   \
    TLALOC_SWITCH_INTEGER_CASES(__VA_ARGS__)                                       \
    TLALOC_DTYPE_CASE(::tlaloc::DType::boolean, bool, __VA_ARGS__)                 \
    default:                                                                       \
      ::tlaloc::detail::fail<::tlaloc::DTypeError>(op, "no kernel for {}", dtype); \
  }
// Floating element types, 16-bit ones included.
#define TLALOC_SWITCH_FLOATING(dtype, op, ...)                                    \
  switch (dtype) {                                                                \
    TLALOC_DTYPE_CASE(::tlaloc::DType::f32, float, __VA_ARGS__)                   \
    TLALOC_DTYPE_CASE(::tlaloc::DType::f64, double, __VA_ARGS__)                  \
    TLALOC_DTYPE_CASE(::tlaloc::DType::bf16, ::tlaloc::bf16, __VA_ARGS__)         \
    TLALOC_DTYPE_CASE(::tlaloc::DType::f16, ::tlaloc::f16, __VA_ARGS__)           \
    default:                                                                      \
      ::tlaloc::detail::fail<::tlaloc::DTypeError>(op, "no kernel for {}", dtype); \
  }
