#include "tlaloc/dtype.hpp"

#include <algorithm>

#include "core/check.hpp"

namespace tlaloc {

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "f32";
    case DType::f64: return "f64";
    case DType::bf16: return "bf16";
    case DType::f16: return "f16";
    case DType::i8: return "i8";
    case DType::i32: return "i32";
    case DType::i64: return "i64";
    case DType::u8: return "u8";
    case DType::boolean: return "bool";
    case DType::i16: return "i16";
    case DType::u16: return "u16";
    case DType::u32: return "u32";
    case DType::u64: return "u64";
    case DType::c64:
      return "c64";
    case DType::c128:
      return "c128";
    case DType::i2:
      return "i2";
    case DType::i4:
      return "i4";
    case DType::u2:
      return "u2";
    case DType::u4:
      return "u4";
    case DType::f8e3m4:
      return "f8e3m4";
    case DType::f8e4m3:
      return "f8e4m3";
    case DType::f8e4m3fn:
      return "f8e4m3fn";
    case DType::f8e4m3fnuz:
      return "f8e4m3fnuz";
    case DType::f8e4m3b11fnuz:
      return "f8e4m3b11fnuz";
    case DType::f8e5m2:
      return "f8e5m2";
    case DType::f8e5m2fnuz:
      return "f8e5m2fnuz";
    case DType::f8e8m0fnu:
      return "f8e8m0fnu";
    case DType::f4e2m1fn:
      return "f4e2m1fn";
    case DType::f6e2m3fn:
      return "f6e2m3fn";
    case DType::f6e3m2fn:
      return "f6e3m2fn";
  }
  return "?";
}

std::size_t itemsize(DType t) {
  switch (t) {
    case DType::c128:
      return 16;
    case DType::c64:
    case DType::f64:
    case DType::i64:
    case DType::u64: return 8;
    case DType::f32:
    case DType::i32:
    case DType::u32: return 4;
    case DType::bf16:
    case DType::f16:
    case DType::i16:
    case DType::u16: return 2;
    case DType::i8:
    case DType::u8:
    case DType::boolean: return 1;
    default:
      return is_narrow(t) ? 1 : 0;
  }
}

int bit_width(DType t) {
  switch (t) {
    case DType::boolean:
      return 1;
    case DType::i2:
    case DType::u2:
      return 2;
    case DType::i4:
    case DType::u4:
    case DType::f4e2m1fn:
      return 4;
    case DType::f6e2m3fn:
    case DType::f6e3m2fn:
      return 6;
    default:
      return int(8 * itemsize(t));
  }
}

namespace {
// The real lattice is bool < integers < floating (complex types are promoted before
// it). Integers order by width within a signedness; floats are f16 = bf16 < f32 < f64
// (f16 with bf16 meet at f32).
int category(DType t) { return t == DType::boolean ? 0 : is_floating(t) ? 2 : 1; }
int float_rank(DType t) {
  if (is_narrow(t)) return -1;
  switch (t) {
    case DType::f16:
    case DType::bf16: return 0;
    case DType::f32: return 1;
    default: return 2;
  }
}
DType signed_of_bits(int bits) {
  return bits <= 2    ? DType::i2
         : bits <= 4  ? DType::i4
         : bits <= 8  ? DType::i8
         : bits <= 16 ? DType::i16
         : bits <= 32 ? DType::i32
                      : DType::i64;
}
// Same signedness: the wider. Unsigned with signed: the smallest signed type that
// holds every value of both, which needs twice the unsigned width unless the signed
// one is already wider; for u64 there is none.
DType promote_integers(DType a, DType b) {
  if (is_unsigned(a) == is_unsigned(b)) return bit_width(a) >= bit_width(b) ? a : b;
  const DType u = is_unsigned(a) ? a : b, s = is_unsigned(a) ? b : a;
  if (u == DType::u64)
    detail::fail<DTypeError>(
        "promote_types",
        "{} and {} have no common type (no integer type holds both); convert one with astype", a, b);
  return signed_of_bits(std::max(bit_width(s), 2 * bit_width(u)));
}
}  // namespace

DType complex_dtype(DType t) {
  if (t == DType::f32 || t == DType::c64) return DType::c64;
  if (t == DType::f64 || t == DType::c128) return DType::c128;
  detail::fail<DTypeError>("complex_dtype", "there is no complex type with {} parts (f32 or f64)", t);
}

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  // A complex type keeps the wider of the two floating precisions: c64 with f64 is c128.
  if (is_complex(a) || is_complex(b)) {
    const DType ra = real_dtype(a), rb = real_dtype(b);
    const DType part = is_floating(ra) && is_floating(rb) ? promote_types(ra, rb) : is_floating(ra) ? ra : rb;
    return part == DType::f64 ? DType::c128 : DType::c64;
  }
  const int ca = category(a), cb = category(b);
  if (ca != cb) return ca > cb ? a : b;
  if (ca == 1) return promote_integers(a, b);
  const int ra = float_rank(a), rb = float_rank(b);
  if (ra == rb && ra <= 0) return DType::f32;  // f16 with bf16, or two narrow floats
  return ra > rb ? a : b;
}

std::uint16_t f16::from_float(float f) {
  const auto u = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t sign = (u >> 16) & 0x8000u;
  const std::uint32_t absu = u & 0x7fffffffu;
  if (absu > 0x7f800000u) return std::uint16_t(sign | 0x7e00u);  // NaN
  if (absu >= 0x477ff000u) return std::uint16_t(sign | 0x7c00u);  // rounds to inf
  if (absu < 0x38800000u) {  // subnormal half (or zero): round at 2^-24 granularity
    const float a = std::bit_cast<float>(absu);
    // Adding 0.5 makes the float's own round-to-nearest-even do the rounding.
    const float scaled = a + 0.5f;
    return std::uint16_t(sign | (std::bit_cast<std::uint32_t>(scaled) - 0x3f000000u));
  }
  std::uint32_t m = absu + ((15u - 127u) << 23);  // rebias exponent
  m += 0xfffu + ((m >> 13) & 1u);                  // round to nearest even
  return std::uint16_t(sign | (m >> 13));
}

float f16::to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  const std::uint32_t man = h & 0x3ffu;
  if (exp == 0) {  // zero or subnormal: man * 2^-24
    const float v = float(man) * 5.9604644775390625e-08f;
    return std::bit_cast<float>(std::bit_cast<std::uint32_t>(v) | sign);
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (man << 13));
  return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (man << 13));
}

}  // namespace tlaloc
