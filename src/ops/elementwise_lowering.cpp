#include "ops/elementwise_lowering.hpp"

#include <cmath>
#include <limits>
#include <numbers>

#include "ops/elementwise_defs.hpp"

namespace tlaloc::detail {
namespace {

using Out = std::vector<Tensor>;

// A constant of x's dtype; the lowering pass broadcasts it.
Tensor lit(double v, const Tensor& like) { return scalar_tensor(Scalar(v), like.dtype()); }
Tensor lit_int(std::int64_t v, const Tensor& like) { return scalar_tensor(Scalar(v), like.dtype()); }

Tensor compare(const Tensor& x, const Tensor& y, const char* dir) {
  return call_op("compare", {x, y}, {{"comparison_direction", std::string(dir)}});
}
// bool(x): x itself for i1, x != 0 otherwise (NaN is true, -0.0 false).
Tensor truth(const Tensor& x) { return x.dtype() == DType::boolean ? x : compare(x, lit_int(0, x), "NE"); }
// x in dtype d (x itself where it has it).
Tensor converted_to(const Tensor& x, DType d) {
  return x.dtype() == d ? x : call_op("convert", {x}, {{"dtype", d}});
}
// Float functions take integers as f32, as the library's kernels do.
Tensor as_float(const Tensor& x) { return is_floating(x.dtype()) ? x : converted_to(x, DType::f32); }

Tensor add(const Tensor& a, const Tensor& b) { return call_op("add", {a, b}); }
Tensor sub(const Tensor& a, const Tensor& b) { return call_op("sub", {a, b}); }
Tensor mul(const Tensor& a, const Tensor& b) { return call_op("mul", {a, b}); }
Tensor divide(const Tensor& a, const Tensor& b) { return call_op("divide", {a, b}); }
Tensor un(const char* op, const Tensor& x) { return call_op(op, {x}); }

}  // namespace

#define TLALOC_COMPARE_LOWERING(name, dir) \
  Out lower_##name(std::span<const Tensor> in, const Attrs&) { return {compare(in[0], in[1], dir)}; }
TLALOC_COMPARE_LOWERING(eq, "EQ")
TLALOC_COMPARE_LOWERING(ne, "NE")
TLALOC_COMPARE_LOWERING(lt, "LT")
TLALOC_COMPARE_LOWERING(le, "LE")
TLALOC_COMPARE_LOWERING(gt, "GT")
TLALOC_COMPARE_LOWERING(ge, "GE")
#undef TLALOC_COMPARE_LOWERING

#define TLALOC_LOGICAL_LOWERING(name, op)                      \
  Out lower_##name(std::span<const Tensor> in, const Attrs&) { \
    return {call_op(op, {truth(in[0]), truth(in[1])})};        \
  }
TLALOC_LOGICAL_LOWERING(logical_and, "and")
TLALOC_LOGICAL_LOWERING(logical_or, "or")
TLALOC_LOGICAL_LOWERING(logical_xor, "xor")
#undef TLALOC_LOGICAL_LOWERING

Out lower_logical_not(std::span<const Tensor> in, const Attrs&) {
  const Tensor& x = in[0];
  return {x.dtype() == DType::boolean ? un("not", x) : compare(x, lit_int(0, x), "EQ")};
}

// NaN is the one value unequal to itself (integers never are).
Out lower_isnan(std::span<const Tensor> in, const Attrs&) { return {compare(in[0], in[0], "NE")}; }

// True division: integers divide as f32.
Out lower_div(std::span<const Tensor> in, const Attrs&) {
  DType t = promote_types(in[0].dtype(), in[1].dtype());
  if (!is_inexact(t)) t = DType::f32;
  return {divide(converted_to(in[0], t), converted_to(in[1], t))};
}

// Python's remainder from C's: add the divisor when a nonzero remainder's sign
// differs from the divisor's.
Out lower_remainder(std::span<const Tensor> in, const Attrs&) {
  const Tensor r = call_op("fmod", {in[0], in[1]});
  const Tensor y = converted_to(in[1], r.dtype());
  const Tensor fix =
      call_op("and", {compare(r, lit_int(0, r), "NE"),
                      compare(compare(r, lit_int(0, r), "LT"), compare(y, lit_int(0, y), "LT"), "NE")});
  return {call_op("select", {fix, add(r, y), r})};
}

// hypot: the kernel's steps. Below f64, in f64 (exact squares, one sum, one square
// root) and converted back: the kernel's bits. For f64, max * sqrt(1 + (min / max)^2),
// within a few ulps of C's hypot, which the kernel calls. An infinite operand gives inf.
Out lower_hypot(std::span<const Tensor> in, const Attrs&) {
  DType t = promote_types(in[0].dtype(), in[1].dtype());
  if (!is_floating(t)) t = DType::f32;
  // The operands in the result type first, as the kernel converts them.
  const auto wide = [t](const Tensor& x) { return un("abs", converted_to(converted_to(x, t), DType::f64)); };
  const Tensor a = wide(in[0]), b = wide(in[1]);
  Tensor r;
  if (t != DType::f64) {
    r = un("sqrt", add(mul(a, a), mul(b, b)));
  } else {
    const Tensor hi = call_op("maximum", {a, b}), lo = call_op("minimum", {a, b});
    const Tensor q = divide(lo, hi);
    const Tensor scaled = mul(hi, un("sqrt", add(lit(1, q), mul(q, q))));
    r = call_op("select", {compare(hi, lit(0, hi), "EQ"), lit(0, hi), scaled});
  }
  const Tensor inf = lit(std::numeric_limits<double>::infinity(), a);
  r = call_op("select", {call_op("or", {compare(a, inf, "EQ"), compare(b, inf, "EQ")}), inf, r});
  return {converted_to(r, t)};
}

