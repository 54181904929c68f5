// StableHLO elementwise ops whose semantics no library op has: C division and
// remainder of integers, cbrt, round half away from zero, and clamp.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "ops/cpp_spelling.hpp"
#include "ops/elementwise_defs.hpp"
#include "ops/rule.hpp"
#include "tlaloc/lax.hpp"
#include "tlaloc/ops.hpp"

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

// ---- derivatives (integer results have none: the engine skips them) ----------------
using detail::Rule;

// Rounding toward zero (no public op): its derivative is zero, as floor's and ceil's.
Tensor round_toward_zero(const Tensor& x) { return where(x < 0, ceil(x), floor(x)); }

// As div's: d(a/b) = da / b - db * y / b.
Tensor divide_da(const Tensor&, const Tensor& b, const Tensor&) { return reciprocal(b); }
Tensor divide_db(const Tensor&, const Tensor& b, const Tensor& y) { return -(y / b); }
// fmod(a, b) = a - b trunc(a / b), and trunc is flat between its jumps.
Tensor fmod_da(const Tensor&, const Tensor&, const Tensor& y) { return ones_like(y); }
Tensor fmod_db(const Tensor& a, const Tensor& b, const Tensor&) { return -round_toward_zero(a / b); }

// clamp's partials as masks (JAX's convention): the operand where it lies strictly
// inside (min, max); min where it is above the operand (and below max); max where
// it is below the operand. At a tie (operand equal to min or max) nobody gets it.
Tensor clamp_mask(const Rule& r, std::size_t i) {
  const Tensor &lo = r.in(0), &x = r.in(1), &hi = r.in(2);
  if (i == 0) return logical_and(gt(lo, x), lt(lo, hi));
  if (i == 1) return logical_and(gt(x, lo), lt(x, hi));
  return lt(hi, x);
}
std::vector<Tensor> clamp_jvp(const Rule& r) {
  Tensor t;
  for (std::size_t i = 0; i < 3; ++i)
    if (r.has_tangent(i)) t = detail::add_tangents(t, where(clamp_mask(r, i), r.tangent(i), 0.0));
  return {broadcast_to_shape_of(t, r.out(0))};
}
std::vector<Tensor> clamp_vjp(const Rule& r) {
  std::vector<Tensor> g(3);
  if (!r.has_cotangent()) return g;
  for (std::size_t i = 0; i < 3; ++i)
    if (r.wants(i)) g[i] = sum_to_shape_of(where(clamp_mask(r, i), r.cotangent(), 0.0), r.in(i));
  return g;
}

const OpDef& divide_op =
    detail::binary_derivative(
        def_spec_binary("divide", "stablehlo.divide", ResultType::same, detail::numeric_type,
                        detail::complex_too([](auto x, auto y) { return divide(x, y); }))
            .linear({0}),
        divide_da, divide_db)
        .cpp(detail::cpp_fn("tl::lax::div"));
// Named fmod: the library's `remainder` is Python's.
const OpDef& fmod_op = detail::binary_derivative(
    def_spec_binary("fmod", "stablehlo.remainder", ResultType::same, detail::numeric_type,
                    [](auto x, auto y) { return fmod(x, y); }),
    fmod_da, fmod_db).cpp(detail::cpp_fn("tl::lax::rem"));

// A complex operand's cube root is the principal one.
const OpDef& cbrt_op =
    def_spec_unary("cbrt", "stablehlo.cbrt", detail::inexact_type,
                   detail::complex_too(
                       [](auto x) {
                         if constexpr (std::is_floating_point_v<decltype(x)>)
                           return std::cbrt(x);
                         else
                           return x;
                       },
                       [](auto z) {
                         using R = typename decltype(z)::value_type;
                         return std::pow(z, R(1) / R(3));
                       }))
        .derivative([](const Tensor&, const Tensor& y) { return reciprocal(3.0 * square(y)); })
        .cpp(detail::cpp_fn("tl::lax::cbrt"));
// std::round rounds halfway cases away from zero and keeps -0.0 and NaN.
const OpDef& afz_op =
    def_spec_unary("round_nearest_afz", "stablehlo.round_nearest_afz", detail::floating_type, [](auto x) {
      if constexpr (std::is_floating_point_v<decltype(x)>)
        return std::round(x);
      else
        return x;
    }).no_derivative().cpp(detail::cpp_fn("tl::lax::round_nearest_afz"));  // flat between its jumps, as round and floor

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
        })
        .jvp(clamp_jvp)
        .vjp(clamp_vjp)
        .cpp(detail::cpp_fn("tl::lax::clamp"));

}  // namespace

Tensor lax::div(const Tensor& a, const Tensor& b) { return detail::call1(divide_op, {a, b}); }
Tensor lax::rem(const Tensor& a, const Tensor& b) { return detail::call1(fmod_op, {a, b}); }
Tensor lax::cbrt(const Tensor& x) { return detail::call1(cbrt_op, {x}); }
Tensor lax::round_nearest_afz(const Tensor& x) { return detail::call1(afz_op, {x}); }
Tensor lax::clamp(const Tensor& lo, const Tensor& x, const Tensor& hi) { return detail::call1(clamp_op, {lo, x, hi}); }

}  // namespace tlaloc
