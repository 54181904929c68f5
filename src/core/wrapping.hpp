// Integer arithmetic that wraps on overflow (two's complement, as StableHLO
// defines it) instead of being undefined behaviour; bool adds as "or",
// multiplies as "and" and subtracts as "xor" (mod 2); floats compute as usual.
#pragma once

#include <type_traits>

namespace tlaloc::detail {

template <class C> constexpr bool wraps_v = std::is_integral_v<C> && !std::is_same_v<C, bool>;

template <class C> C wrapping_add(C a, C b) {
  if constexpr (std::is_same_v<C, bool>) return a || b;
  else if constexpr (wraps_v<C>) return C(std::make_unsigned_t<C>(a) + std::make_unsigned_t<C>(b));
  else return a + b;
}
template <class C> C wrapping_sub(C a, C b) {
  if constexpr (std::is_same_v<C, bool>) return a != b;
  else if constexpr (wraps_v<C>) return C(std::make_unsigned_t<C>(a) - std::make_unsigned_t<C>(b));
  else return a - b;
}
template <class C> C wrapping_mul(C a, C b) {
  if constexpr (std::is_same_v<C, bool>) {
    return a && b;
  } else if constexpr (wraps_v<C>) {
    // Multiply at least as wide as unsigned int: narrower types would promote to int.
    using U = std::common_type_t<std::make_unsigned_t<C>, unsigned int>;
    return C(U(a) * U(b));
  } else {
    return a * b;
  }
}
// Floats flip the sign bit (so neg(+0) is -0, as IEEE and StableHLO's negate say).
template <class C> C wrapping_neg(C a) {
  if constexpr (wraps_v<C> || std::is_same_v<C, bool>) return wrapping_sub(C(0), a);
  else return -a;
}

}  // namespace tlaloc::detail