Out lower_square(std::span<const Tensor> in, const Attrs&) { return {mul(in[0], in[0])}; }
// maximum(x, 0): NaN stays NaN and -0.0 becomes +0.0, as relu's kernel.
Out lower_relu(std::span<const Tensor> in, const Attrs&) {
  return {call_op("maximum", {in[0], lit_int(0, in[0])})};
}
Out lower_reciprocal(std::span<const Tensor> in, const Attrs&) {
  const Tensor x = as_float(in[0]);
  return {divide(lit(1, x), x)};
}

// The hyperbolic and inverse functions from StableHLO's exp, log and atan2. These
// are accurate to a few ulps but not bit-identical to the library's kernels.
Out lower_sinh(std::span<const Tensor> in, const Attrs&) {
  const Tensor x = as_float(in[0]);
  return {mul(lit(0.5, x), sub(un("expm1", x), un("expm1", un("neg", x))))};
}
Out lower_cosh(std::span<const Tensor> in, const Attrs&) {
  const Tensor x = as_float(in[0]);
  return {mul(lit(0.5, x), add(un("exp", x), un("exp", un("neg", x))))};
}
// sqrt(1 - x^2) as sqrt((1 - x)(1 + x)), which keeps its precision near |x| = 1.
Tensor cosine_side(const Tensor& x) { return un("sqrt", mul(sub(lit(1, x), x), add(lit(1, x), x))); }
Out lower_asin(std::span<const Tensor> in, const Attrs&) {
  const Tensor x = as_float(in[0]);
  return {call_op("atan2", {x, cosine_side(x)})};
}
Out lower_acos(std::span<const Tensor> in, const Attrs&) {
  const Tensor x = as_float(in[0]);
  return {call_op("atan2", {cosine_side(x), x})};
}
Out lower_atan(std::span<const Tensor> in, const Attrs&) {
  const Tensor x = as_float(in[0]);
  return {call_op("atan2", {x, lit(1, x)})};
}
// asinh(x) = sign(x) log1p(|x| + x^2 / (1 + sqrt(1 + x^2))); overflows for |x| beyond
// the square root of the type's largest value.
Out lower_asinh(std::span<const Tensor> in, const Attrs&) {
  const Tensor x = as_float(in[0]);
  const Tensor a = un("abs", x), a2 = mul(a, a);
  const Tensor t = add(a, divide(a2, add(lit(1, x), un("sqrt", add(lit(1, x), a2)))));
  return {mul(un("sign", x), un("log1p", t))};
}
Out lower_acosh(std::span<const Tensor> in, const Attrs&) {
  const Tensor x = as_float(in[0]);
  return {un("log", add(x, un("sqrt", mul(sub(x, lit(1, x)), add(x, lit(1, x))))))};
}
Out lower_atanh(std::span<const Tensor> in, const Attrs&) {
  const Tensor x = as_float(in[0]);
  return {mul(lit(0.5, x), sub(un("log1p", x), un("log1p", un("neg", x))))};
}
Out lower_silu(std::span<const Tensor> in, const Attrs&) {
  const Tensor x = as_float(in[0]);
  return {mul(x, un("sigmoid", x))};
}
// softplus(x) = max(x, 0) + log1p(exp(-|x|)), which never overflows.
Out lower_softplus(std::span<const Tensor> in, const Attrs&) {
  const Tensor x = as_float(in[0]);
  return {add(call_op("maximum", {x, lit(0, x)}), un("log1p", un("exp", un("neg", un("abs", x)))))};
}
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
Out lower_gelu_tanh(std::span<const Tensor> in, const Attrs&) {
  const Tensor x = as_float(in[0]);
  const double k = std::sqrt(2.0 / std::numbers::pi);
  const Tensor inner = mul(lit(k, x), add(x, mul(lit(0.044715, x), mul(x, mul(x, x)))));
  return {mul(mul(lit(0.5, x), x), add(lit(1, x), un("tanh", inner)))};
}

// Integer and bool operands, which the spec's floor, ceil, round_nearest_even,
// sign and is_finite do not take (floats keep the op itself).
#define TLALOC_INTEGER_IDENTITY(name)                                      \
  Out lower_##name(std::span<const Tensor> in, const Attrs&) {             \
    return {is_floating(in[0].dtype()) ? call_op(#name, {in[0]}) : in[0]}; \
  }
TLALOC_INTEGER_IDENTITY(floor)
TLALOC_INTEGER_IDENTITY(ceil)
TLALOC_INTEGER_IDENTITY(round)
#undef TLALOC_INTEGER_IDENTITY

// (x > 0) - (x < 0) in x's type; unsigned values are never negative and a bool
// is its own sign.
Out lower_sign(std::span<const Tensor> in, const Attrs&) {
  const Tensor& x = in[0];
  if (is_floating(x.dtype())) return {call_op("sign", {x})};
  if (x.dtype() == DType::boolean) return {x};
  const Tensor pos = call_op("convert", {compare(x, lit_int(0, x), "GT")}, {{"dtype", x.dtype()}});
  if (is_unsigned(x.dtype())) return {pos};
  return {sub(pos, call_op("convert", {compare(x, lit_int(0, x), "LT")}, {{"dtype", x.dtype()}}))};
}
// Every integer is finite, and equal to itself.
Out lower_isfinite(std::span<const Tensor> in, const Attrs&) {
  if (is_floating(in[0].dtype())) return {call_op("isfinite", {in[0]})};
  return {compare(in[0], in[0], "EQ")};
}

}  // namespace tlaloc::detail
