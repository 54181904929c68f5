// Elementwise functions of two tensors with NumPy broadcasting, and select/clamp.
#include <cmath>
#include <limits>

#include "core/elementwise.hpp"
#include "core/wrapping.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/elementwise_defs.hpp"
#include "ops/elementwise_lowering.hpp"
#include "ops/elementwise_rules.hpp"
#include "ops/like.hpp"
#include "ops/rule.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc {
namespace {

using detail::call1;
using detail::def_op;
using detail::OpDef;
using detail::ResultType;
using detail::TensorType;

// Declares an op computing f(x, y) on the operands converted to their promoted
// type (the compute type of it); the result is converted to the rule's dtype. The
// rule is a template argument so that each op instantiates only the loops it can
// run: comparisons write bool, float ops see floating types only. The op is the
// public function tl::<name>, or the operator given.
template <ResultType rule, class F>
OpDef& def_binary(const char* name, F f, const char* infix = nullptr) {
  OpDef& op = def_op(name);
  // A bool result carries no derivative, whatever the operands (said here, as an
  // operand of unknown type may be floating, docs/ENGINE_AT_BUILD_TIME.md).
  if constexpr (rule == ResultType::boolean) op.no_derivative();
  return op.cpp(infix != nullptr ? detail::cpp_infix(infix) : detail::cpp_fn(std::string("tl::") + name))
      .called_as(infix != nullptr ? OpDef::PublicCall{.symbol = infix} : OpDef::PublicCall{.names = {name}})
      .inputs(2)
      .elementwise()
      .shape_rule(detail::broadcast_rule(name, rule))
      .kernel([name, f](std::span<const Tensor> in, const detail::Attrs&, std::span<const TensorType> out) {
        const DType t =
            rule == ResultType::floating ? out[0].dtype : promote_types(in[0].dtype(), in[1].dtype());
        const Tensor a = in[0].astype(t), b = in[1].astype(t);
        Tensor y = detail::empty(out[0].shape, out[0].dtype);
        if constexpr (rule == ResultType::floating) {
          if constexpr (detail::takes_complex_v<F>) {
            if (is_complex(t)) {
              TLALOC_SWITCH_COMPLEX(t, name, detail::binary_loop<T, T>(a, b, y, f))
              return std::vector<Tensor>{y};
            }
          }
          TLALOC_SWITCH_FLOATING(t, name, detail::binary_loop<T, T>(a, b, y, f))
        } else if constexpr (rule == ResultType::boolean) {
          TLALOC_SWITCH_FOR(F, t, name, detail::binary_loop<bool, T>(a, b, y, f))
        } else {
          TLALOC_SWITCH_FOR(F, t, name, detail::binary_loop<T, T>(a, b, y, f))
        }
        return std::vector<Tensor>{y};
      });
}

// An op that is a StableHLO elementwise op on the spec's domain.
OpDef& spelled(OpDef& op, const char* name) { return op.elementwise().stablehlo(detail::elementwise_spelling(name)); }

template <class C> constexpr bool is_float_v = std::is_floating_point_v<C>;

// Integer power by squaring; negative exponents give 1/x^n truncated toward 0.
template <class C> C int_pow(C x, C n) {
  if constexpr (std::is_signed_v<C>) {
    if (n < 0) return x == C(1) ? C(1) : x == C(-1) ? ((n & 1) ? C(-1) : C(1)) : C(0);
  }
  using U = std::make_unsigned_t<decltype(x * x)>;
  U base = U(x), result = 1;
  for (auto e = std::uint64_t(n); e != 0; e >>= 1) {
    if (e & 1) result *= base;
    base *= base;
  }
  return C(result);
}

// Python's %: the result takes the divisor's sign. x % 0 gives x for integers (as
// XLA does) and NaN for floats.
template <class C> C remainder_of(C x, C y) {
  if constexpr (is_float_v<C>) {
    C r = std::fmod(x, y);
    return (r != C(0) && ((r < C(0)) != (y < C(0)))) ? r + y : r;
  } else if constexpr (std::is_same_v<C, bool>) {
    return y ? false : x;
  } else {
    if (y == C(0)) return x;
    if constexpr (std::is_signed_v<C>) {
      if (y == C(-1)) return C(0);  // avoids the overflow of MIN % -1
    }
    C r = C(x % y);
    return (r != C(0) && ((r < C(0)) != (y < C(0)))) ? C(r + y) : r;
  }
}

// ---- derivatives ----------------------------------------------------------------
using detail::Rule;

// A partial derivative in the operands a, b and the result y, which the engine's rules
// call (and tlaloc-grad runs at build time). Operands are converted to the result's
// dtype where the op may see mixed ones: astype_like, as that dtype may be known only
// at run time.
#define P(expr)                                                          \
  []([[maybe_unused]] const Tensor& a, [[maybe_unused]] const Tensor& b, \
     [[maybe_unused]] const Tensor& y) -> Tensor { return expr; }
// maximum and minimum: 1 where the operand produced y, 1/2 at a tie (JAX's rule).
#define EXTREME_SHARE(x, other)      \
  P(detail::astype_like(x == y, y) - \
    0.5 * detail::astype_like(x == y, y) * detail::astype_like(other == y, y))

std::vector<Tensor> add_vjp(const Rule& r) {
  return {sum_to_shape_of(r.cotangent(), r.in(0)), sum_to_shape_of(r.cotangent(), r.in(1))};
}
std::vector<Tensor> sub_vjp(const Rule& r) {
  return {sum_to_shape_of(r.cotangent(), r.in(0)),
          r.wants(1) ? sum_to_shape_of(-r.cotangent(), r.in(1)) : Tensor()};
}
std::vector<Tensor> add_sub_jvp(const Rule& r, bool is_sub) {
  Tensor t = r.tangent(0);
  if (r.has_tangent(1)) t = is_sub ? (t.defined() ? t - r.tangent(1) : -r.tangent(1)) : detail::add_tangents(t, r.tangent(1));
  return {broadcast_to_shape_of(t, r.out(0))};
}

// Arithmetic on bool follows PyTorch: + is or, * is and, - is refused.
const OpDef& add_op =
    spelled(def_binary<ResultType::same_or_bool>(
                "add", detail::complex_too([](auto x, auto y) { return detail::wrapping_add(x, y); }), "+"),
            "stablehlo.add")
        .linear()
        .jvp([](const Rule& r) { return add_sub_jvp(r, false); })
        .vjp(add_vjp);
const OpDef& sub_op =
    spelled(def_binary<ResultType::same>(
                "sub", detail::complex_too([](auto x, auto y) { return detail::wrapping_sub(x, y); }), "-"),
            "stablehlo.subtract")
        .linear()
        .jvp([](const Rule& r) { return add_sub_jvp(r, true); })
        .vjp(sub_vjp);
const OpDef& mul_op = detail::binary_derivative(
    spelled(def_binary<ResultType::same_or_bool>(
                "mul", detail::complex_too([](auto x, auto y) { return detail::wrapping_mul(x, y); }), "*"),
            "stablehlo.multiply")
        .multilinear(),
    P(b), P(a));
const OpDef& div_op = detail::binary_derivative(
    def_binary<ResultType::floating>("div", detail::complex_too([](auto x, auto y) { return x / y; }), "/")
        .lower(detail::lower_div)
        .linear({0}),
    P(reciprocal(b)), P(-(y / b)));
const OpDef& pow_op = detail::binary_derivative(
    spelled(def_binary<ResultType::same>("pow", detail::complex_too(
                                                    [](auto x, auto y) {
                                                      if constexpr (is_float_v<decltype(x)>)
                                                        return std::pow(x, y);
                                                      else
                                                        return int_pow(x, y);
                                                    },
                                                    [](auto x, auto y) { return std::pow(x, y); })),
            "stablehlo.power"),
    // b a^(b-1), 0 where b = 0 (so that 0^0 has no infinite slope); y log a, 0 where a = 0.
    P(where(detail::astype_like(b, y) == 0, 0.0,
            detail::astype_like(b, y) * pow(detail::astype_like(a, y), detail::astype_like(b, y) - 1.0))),
    P(y* log(where(detail::astype_like(a, y) == 0, 1.0, detail::astype_like(a, y)))));
// Complex values order lexicographically, by real part and then imaginary part (the spec's order).
template <class Z>
bool complex_greater(Z x, Z y) {
  return x.real() > y.real() || (x.real() == y.real() && x.imag() > y.imag());
}
// NaN-propagating and with -0 < +0, as IEEE-754's maximum/minimum (and JAX's).
const OpDef& maximum_op = detail::binary_derivative(
    spelled(def_binary<ResultType::same_or_bool>(
                "maximum", detail::complex_too(
                               [](auto x, auto y) {
                                 if constexpr (is_float_v<decltype(x)>)
                                   return (x != x || x > y || (x == y && std::signbit(y))) ? x : y;
                                 else
                                   return x > y ? x : y;
                               },
                               [](auto x, auto y) { return complex_greater(x, y) ? x : y; })),
            "stablehlo.maximum"),
    EXTREME_SHARE(a, b), EXTREME_SHARE(b, a));
const OpDef& minimum_op = detail::binary_derivative(
    spelled(def_binary<ResultType::same_or_bool>(
                "minimum", detail::complex_too(
                               [](auto x, auto y) {
                                 if constexpr (is_float_v<decltype(x)>)
                                   return (x != x || x < y || (x == y && std::signbit(x))) ? x : y;
                                 else
                                   return x < y ? x : y;
                               },
                               [](auto x, auto y) { return complex_greater(y, x) ? x : y; })),
            "stablehlo.minimum"),
    EXTREME_SHARE(a, b), EXTREME_SHARE(b, a));
const OpDef& atan2_op = detail::binary_derivative(
    spelled(def_binary<ResultType::floating>(
                "atan2", detail::complex_too([](auto x, auto y) { return std::atan2(x, y); },
                                             [](auto x, auto y) {
                                               // The spec's -i log((y + i x) / sqrt(x^2 + y^2)).
                                               const decltype(x) i(0, 1);
                                               return -i * std::log((y + i * x) / std::sqrt(y * y + x * x));
                                             })),
            "stablehlo.atan2"),
    P(b / (a * a + b * b)), P(-a / (a * a + b * b)));
// sqrt(a^2 + b^2) without overflow or underflow; inf beside NaN is inf (C's hypot,
// and torch's). f32 and narrower are computed in f64, once rounded to the result
// type, which the lowering repeats op for op; f64 is C's hypot.
template <class C> C hypot_of(C x, C y) {
  if constexpr (std::is_same_v<C, double>) {
    return std::hypot(x, y);
  } else {
    const double a = double(x), b = double(y);
    if (std::isinf(a) || std::isinf(b)) return C(std::numeric_limits<double>::infinity());
    return C(std::sqrt(a * a + b * b));
  }
}

const OpDef& hypot_op = detail::binary_derivative(
    def_binary<ResultType::floating>("hypot", [](auto x, auto y) { return hypot_of(x, y); })
        .lower(detail::lower_hypot),
    // a / y and b / y: NaN at a = b = 0, as torch's rule.
    P(a / y), P(b / y));
const OpDef& remainder_op = detail::binary_derivative(
    def_binary<ResultType::same>("remainder", [](auto x, auto y) { return remainder_of(x, y); })
        .lower(detail::lower_remainder),
    // Python's remainder a - b floor(a / b).
    P(ones_like(a)), P(-floor(a / b)));
// log(e^a + e^b) without overflow: max(a, b) + log1p(exp(-|a - b|)), and where a and b
// are the same infinity, that infinity (a - b is NaN there). Integers are taken as
// f32. The kernel and the lowering are these steps, so they agree bit for bit.
Tensor logaddexp_steps(std::span<const Tensor> in) {
  DType t = promote_types(in[0].dtype(), in[1].dtype());
  if (!is_floating(t)) t = DType::f32;
  const Tensor a = in[0].astype(t), b = in[1].astype(t);
  const Tensor spread = maximum(a, b) + log1p(exp(-abs(a - b)));
  return where(logical_and(a == b, logical_not(isfinite(a))), a, spread);
}
const OpDef& logaddexp_op = detail::binary_derivative(
    def_op("logaddexp")
        .called_as({.names = {"logaddexp"}})
        .cpp(detail::cpp_fn("tl::logaddexp"))
        .inputs(2)
        .elementwise()
        .shape_rule(detail::broadcast_rule("logaddexp", ResultType::floating))
        .kernel([](std::span<const Tensor> in, const detail::Attrs&, std::span<const TensorType>) {
          return std::vector<Tensor>{logaddexp_steps(in)};
        })
        .lower([](std::span<const Tensor> in, const detail::Attrs&) {
          return std::vector<Tensor>{logaddexp_steps(in)};
        }),
    // Each operand's softmax weight, sigmoid(a - b) for a, as torch's rule.
    P(sigmoid(a - b)), P(sigmoid(b - a)));
#undef EXTREME_SHARE
#undef P
// Complex values compare for equality (both parts); they have no order (< refuses them, as PyTorch).
const OpDef& eq_op =
    def_binary<ResultType::boolean>("eq", detail::complex_too([](auto x, auto y) { return x == y; }), "==")
        .lower(detail::lower_eq);
const OpDef& ne_op =
    def_binary<ResultType::boolean>("ne", detail::complex_too([](auto x, auto y) { return x != y; }), "!=")
        .lower(detail::lower_ne);
const OpDef& lt_op = def_binary<ResultType::boolean>("lt", [](auto x, auto y) { return x < y; }, "<").lower(detail::lower_lt);
const OpDef& le_op = def_binary<ResultType::boolean>("le", [](auto x, auto y) { return x <= y; }, "<=").lower(detail::lower_le);
const OpDef& gt_op = def_binary<ResultType::boolean>("gt", [](auto x, auto y) { return x > y; }, ">").lower(detail::lower_gt);
const OpDef& ge_op = def_binary<ResultType::boolean>("ge", [](auto x, auto y) { return x >= y; }, ">=").lower(detail::lower_ge);
const OpDef& logical_and_op =
    def_binary<ResultType::boolean>("logical_and", [](auto x, auto y) { return bool(x) && bool(y); })
        .lower(detail::lower_logical_and);
const OpDef& logical_or_op =
    def_binary<ResultType::boolean>("logical_or", [](auto x, auto y) { return bool(x) || bool(y); })
        .lower(detail::lower_logical_or);
const OpDef& logical_xor_op =
    def_binary<ResultType::boolean>("logical_xor", [](auto x, auto y) { return bool(x) != bool(y); })
        .lower(detail::lower_logical_xor);

// select(pred, on_true, on_false): pred is bool; the others promote together.
const OpDef& select_op =
    def_op("select")
        .linear({1, 2})
        .cpp(detail::cpp_fn("tl::where"))
        .called_as({.names = {"where", "select"}})
        .inputs(3)
        .elementwise()
        // The predicate gives no dtype.
        .type_origin(OpDef::TypeOrigin{OpDef::TypeOrigin::kBroadcast, OpDef::TypeOrigin::kCommon, 1})
        .stablehlo({"stablehlo.select", {}, "select"})
        .shape_rule([](std::span<const TensorType> in, const detail::Attrs& attrs) {
          if (in[0].dtype != DType::boolean)
            detail::fail<DTypeError>("where", "the condition must be bool, got {}", in[0].dtype);
          return detail::broadcast_rule("where", ResultType::same_or_bool, 1)(in, attrs);
        })
        .kernel([](std::span<const Tensor> in, const detail::Attrs&, std::span<const TensorType> out) {
          const DType t = out[0].dtype;
          const Tensor& c = in[0];
          const Tensor a = in[1].astype(t), b = in[2].astype(t);
          Tensor y = detail::empty(out[0].shape, t);
          const auto plan = detail::plan_broadcast<3>(out[0].shape, {&c.shape(), &a.shape(), &b.shape()});
          TLALOC_SWITCH_WITH_COMPLEX(t, "where", {
            const bool* pc = c.data<bool>();
            const T* pa = a.data<T>();
            const T* pb = b.data<T>();
            T* py = detail::mutable_data<T>(y);
            detail::for_each_row(plan, [&](std::int64_t o, std::int64_t n, const std::array<std::int64_t, 3>& off,
                                           const std::array<std::int64_t, 3>& st) {
              for (std::int64_t i = 0; i < n; ++i)
                py[o + i] = pc[off[0] + i * st[0]] ? pa[off[1] + i * st[1]] : pb[off[2] + i * st[2]];
            });
          })
          return std::vector<Tensor>{y};
        })
        .jvp([](const Rule& r) {
          if (!r.has_tangent(1) && !r.has_tangent(2)) return std::vector<Tensor>(1);
          const Tensor& y = r.out(0);
          const Tensor a = r.has_tangent(1) ? r.tangent(1) : zeros_like(y);
          const Tensor b = r.has_tangent(2) ? r.tangent(2) : zeros_like(y);
          return std::vector<Tensor>{broadcast_to_shape_of(where(r.in(0), a, b), y)};
        })
        .vjp([](const Rule& r) {
          std::vector<Tensor> g(3);
          const Tensor& c = r.cotangent();
          if (r.wants(1)) g[1] = sum_to_shape_of(where(r.in(0), c, 0.0), r.in(1));
          if (r.wants(2)) g[2] = sum_to_shape_of(where(r.in(0), 0.0, c), r.in(2));
          return g;
        });

Tensor weak(Scalar s, const Tensor& like) {
  if (detail::is_untyped(like)) return detail::weak_scalar(s, like);
  return scalar_tensor(s, detail::weak_scalar_dtype(s, like.dtype()));
}

}  // namespace

