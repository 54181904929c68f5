// Elementwise functions of one tensor: each op's rule and kernel side by side.
#include <fmt/format.h>

#include <cmath>

#include "core/elementwise.hpp"
#include "core/isa/float_math.hpp"
#include "core/vmath.hpp"
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

// Declares an op computing f(v) with v of the result's compute type; inputs of
// another type (integers for float functions) are converted first.
// Each op declared here is the public function tl::<name> (its C++ spelling).
// An op its public function tl::<name>(x) records alone.
OpDef& public_unary(const char* name) {
  return def_op(name)
      .called_as({.names = {name}, .attributes = {}})
      .cpp(detail::cpp_fn(std::string("tl::") + name));
}

template <class F, bool floating = false> OpDef& def_unary(const char* name, ResultType rule, F f) {
  return public_unary(name).inputs(1).elementwise().shape_rule(detail::unary_rule(name, rule)).kernel(
      [name, f](std::span<const Tensor> in, const detail::Attrs&, std::span<const detail::TensorType> out) {
        const Tensor x = in[0].dtype() == out[0].dtype ? in[0] : in[0].astype(out[0].dtype);
        if constexpr (floating) return std::vector<Tensor>{detail::map_floating(name, x, f)};
        else return std::vector<Tensor>{detail::map_same(name, x, f)};
      });
}

template <class F> OpDef& def_float_unary(const char* name, F f) {
  return def_unary<F, true>(name, ResultType::floating, f);
}

// A float function whose f32 kernel is also built for AVX-512 (core/isa): f32
// inputs go there, other types through f. Both compute vmath's function.
template <class F> OpDef& def_vmath_unary(const char* name, detail::FloatFn fn, F f) {
  return public_unary(name).inputs(1).elementwise().shape_rule(detail::unary_rule(name, ResultType::floating)).kernel(
      [name, fn, f](std::span<const Tensor> in, const detail::Attrs&, std::span<const detail::TensorType> out) {
        const Tensor x = in[0].dtype() == out[0].dtype ? in[0] : in[0].astype(out[0].dtype);
        if (x.dtype() != DType::f32) return std::vector<Tensor>{detail::map_floating(name, x, f)};
        Tensor y = detail::empty(x.shape(), DType::f32);
        const float* src = x.data<float>();
        float* dst = detail::mutable_data<float>(y);
        detail::parallel_for(x.numel(), detail::kElementwiseGrain, [&](std::int64_t b, std::int64_t e) {
          detail::float_math(fn, src + b, dst + b, e - b);
        });
        return std::vector<Tensor>{y};
      });
}

// A predicate: any input type, bool result.
template <class F> OpDef& def_predicate(const char* name, F f) {
  return public_unary(name)
      .inputs(1)
      .elementwise()
      .no_derivative()
      .shape_rule(detail::real_only(name, detail::unary_rule(name, ResultType::boolean)))
      .kernel(
          [name, f](std::span<const Tensor> in, const detail::Attrs&, std::span<const detail::TensorType>) {
            return std::vector<Tensor>{detail::map_to<bool>(name, in[0], f)};
          });
}

// An op that is a StableHLO elementwise op on the spec's domain.
OpDef& spelled(OpDef& op, const char* name) { return op.elementwise().stablehlo(detail::elementwise_spelling(name)); }
// One the spec defines on floats only; integer operands take `lower`.
OpDef& float_spelled(OpDef& op, const char* name, detail::LowerFn lower) {
  return op.elementwise().stablehlo(detail::floating_spelling(name)).lower(std::move(lower));
}

template <class T> constexpr bool is_float_v = std::is_floating_point_v<T>;

// exp(z) - 1 and log(1 + z) without the cancellation near z = 0 (real parts as
// expm1 and log1p of reals keep it).
template <class Z>
Z complex_expm1(Z z) {
  using R = typename Z::value_type;
  const R s = std::sin(z.imag() / 2);
  return {std::expm1(z.real()) * std::cos(z.imag()) - 2 * s * s, std::exp(z.real()) * std::sin(z.imag())};
}
template <class Z>
Z complex_log1p(Z z) {
  using R = typename Z::value_type;
  const R x = z.real(), y = z.imag();
  return {R(0.5) * std::log1p(x * (2 + x) + y * y), std::atan2(y, 1 + x)};
}

