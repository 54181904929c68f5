// Special functions (include/tlaloc/special.hpp): each op's rule, kernel, chlo
// spelling and derivatives side by side. The kernels compute in f64
// (core/special_math) and round once; erf_inv computes as XLA does. Ops with a chlo
// spelling stay chlo when lowered (XLA's compilers legalize them, as for JAX);
// docs/SPECIAL_FUNCTIONS.md.
#include "tlaloc/special.hpp"

#include <cmath>
#include <numbers>
#include <type_traits>

#include "core/elementwise.hpp"
#include "core/special_math.hpp"
#include "core/threefry.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/elementwise_defs.hpp"
#include "ops/elementwise_rules.hpp"
#include "ops/like.hpp"
#include "ops/rule.hpp"
#include "ops/special_lowering.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc {
namespace {

using detail::Attrs;
using detail::call1;
using detail::chlo_spelling;
using detail::OpDef;
using detail::ResultType;
using detail::TensorType;
namespace special = detail::special;

OpDef& public_op(const char* name, int inputs) {
  return detail::def_op(name)
      .called_as({.names = {name}})
      .cpp(detail::cpp_fn(std::string("tl::") + name))
      .inputs(inputs)
      .elementwise();
}

// f(v) on x in the result's type (its compute type: f32 for f16 and bf16).
template <class F>
OpDef& def_unary(const char* name, F f) {
  return public_op(name, 1)
      .shape_rule(detail::real_only(name, detail::unary_rule(name, ResultType::floating)))
      .kernel([name, f](std::span<const Tensor> in, const Attrs&, std::span<const TensorType> out) {
        const Tensor x = in[0].dtype() == out[0].dtype ? in[0] : in[0].astype(out[0].dtype);
        return std::vector<Tensor>{detail::map_floating(name, x, f)};
      });
}

// f(a, b) on the operands converted to the result's type and broadcast.
template <class F>
OpDef& def_binary(const char* name, F f) {
  return public_op(name, 2)
      .shape_rule(detail::real_only(name, detail::broadcast_rule(name, ResultType::floating)))
      .kernel([name, f](std::span<const Tensor> in, const Attrs&, std::span<const TensorType> out) {
        const DType t = out[0].dtype;
        const Tensor a = in[0].astype(t), b = in[1].astype(t);
        Tensor y = detail::empty(out[0].shape, t);
        TLALOC_SWITCH_FLOATING(t, name, detail::binary_loop<T, T>(a, b, y, f))
        return std::vector<Tensor>{y};
      });
}

// A function of f64 applied to a value of compute type C, rounded once.
#define F64(fn) [](auto v) { return decltype(v)(special::fn(double(v))); }
#define F64_2(fn) [](auto a, auto b) { return decltype(a)(special::fn(double(a), double(b))); }
#define D(expr) \
  .derivative([]([[maybe_unused]] const Tensor& x, [[maybe_unused]] const Tensor& y) { return expr; })
#define P(expr)                                                          \
  []([[maybe_unused]] const Tensor& a, [[maybe_unused]] const Tensor& b, \
     [[maybe_unused]] const Tensor& y) -> Tensor { return expr; }
// An operand the op has no derivative in (an order, a shape parameter): refused by
// name when a derivative flows into it, as JAX and torch refuse it.
#define NO_PARTIAL(op, operand)                                                               \
  [](const Tensor&, const Tensor&, const Tensor&) -> Tensor {                                 \
    detail::fail<NotDifferentiableError>(op, "has no derivative in its operand {}", operand); \
  }

constexpr double kTwoOverSqrtPi = 2 * std::numbers::inv_sqrtpi;

const OpDef& lgamma_op = def_unary("lgamma", F64(lgamma)).chlo(chlo_spelling("chlo.lgamma")) D(digamma(x));
const OpDef& digamma_op =
    def_unary("digamma", F64(digamma)).chlo(chlo_spelling("chlo.digamma")) D(polygamma(ones_like(x), x));
const OpDef& erfc_op = def_unary("erfc", [](auto v) {
                         return decltype(v)(std::erfc(double(v)));
                       }).chlo(chlo_spelling("chlo.erfc")) D(-kTwoOverSqrtPi * exp(-(x * x)));
// XLA's erf_inv: Giles' polynomials, f32 (and narrower) in f32, f64 in f64.
// d/dx erf_inv(x) = sqrt(pi)/2 exp(erf_inv(x)^2).
const OpDef& erf_inv_op = def_unary("erf_inv", [](auto v) {
                            return detail::rng::erfinv(v);
                          }).chlo(chlo_spelling("chlo.erf_inv")) D(exp(y * y) / kTwoOverSqrtPi);
const OpDef& bessel_i0e_op =
    def_unary("bessel_i0e", F64(bessel_i0e)).lower(detail::lower_bessel_i0e) D(bessel_i1e(x) - sign(x) * y);
// i1e'(x) = i0e(x) - i1e(x) (sign(x) + 1/x), and 1/2 at 0 (x taken as 1 there so
// that no branch divides by zero).
Tensor bessel_i1e_derivative(const Tensor& x, const Tensor& y) {
  const Tensor zero = x == 0.0;
  const Tensor safe = where(zero, ones_like(x), x);
  return where(zero, ones_like(x) * 0.5, bessel_i0e(x) - y * (sign(x) + reciprocal(safe)));
}
const OpDef& bessel_i1e_op = def_unary("bessel_i1e", F64(bessel_i1e))
                                 .chlo(chlo_spelling("chlo.bessel_i1e"))
                                 .derivative(bessel_i1e_derivative);

const OpDef& polygamma_op =
    detail::binary_derivative(def_binary("polygamma", F64_2(polygamma)).chlo(chlo_spelling("chlo.polygamma")),
                              NO_PARTIAL("polygamma", "n"), P(polygamma(a + 1.0, b)));
// d/dq zeta(x, q) = -x zeta(x + 1, q).
const OpDef& zeta_op =
    detail::binary_derivative(def_binary("zeta", F64_2(zeta)).chlo(chlo_spelling("chlo.zeta")),
                              NO_PARTIAL("zeta", "x"), P(-a* zeta(a + 1.0, b)));
// d/dx P(a, x) = x^(a-1) e^-x / Gamma(a), and Q's is its negative. chlo has no
// incomplete gamma: they lower to while loops (ops/incomplete_lowering.cpp), as JAX's do.
Tensor igamma_density(const Tensor& a, const Tensor& x) { return exp((a - 1.0) * log(x) - x - lgamma(a)); }
const OpDef& igamma_op =
    detail::binary_derivative(def_binary("igamma", F64_2(igamma)).lower(detail::lower_igamma),
                              NO_PARTIAL("igamma", "a"), P(igamma_density(a, b)));
const OpDef& igammac_op =
    detail::binary_derivative(def_binary("igammac", F64_2(igammac)).lower(detail::lower_igammac),
                              NO_PARTIAL("igammac", "a"), P(-igamma_density(a, b)));
// d/dx I_x(a, b) = x^(a-1) (1-x)^(b-1) / B(a, b); a and b have none here, as in JAX.
Tensor beta_density(const Tensor& a, const Tensor& b, const Tensor& x) {
  return exp((a - 1.0) * log(x) + (b - 1.0) * log1p(-x) - (lgamma(a) + lgamma(b) - lgamma(a + b)));
}
void refuse_shape_parameters(const detail::Rule& r, bool forward) {
  for (std::size_t i = 0; i < 2; ++i)
    if (forward ? r.has_tangent(i) : r.wants(i))
      detail::fail<NotDifferentiableError>("betainc", "has no derivative in its operand {}",
                                           i == 0 ? "a" : "b");
}
const OpDef& betainc_op =
    public_op("betainc", 3)
        .shape_rule(detail::real_only("betainc", detail::broadcast_rule("betainc", ResultType::floating)))
        .kernel([](std::span<const Tensor> in, const Attrs&, std::span<const TensorType> out) {
          const DType t = out[0].dtype;
          std::vector<Tensor> v;
          for (const Tensor& x : in) v.push_back(broadcast_to(x.astype(t), out[0].shape));
          Tensor y = detail::empty(out[0].shape, t);
          TLALOC_SWITCH_FLOATING(t, "betainc", {
            const T* pa = v[0].data<T>();
            const T* pb = v[1].data<T>();
            const T* px = v[2].data<T>();
            T* py = detail::mutable_data<T>(y);
            const auto wide = [](T e) { return double(static_cast<detail::compute_t<T>>(e)); };
            detail::parallel_for(y.numel(), detail::kElementwiseGrain, [&](std::int64_t b, std::int64_t e) {
              for (std::int64_t i = b; i < e; ++i) {
                const double r = special::betainc(wide(pa[i]), wide(pb[i]), wide(px[i]));
                py[i] = T(static_cast<detail::compute_t<T>>(r));
              }
            });
          })
          return std::vector<Tensor>{y};
        })
        .lower(detail::lower_betainc)
        .jvp([](const detail::Rule& r) {
          refuse_shape_parameters(r, true);
          Tensor t;
          if (r.has_tangent(2)) t = r.tangent(2) * beta_density(r.in(0), r.in(1), r.in(2));
          return std::vector<Tensor>{broadcast_to_shape_of(t, r.out(0))};
        })
        .vjp([](const detail::Rule& r) {
          refuse_shape_parameters(r, false);
          std::vector<Tensor> g(3);
          if (r.has_cotangent() && r.wants(2))
            g[2] = sum_to_shape_of(r.cotangent() * beta_density(r.in(0), r.in(1), r.in(2)), r.in(2));
          return g;
        });
#undef NO_PARTIAL
#undef P
#undef D
#undef F64_2
#undef F64

// The next value of x's type after x toward y, on its bits: f16 and bf16 have no
// C function. Zero steps to the smallest subnormal of y's sign.
template <class T>
T next_after(T x, T y) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::nextafter(x, y);
  } else {
    const float fx = float(x), fy = float(y);
    if (std::isnan(fx) || std::isnan(fy)) return T(fx + fy);
    if (fx == fy) return y;
    T out;
    if (fx == 0) {
      out.bits = std::uint16_t(std::signbit(fy) ? 0x8001 : 0x0001);
    } else {
      const bool away = (fx < fy) == (fx > 0);  // the magnitude grows
      out.bits = std::uint16_t(away ? x.bits + 1 : x.bits - 1);
    }
    return out;
  }
}