#define TLALOC_BINARY_FN(name)                                                                 \
  Tensor name(const Tensor& a, const Tensor& b) { return call1(name##_op, {a, b}); }           \
  Tensor name(const Tensor& a, Scalar b) { return call1(name##_op, {a, weak(b, a)}); }         \
  Tensor name(Scalar a, const Tensor& b) { return call1(name##_op, {weak(a, b), b}); }
TLALOC_BINARY_FN(add)
TLALOC_BINARY_FN(sub)
TLALOC_BINARY_FN(mul)
TLALOC_BINARY_FN(div)
TLALOC_BINARY_FN(pow)
TLALOC_BINARY_FN(maximum)
TLALOC_BINARY_FN(minimum)
TLALOC_BINARY_FN(atan2)
TLALOC_BINARY_FN(hypot)
TLALOC_BINARY_FN(remainder)
TLALOC_BINARY_FN(logaddexp)
TLALOC_BINARY_FN(eq)
TLALOC_BINARY_FN(ne)
TLALOC_BINARY_FN(lt)
TLALOC_BINARY_FN(le)
TLALOC_BINARY_FN(gt)
TLALOC_BINARY_FN(ge)
TLALOC_BINARY_FN(logical_and)
TLALOC_BINARY_FN(logical_or)
TLALOC_BINARY_FN(logical_xor)
#undef TLALOC_BINARY_FN

#define TLALOC_OPERATOR_FN(op, fn)                                                 \
  Tensor operator op(const Tensor& a, const Tensor& b) { return fn(a, b); }       \
  Tensor operator op(const Tensor& a, Scalar b) { return fn(a, b); }              \
  Tensor operator op(Scalar a, const Tensor& b) { return fn(a, b); }
TLALOC_OPERATOR_FN(+, add)
TLALOC_OPERATOR_FN(-, sub)
TLALOC_OPERATOR_FN(*, mul)
TLALOC_OPERATOR_FN(/, div)
TLALOC_OPERATOR_FN(%, remainder)
TLALOC_OPERATOR_FN(<, lt)
TLALOC_OPERATOR_FN(<=, le)
TLALOC_OPERATOR_FN(>, gt)
TLALOC_OPERATOR_FN(>=, ge)
TLALOC_OPERATOR_FN(==, eq)
TLALOC_OPERATOR_FN(!=, ne)
TLALOC_OPERATOR_FN(&, logical_and)
TLALOC_OPERATOR_FN(|, logical_or)
TLALOC_OPERATOR_FN(^, logical_xor)
#undef TLALOC_OPERATOR_FN

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) { return call1(select_op, {cond, a, b}); }
Tensor where(const Tensor& cond, const Tensor& a, Scalar b) { return where(cond, a, weak(b, a)); }
Tensor where(const Tensor& cond, Scalar a, const Tensor& b) { return where(cond, weak(a, b), b); }
Tensor select(const Tensor& pred, const Tensor& on_true, const Tensor& on_false) {
  return where(pred, on_true, on_false);
}

}  // namespace tlaloc