// ---- derivatives that take more than one line ---------------------------------
// gelu_tanh = x (1 + tanh u) / 2 with u = sqrt(2/pi) (x + 0.044715 x^3).
Tensor gelu_tanh_derivative(const Tensor& x) {
  constexpr double kSqrt2OverPi = 0.7978845608028654, kGeluCubic = 0.044715;
  const Tensor x2 = x * x;
  const Tensor t = tanh(kSqrt2OverPi * (x + kGeluCubic * x2 * x));
  return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * (kSqrt2OverPi * (1.0 + 3.0 * kGeluCubic * x2));
}

// ---- same element type ------------------------------------------------------
const OpDef& neg_op = spelled(def_unary("neg", ResultType::same,
                                        detail::complex_too([](auto v) { return detail::wrapping_neg(v); })),
                              "stablehlo.negate")
                          .called_as({.names = {"neg"}, .symbol = "-"})
                          .linear()
                          .jvp(detail::linear_jvp({0}))
                          .vjp([](const detail::Rule& r) { return std::vector<Tensor>{neg(r.cotangent())}; });
// abs of a complex value is its modulus, a real of the parts' type.
Tensor abs_kernel(const Tensor& x) {
  if (is_complex(x.dtype())) {
    Tensor out = detail::empty(x.shape(), real_dtype(x.dtype()));
    TLALOC_SWITCH_COMPLEX(x.dtype(), "abs", {
      using R = typename T::value_type;
      detail::map_loop<R>(x.data<T>(), detail::mutable_data<R>(out), x.numel(),
                          [](T z) { return std::abs(z); });
    })
    return out;
  }
  return detail::map_same("abs", x, [](auto v) {
    using C = decltype(v);
    if constexpr (std::is_unsigned_v<C>)
      return v;
    else
      return v < C(0) ? detail::wrapping_neg(v) : v;
  });
}
const OpDef& abs_op =
    spelled(public_unary("abs")
                .inputs(1)
                .shape_rule([](std::span<const detail::TensorType> in, const detail::Attrs&) {
                  if (in[0].dtype == DType::boolean)
                    detail::fail<DTypeError>("abs", "does not accept bool tensors");
                  return std::vector<detail::TensorType>{{real_dtype(in[0].dtype), in[0].shape}};
                })
                .kernel([](std::span<const Tensor> in, const detail::Attrs&,
                           std::span<const detail::TensorType>) {
                  return std::vector<Tensor>{abs_kernel(in[0])};
                }),
            "stablehlo.abs")
        .derivative([](const Tensor& x, const Tensor&) { return sign(x); });
// sign(±0) = ±0 and sign(NaN) = NaN, as JAX.
// A complex value's sign is z / |z|, and 0 at 0.
const OpDef& sign_op =
    float_spelled(def_unary("sign", ResultType::same,
                            detail::complex_too(
                                [](auto v) {
                                  using C = decltype(v);
                                  return v > C(0) ? C(1) : v < C(0) ? C(-1) : v;
                                },
                                [](auto z) { return z == decltype(z)(0) ? z : z / std::abs(z); })),
                  "stablehlo.sign", detail::lower_sign)
        .no_derivative();
const OpDef& square_op =
    def_unary("square", ResultType::same, [](auto v) { return detail::wrapping_mul(v, v); })
        .lower(detail::lower_square)
        .derivative([](const Tensor& x, const Tensor&) { return 2.0 * x; });
// relu(NaN) = NaN: the comparison is false for NaN and v passes through.
const OpDef& relu_op =
    def_unary("relu", ResultType::same,
              [](auto v) {
                using C = decltype(v);
                return v <= C(0) ? C(0) : v;
              })
        .lower(detail::lower_relu)
        .derivative([](const Tensor& x, const Tensor&) { return detail::astype_like(x > 0, x); });
// Rounding to an integer value: integers are returned as they are (no kernel to
// build for them).
template <class F>
OpDef& def_rounding(const char* name, F f) {
  return public_unary(name)
      .inputs(1)
      .elementwise()
      .shape_rule(detail::real_only(name, detail::unary_rule(name, ResultType::same)))
      .kernel(
          [name, f](std::span<const Tensor> in, const detail::Attrs&, std::span<const detail::TensorType>) {
            if (!is_inexact(in[0].dtype())) return std::vector<Tensor>{in[0]};
            return std::vector<Tensor>{detail::map_floating(name, in[0], f)};
          });
}
const OpDef& floor_op =
    float_spelled(def_rounding("floor", [](auto v) { return std::floor(v); }), "stablehlo.floor", detail::lower_floor).no_derivative();
