// StableHLO elementwise ops whose semantics no library op has: C division and
// remainder of integers, cbrt, round half away from zero, and clamp.
#include <cmath>
#include <limits>

#include "ops/elementwise_defs.hpp"

namespace tlaloc {
namespace detail {

Tensor call_op(std::string_view name, std::initializer_list<Tensor> in, const Attrs& attrs) {
  const OpDef* op = find_op(name);
  if (op == nullptr) throw Error(fmt::format("the op registry has no '{}'", name));
  return call1(*op, in, attrs);
}

}  // namespace detail

namespace {

using detail::def_spec_binary;
using detail::def_spec_unary;
using detail::OpDef;
using detail::ResultType;
using detail::TensorType;

template <class C>
constexpr bool is_int_v = std::is_integral_v<C> && !std::is_same_v<C, bool>;

// Integer division truncates toward zero. Division by zero is implementation-
// defined in the spec; here (as XLA) x / 0 is -1 (all bits set) and MIN / -1 wraps
// to MIN.
template <class C>
C divide(C x, C y) {
  if constexpr (is_int_v<C>) {
    if (y == C(0)) return C(-1);
    if constexpr (std::is_signed_v<C>) {
      if (y == C(-1)) return C(std::make_unsigned_t<C>(0) - std::make_unsigned_t<C>(x));
    }
    return C(x / y);
  } else {
    return x / y;
  }
}

// C's remainder: the result takes the dividend's sign. x % 0 is x (as XLA) and
// MIN % -1 is 0.
template <class C>
C fmod(C x, C y) {
  if constexpr (is_int_v<C>) {
    if (y == C(0)) return x;
    if constexpr (std::is_signed_v<C>) {
      if (y == C(-1)) return C(0);
    }
    return C(x % y);
  } else if constexpr (std::is_same_v<C, bool>) {
    return y ? false : x;
  } else {
    return std::fmod(x, y);
  }
}

const OpDef& divide_op = def_spec_binary("divide", "stablehlo.divide", ResultType::same, detail::numeric_type,
                                         [](auto x, auto y) { return divide(x, y); });
// Named fmod: the library's `remainder` is Python's.
const OpDef& fmod_op = def_spec_binary("fmod", "stablehlo.remainder", ResultType::same, detail::numeric_type,
                                       [](auto x, auto y) { return fmod(x, y); });

const OpDef& cbrt_op = def_spec_unary("cbrt", "stablehlo.cbrt", detail::floating_type, [](auto x) {
  if constexpr (std::is_floating_point_v<decltype(x)>)
    return std::cbrt(x);
  else
    return x;
});
// std::round rounds halfway cases away from zero and keeps -0.0 and NaN.
const OpDef& afz_op =
    def_spec_unary("round_nearest_afz", "stablehlo.round_nearest_afz", detail::floating_type, [](auto x) {
      if constexpr (std::is_floating_point_v<decltype(x)>)
        return std::round(x);
      else
        return x;
    });

// clamp(min, operand, max) = min(max(operand, min), max) with the NaN-propagating
// maximum/minimum; min and max may be rank 0 (they broadcast).
const OpDef& clamp_op =
    detail::def_op("clamp")
        .inputs(3)
        .elementwise()
        .stablehlo(detail::elementwise_spelling("stablehlo.clamp"))
        .shape_rule(detail::broadcast_rule("clamp", ResultType::same_or_bool))
        .kernel([](std::span<const Tensor> in, const detail::Attrs&, std::span<const TensorType> out) {
          const Tensor lo = detail::call_op("maximum", {in[1], in[0]});
          return std::vector<Tensor>{detail::call_op("minimum", {lo, in[2]}).astype(out[0].dtype)};
        });

}  // namespace
}  // namespace tlaloc
