// The safetensors names of tlaloc's dtypes ("F32", "BF16", "BOOL", ...).
#pragma once

#include <optional>
#include <string_view>

#include "tlaloc/dtype.hpp"

namespace tlaloc::io {

struct SafetensorsDType {
  std::string_view name;
  DType dtype;
};

inline constexpr SafetensorsDType safetensors_dtypes[] = {
    {"F64", DType::f64},
    {"F32", DType::f32},
    {"F16", DType::f16},
    {"BF16", DType::bf16},
    {"I64", DType::i64},
    {"I32", DType::i32},
    {"I16", DType::i16},
    {"I8", DType::i8},
    {"U64", DType::u64},
    {"U32", DType::u32},
    {"U16", DType::u16},
    {"U8", DType::u8},
    {"BOOL", DType::boolean},
    // The format's F8 types are PyTorch's float8_e5m2 and float8_e4m3fn, one byte each.
    {"F8_E5M2", DType::f8e5m2},
    {"F8_E4M3", DType::f8e4m3fn}};

inline std::string_view safetensors_name(DType t) {
  for (const auto& d : safetensors_dtypes)
    if (d.dtype == t) return d.name;
  return {};  // complex and most narrow types: none
}

// Empty for names this library has no type for (a misspelling, or a newer type).
inline std::optional<DType> safetensors_dtype(std::string_view name) {
  for (const auto& d : safetensors_dtypes)
    if (d.name == name) return d.dtype;
  return std::nullopt;
}

}  // namespace tlaloc::io