const OpDef& ceil_op =
    float_spelled(def_rounding("ceil", [](auto v) { return std::ceil(v); }), "stablehlo.ceil", detail::lower_ceil).no_derivative();
// nearbyint rounds half to even in the default rounding mode.
const OpDef& round_op =
    float_spelled(def_rounding("round", [](auto v) { return std::nearbyint(v); }), "stablehlo.round_nearest_even",
                  detail::lower_round).no_derivative();

// ---- floating results ---------------------------------------------------------
// Spelled ops are StableHLO's; the others lower to them (ops/elementwise_lowering).
// erf and gelu (erf form) have no StableHLO op; they lower to a polynomial
// approximation (ops/erf_lowering.cpp).
#define TLALOC_FLOAT_UNARY(name, expr, how) \
  const OpDef& name##_op = def_float_unary(#name, [](auto v) { return expr; }) how;
#define TLALOC_VMATH_UNARY(name, fn, how) \
  const OpDef& name##_op = def_vmath_unary(#name, detail::FloatFn::fn, [](auto v) { return vmath::fn(v); }) how;
// The same for functions that also take complex values, computing `cexpr` of z.
#define TLALOC_FLOAT_UNARY_C(name, expr, cexpr, how) \
  const OpDef& name##_op = def_float_unary(          \
      #name, detail::complex_too([](auto v) { return expr; }, [](auto z) { return cexpr; })) how;
#define TLALOC_VMATH_UNARY_C(name, fn, cexpr, how) \
  const OpDef& name##_op = def_vmath_unary(        \
      #name, detail::FloatFn::fn,                  \
      detail::complex_too([](auto v) { return vmath::fn(v); }, [](auto z) { return cexpr; })) how;
#define TLALOC_SPELLED(spec) .elementwise().stablehlo(detail::elementwise_spelling("stablehlo." #spec))
#define TLALOC_LOWERED(name) .lower(detail::lower_##name)
// Also read as the chlo op JAX writes for it; lowered, it is decomposed.
#define TLALOC_CHLO(name) .chlo(detail::chlo_spelling("chlo." #name))
#define D(expr) \
  .derivative([]([[maybe_unused]] const Tensor& x, [[maybe_unused]] const Tensor& y) { return expr; })
TLALOC_VMATH_UNARY_C(exp, exp, std::exp(z), TLALOC_SPELLED(exponential) D(y))
TLALOC_VMATH_UNARY_C(expm1, expm1, complex_expm1(z), TLALOC_SPELLED(exponential_minus_one) D(y + 1.0))
TLALOC_VMATH_UNARY_C(log, log, std::log(z), TLALOC_SPELLED(log) D(reciprocal(x)))
TLALOC_VMATH_UNARY_C(log1p, log1p, complex_log1p(z), TLALOC_SPELLED(log_plus_one) D(reciprocal(x + 1.0)))
TLALOC_FLOAT_UNARY_C(sqrt, std::sqrt(v), std::sqrt(z), TLALOC_SPELLED(sqrt) D(0.5 / y))
TLALOC_FLOAT_UNARY_C(rsqrt, decltype(v)(1) / std::sqrt(v), decltype(z)(1) / std::sqrt(z),
                     TLALOC_SPELLED(rsqrt) D(-0.5 * y / x))
TLALOC_FLOAT_UNARY_C(reciprocal, decltype(v)(1) / v, decltype(z)(1) / z,
                     TLALOC_LOWERED(reciprocal) D(-(y* y)))