const OpDef& nextafter_op =
    public_op("nextafter", 2)
        .chlo(chlo_spelling("chlo.next_after"))
        .shape_rule([rule = detail::real_only("nextafter",
                                              detail::broadcast_rule("nextafter", ResultType::floating))](
                        std::span<const TensorType> in, const Attrs& a) {
          std::vector<TensorType> out = rule(in, a);
          if (is_narrow(out[0].dtype))
            detail::fail<DTypeError>("nextafter", "steps on the bits of f16, bf16, f32 and f64, not {}",
                                     out[0].dtype);
          return out;
        })
        .kernel([](std::span<const Tensor> in, const Attrs&, std::span<const TensorType> out) {
          const DType t = out[0].dtype;
          const Tensor a = broadcast_to(in[0].astype(t), out[0].shape);
          const Tensor b = broadcast_to(in[1].astype(t), out[0].shape);
          Tensor y = detail::empty(out[0].shape, t);
          TLALOC_SWITCH_FLOATING(t, "nextafter", {
            const T* pa = a.data<T>();
            const T* pb = b.data<T>();
            T* py = detail::mutable_data<T>(y);
            for (std::int64_t i = 0; i < y.numel(); ++i) py[i] = next_after(pa[i], pb[i]);
          })
          return std::vector<Tensor>{y};
        });

}  // namespace

#define TLALOC_SPECIAL_FN(name) \
  Tensor name(const Tensor& x) { return call1(name##_op, {x}); }
TLALOC_SPECIAL_FN(lgamma)
TLALOC_SPECIAL_FN(digamma)
TLALOC_SPECIAL_FN(erfc)
TLALOC_SPECIAL_FN(erf_inv)
TLALOC_SPECIAL_FN(bessel_i0e)
TLALOC_SPECIAL_FN(bessel_i1e)
#undef TLALOC_SPECIAL_FN
#define TLALOC_SPECIAL_FN(name) \
  Tensor name(const Tensor& a, const Tensor& b) { return call1(name##_op, {a, b}); }
TLALOC_SPECIAL_FN(polygamma)
TLALOC_SPECIAL_FN(zeta)
TLALOC_SPECIAL_FN(igamma)
TLALOC_SPECIAL_FN(igammac)
TLALOC_SPECIAL_FN(nextafter)
#undef TLALOC_SPECIAL_FN
Tensor betainc(const Tensor& a, const Tensor& b, const Tensor& x) { return call1(betainc_op, {a, b, x}); }

}  // namespace tlaloc
