// Tlaloc's dtypes and the PJRT element types they travel as: one table for the
// PJRT backend and Tlaloc's CPU plugin alike.
#pragma once

#include <array>
#include <optional>
#include <utility>

#include "runtime/pjrt/pjrt_abi.h"
#include "tlaloc/dtype.hpp"

namespace tlaloc::runtime::pjrt {

inline constexpr std::array<std::pair<DType, tlp_element_type>, 13> element_types = {{
    {DType::f32, TLP_TYPE_F32},
    {DType::f64, TLP_TYPE_F64},
    {DType::bf16, TLP_TYPE_BF16},
    {DType::f16, TLP_TYPE_F16},
    {DType::i8, TLP_TYPE_S8},
    {DType::i16, TLP_TYPE_S16},
    {DType::i32, TLP_TYPE_S32},
    {DType::i64, TLP_TYPE_S64},
    {DType::u8, TLP_TYPE_U8},
    {DType::u16, TLP_TYPE_U16},
    {DType::u32, TLP_TYPE_U32},
    {DType::u64, TLP_TYPE_U64},
    {DType::boolean, TLP_TYPE_PRED},  // one byte each, as PJRT's PRED
}};

constexpr tlp_element_type element_type_of(DType t) {
  for (const auto& [dtype, type] : element_types)
    if (dtype == t) return type;
  return TLP_TYPE_INVALID;
}

constexpr std::optional<DType> dtype_of(tlp_element_type t) {
  for (const auto& [dtype, type] : element_types)
    if (type == t) return dtype;
  return std::nullopt;
}

}  // namespace tlaloc::runtime::pjrt