TLALOC_VMATH_UNARY_C(sin, sin, std::sin(z), TLALOC_SPELLED(sine) D(cos(x)))
TLALOC_VMATH_UNARY_C(cos, cos, std::cos(z), TLALOC_SPELLED(cosine) D(-sin(x)))
TLALOC_FLOAT_UNARY_C(tan, std::tan(v), std::tan(z), TLALOC_SPELLED(tan) TLALOC_CHLO(tan) D(1.0 + y * y))
TLALOC_VMATH_UNARY_C(tanh, tanh, std::tanh(z), TLALOC_SPELLED(tanh) D(1.0 - y * y))
TLALOC_FLOAT_UNARY(sinh, std::sinh(v), TLALOC_LOWERED(sinh) TLALOC_CHLO(sinh) D(cosh(x)))
TLALOC_FLOAT_UNARY(cosh, std::cosh(v), TLALOC_LOWERED(cosh) TLALOC_CHLO(cosh) D(sinh(x)))
TLALOC_FLOAT_UNARY(asin, std::asin(v), TLALOC_LOWERED(asin) TLALOC_CHLO(asin) D(rsqrt((1.0 - x) * (1.0 + x))))
TLALOC_FLOAT_UNARY(acos, std::acos(v),
                   TLALOC_LOWERED(acos) TLALOC_CHLO(acos) D(-rsqrt((1.0 - x) * (1.0 + x))))
TLALOC_FLOAT_UNARY(atan, std::atan(v), TLALOC_LOWERED(atan) TLALOC_CHLO(atan) D(reciprocal(1.0 + x * x)))
TLALOC_FLOAT_UNARY(asinh, std::asinh(v), TLALOC_LOWERED(asinh) TLALOC_CHLO(asinh) D(rsqrt(x* x + 1.0)))
TLALOC_FLOAT_UNARY(acosh, std::acosh(v),
                   TLALOC_LOWERED(acosh) TLALOC_CHLO(acosh) D(rsqrt((x - 1.0) * (x + 1.0))))
TLALOC_FLOAT_UNARY(atanh, std::atanh(v),
                   TLALOC_LOWERED(atanh) TLALOC_CHLO(atanh) D(reciprocal((1.0 - x) * (1.0 + x))))
TLALOC_VMATH_UNARY_C(sigmoid, sigmoid, decltype(z)(1) / (decltype(z)(1) + std::exp(-z)),
                     TLALOC_SPELLED(logistic) D(y*(1.0 - y)))
// silu = x s(x): s + x s (1 - s).
TLALOC_VMATH_UNARY(silu, silu, TLALOC_LOWERED(silu) D(sigmoid(x) * (1.0 + x * (1.0 - sigmoid(x)))))
TLALOC_VMATH_UNARY(softplus, softplus, TLALOC_LOWERED(softplus) D(sigmoid(x)))
// 2/sqrt(pi) exp(-x^2).
TLALOC_VMATH_UNARY(erf, erf, TLALOC_LOWERED(erf) TLALOC_CHLO(erf) D(1.1283791670955126 * exp(-(x * x))))
// gelu = x Phi(x): Phi(x) + x phi(x), with 1/sqrt(2) and 1/sqrt(2 pi) written out.
const OpDef& gelu_op =
    def_vmath_unary("gelu", detail::FloatFn::gelu_erf, [](auto v) { return vmath::gelu_erf(v); })
        .lower(detail::lower_gelu) D(0.5 * (1.0 + erf(x * 0.7071067811865476)) + x * (0.3989422804014327 * exp(-0.5 * (x * x))));
// Spelled tl::gelu(x, true): no public function of its own name records it, and
// tlaloc-grad, which writes the rules of the ops spelled by their own names, refuses it
// by name.
TLALOC_VMATH_UNARY(gelu_tanh, gelu_tanh,
                   TLALOC_LOWERED(gelu_tanh)
                       .called_as({.names = {}, .attributes = {}})
                       .derivative([](const Tensor& x, const Tensor&) { return gelu_tanh_derivative(x); })
                       .cpp([](detail::CppOp& op) { return detail::cpp_call("tl::gelu", op, {"true"}); }))
#undef TLALOC_CHLO
#undef TLALOC_LOWERED
#undef D
#undef TLALOC_SPELLED
#undef TLALOC_VMATH_UNARY_C
#undef TLALOC_VMATH_UNARY
#undef TLALOC_FLOAT_UNARY_C
#undef TLALOC_FLOAT_UNARY

// ---- predicates -------------------------------------------------------------
const OpDef& logical_not_op =
    def_predicate("logical_not", [](auto v) { return !bool(v); }).lower(detail::lower_logical_not);
