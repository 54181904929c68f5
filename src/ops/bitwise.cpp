// StableHLO's bitwise ops: not/and/or/xor (logical on i1), shifts, and bit counts.
// Integers are handled through their two's-complement bit patterns.
#include <bit>
#include <type_traits>

#include "ops/cpp_spelling.hpp"
#include "ops/elementwise_defs.hpp"
#include "tlaloc/lax.hpp"

namespace tlaloc {
namespace {

using detail::def_spec_binary;
using detail::def_spec_unary;
using detail::OpDef;
using detail::ResultType;

// The op printed as its tl::lax function. Its results are integers or bools: no
// derivative.
const OpDef& as_lax(const char* fn, OpDef& op) {
  return op.no_derivative().cpp(detail::cpp_fn(std::string("tl::lax::") + fn));
}

template <class C>
using bits_t = std::make_unsigned_t<C>;
template <class C>
constexpr unsigned width_v = sizeof(C) * 8;

// Shift amounts are read as unsigned: negative ones are out of range, and every
// out-of-range shift gives 0 (or the sign fill for the arithmetic right shift).
template <class C>
bool in_range(C n) {
  return bits_t<C>(n) < width_v<C>;
}

template <class C>
C shift_left(C x, C n) {
  if constexpr (std::is_integral_v<C> && !std::is_same_v<C, bool>) {
    if (!in_range(n)) return C(0);
    return C(bits_t<C>(bits_t<C>(x) << unsigned(n)));
  } else {
    return x;  // refused by the shape rule
  }
}
template <class C>
C shift_right_logical(C x, C n) {
  if constexpr (std::is_integral_v<C> && !std::is_same_v<C, bool>) {
    if (!in_range(n)) return C(0);
    return C(bits_t<C>(bits_t<C>(x) >> unsigned(n)));
  } else {
    return x;
  }
}
// The sign bit is the top bit of the pattern, unsigned types included.
template <class C>
C shift_right_arithmetic(C x, C n) {
  if constexpr (std::is_integral_v<C> && !std::is_same_v<C, bool>) {
    using S = std::make_signed_t<C>;
    const S s = S(x);
    if (!in_range(n)) return C(s < 0 ? S(-1) : S(0));
    return C(S(s >> unsigned(n)));
  } else {
    return x;
  }
}

template <class C>
C bit_not(C x) {
  if constexpr (std::is_same_v<C, bool>)
    return !x;
  else if constexpr (std::is_integral_v<C>)
    return C(~bits_t<C>(x));
  else
    return x;
}

#define TLALOC_BITWISE(name, expr)              \
  [](auto x, auto y) {                          \
    using C = decltype(x);                      \
    if constexpr (std::is_same_v<C, bool>)      \
      return bool(x expr y);                    \
    else if constexpr (std::is_integral_v<C>)   \
      return C(bits_t<C>(x) expr bits_t<C>(y)); \
    else                                        \
      return x;                                 \
  }
const OpDef& and_op = as_lax("bitwise_and", def_spec_binary("and", "stablehlo.and", ResultType::same_or_bool,
                                                            detail::integer_or_bool, TLALOC_BITWISE(and, &)));
const OpDef& or_op = as_lax("bitwise_or", def_spec_binary("or", "stablehlo.or", ResultType::same_or_bool,
                                                          detail::integer_or_bool, TLALOC_BITWISE(or, |)));
const OpDef& xor_op = as_lax("bitwise_xor", def_spec_binary("xor", "stablehlo.xor", ResultType::same_or_bool,
                                                            detail::integer_or_bool, TLALOC_BITWISE(xor, ^)));
#undef TLALOC_BITWISE
const OpDef& not_op = as_lax("bitwise_not", def_spec_unary("not", "stablehlo.not", detail::integer_or_bool,
                                                           [](auto x) { return bit_not(x); }));

const OpDef& shl_op = as_lax(
    "shift_left", def_spec_binary("shift_left", "stablehlo.shift_left", ResultType::same,
                                  detail::integer_type, [](auto x, auto n) { return shift_left(x, n); }));
const OpDef& shr_op =
    as_lax("shift_right_logical",
           def_spec_binary("shift_right_logical", "stablehlo.shift_right_logical", ResultType::same,
                           detail::integer_type, [](auto x, auto n) { return shift_right_logical(x, n); })
               .on_bits());
const OpDef& sar_op = as_lax(
    "shift_right_arithmetic",
    def_spec_binary("shift_right_arithmetic", "stablehlo.shift_right_arithmetic", ResultType::same,
                    detail::integer_type, [](auto x, auto n) { return shift_right_arithmetic(x, n); }));

const OpDef& clz_op = as_lax(
    "count_leading_zeros",
    def_spec_unary("count_leading_zeros", "stablehlo.count_leading_zeros", detail::integer_type, [](auto x) {
      using C = decltype(x);
      if constexpr (std::is_integral_v<C> && !std::is_same_v<C, bool>)
        return C(std::countl_zero(bits_t<C>(x)));
      else
        return x;
    }).on_bits());
const OpDef& popcnt_op =
    as_lax("popcnt", def_spec_unary("popcnt", "stablehlo.popcnt", detail::integer_type, [](auto x) {
                       using C = decltype(x);
                       if constexpr (std::is_integral_v<C> && !std::is_same_v<C, bool>)
                         return C(std::popcount(bits_t<C>(x)));
                       else
                         return x;
                     }).on_bits());

}  // namespace

Tensor lax::bitwise_and(const Tensor& a, const Tensor& b) { return detail::call1(and_op, {a, b}); }
Tensor lax::bitwise_or(const Tensor& a, const Tensor& b) { return detail::call1(or_op, {a, b}); }
Tensor lax::bitwise_xor(const Tensor& a, const Tensor& b) { return detail::call1(xor_op, {a, b}); }
Tensor lax::bitwise_not(const Tensor& x) { return detail::call1(not_op, {x}); }
Tensor lax::shift_left(const Tensor& x, const Tensor& n) { return detail::call1(shl_op, {x, n}); }
Tensor lax::shift_right_logical(const Tensor& x, const Tensor& n) { return detail::call1(shr_op, {x, n}); }
Tensor lax::shift_right_arithmetic(const Tensor& x, const Tensor& n) { return detail::call1(sar_op, {x, n}); }
Tensor lax::count_leading_zeros(const Tensor& x) { return detail::call1(clz_op, {x}); }
Tensor lax::popcnt(const Tensor& x) { return detail::call1(popcnt_op, {x}); }

}  // namespace tlaloc