const OpDef& isfinite_op = def_predicate("isfinite", [](auto v) {
  if constexpr (is_float_v<decltype(v)>) return std::isfinite(v);
  else return true;
}).elementwise().stablehlo(detail::floating_spelling("stablehlo.is_finite")).lower(detail::lower_isfinite);
const OpDef& isnan_op = def_predicate("isnan", [](auto v) {
  if constexpr (is_float_v<decltype(v)>) return std::isnan(v);
  else return false;
}).lower(detail::lower_isnan);

// Float to integer truncates toward zero; out-of-range values saturate and NaN
// gives 0 (the spec leaves both to the implementation). Integers wrap.
const OpDef& convert_op =
    def_op("convert")
        .linear()
        .keeps_narrow_types()
        .inputs(1)
        .called_as({.names = {"astype"}, .attributes = {"dtype"}, .passes_on = true, .method = true})
        .stablehlo({"stablehlo.convert",
                    {detail::StableHloAttr("dtype", detail::StableHloAttr::Kind::result_dtype)},
                    "elementwise"})
        .shape_rule([](std::span<const detail::TensorType> in, const detail::Attrs& attrs) {
          return std::vector<detail::TensorType>{{attrs.get<DType>("dtype"), in[0].shape}};
        })
        .kernel(
            [](std::span<const Tensor> in, const detail::Attrs&, std::span<const detail::TensorType> out) {
              return std::vector<Tensor>{detail::converted(in[0], out[0].dtype)};
            })
        .jvp(detail::linear_jvp({0}))
        .vjp([](const detail::Rule& r) {
          return std::vector<Tensor>{detail::astype_like(r.cotangent(), r.in(0))};
        })
        .cpp([](detail::CppOp& op) {
          const std::string* written = detail::cpp_written(op.attrs(), "dtype");
          return fmt::format(
              "{}.astype({})", op.operand(0),
              written != nullptr ? *written : detail::cpp_dtype(op.attrs().get<DType>("dtype")));
        });

}  // namespace

#define TLALOC_UNARY_FN(name) \
  Tensor name(const Tensor& x) { return call1(name##_op, {x}); }
TLALOC_UNARY_FN(neg)
TLALOC_UNARY_FN(abs)
TLALOC_UNARY_FN(sign)
TLALOC_UNARY_FN(square)
TLALOC_UNARY_FN(relu)
TLALOC_UNARY_FN(floor)
TLALOC_UNARY_FN(ceil)
TLALOC_UNARY_FN(round)
TLALOC_UNARY_FN(exp)
TLALOC_UNARY_FN(expm1)
TLALOC_UNARY_FN(log)
TLALOC_UNARY_FN(log1p)
TLALOC_UNARY_FN(sqrt)
TLALOC_UNARY_FN(rsqrt)
TLALOC_UNARY_FN(reciprocal)
TLALOC_UNARY_FN(sin)
TLALOC_UNARY_FN(cos)
TLALOC_UNARY_FN(tan)
TLALOC_UNARY_FN(tanh)
TLALOC_UNARY_FN(sinh)
TLALOC_UNARY_FN(cosh)
TLALOC_UNARY_FN(asin)
TLALOC_UNARY_FN(acos)
TLALOC_UNARY_FN(atan)
TLALOC_UNARY_FN(asinh)
TLALOC_UNARY_FN(acosh)
TLALOC_UNARY_FN(atanh)
TLALOC_UNARY_FN(sigmoid)
TLALOC_UNARY_FN(silu)
TLALOC_UNARY_FN(softplus)
TLALOC_UNARY_FN(erf)
TLALOC_UNARY_FN(logical_not)
TLALOC_UNARY_FN(isfinite)
TLALOC_UNARY_FN(isnan)
#undef TLALOC_UNARY_FN

Tensor gelu(const Tensor& x, bool tanh_approximation) {
  return call1(tanh_approximation ? gelu_tanh_op : gelu_op, {x});
}
Tensor operator-(const Tensor& x) { return neg(x); }
Tensor operator!(const Tensor& x) { return logical_not(x); }

Tensor Tensor::astype(DType t) const {
  if (detail::is_untyped(*this)) return call1(convert_op, {*this}, {{"dtype", t}});
  if (dtype() == t) return *this;
  return call1(convert_op, {*this}, {{"dtype", t}});
}

}  // namespace tlaloc
