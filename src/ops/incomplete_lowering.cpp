// The incomplete gamma and beta functions in StableHLO ops, as the kernels compute
// them (core/special_math.cpp) but on whole tensors: each series or continued
// fraction is a while loop that runs until every element it serves has converged
// (at most 2000 steps, the kernels' bound). Elements another method serves are given
// inputs that converge at once, and each element's method is picked at the end. In
// f64, rounded once to the result type.
#include <cmath>
#include <functional>
#include <limits>

#include "ir/builder.hpp"
#include "ops/special_lowering.hpp"
#include "tlaloc/ops.hpp"
#include "tlaloc/special.hpp"

namespace tlaloc::detail {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr double kTiny = 1e-300;
constexpr double kMaxSteps = 2000;

using Carry = std::vector<Tensor>;
using Going = std::function<Tensor(const Carry&)>;
using Step = std::function<Carry(const Carry&)>;

// A while op on the carry: its regions traced from `going` and `step`.
Carry loop(const Carry& init, const Going& going, const Step& step) {
  ir::Builder* b = ir::current_builder();
  if (b == nullptr) fail("incomplete gamma and beta", "are lowered only while tracing");
  std::vector<TensorType> types;
  for (const Tensor& t : init) types.push_back(type_of(t));
  std::vector<ir::Region> regions;
  regions.push_back(b->region(types, [&](std::span<const Tensor> c) {
    return std::vector<Tensor>{going(Carry(c.begin(), c.end()))};
  }));
  regions.push_back(
      b->region(types, [&](std::span<const Tensor> c) { return step(Carry(c.begin(), c.end())); }));
  return b->record(*find_op("while"), init, {}, types, std::move(regions));
}

Tensor scalar(double v) { return full({}, v, DType::f64); }

// sum_n x^n / (a (a+1) ... (a+n)), the series of P(a, x) e^x x^-a Gamma(a).
// Carry: n, a, x, term, sum.
Tensor series(const Tensor& a, const Tensor& x) {
  const Tensor first = reciprocal(a);
  const Carry out = loop(
      {scalar(0), a, x, first, first},
      [](const Carry& c) { return logical_and(c[0] < kMaxSteps, any(abs(c[3]) >= abs(c[4]) * kEps)); },
      [](const Carry& c) {
        const Tensor n = c[0] + 1.0;
        const Tensor term = c[3] * (c[2] / (c[1] + n));
        return Carry{n, c[1], c[2], term, c[4] + term};
      });
  return out[4];
}

// Legendre's continued fraction of Q(a, x) e^x x^-a Gamma(a) by Lentz's method.
// Carry: i, a, x, b, c, d, h, |step - 1|.
Tensor fraction(const Tensor& a, const Tensor& x) {
  const Tensor b = x + 1.0 - a, d = reciprocal(b);
  const Carry out = loop(
      {scalar(0), a, x, b, full_like(x, 1 / kTiny), d, d, ones_like(x)},
      [](const Carry& c) { return logical_and(c[0] < kMaxSteps, any(c[7] >= kEps)); },
      [](const Carry& c) {
        const Tensor i = c[0] + 1.0;
        const Tensor an = -i * (i - c[1]);
        const Tensor bn = c[3] + 2.0;
        const auto guard = [](const Tensor& v) { return where(abs(v) < kTiny, full_like(v, kTiny), v); };
        const Tensor dn = reciprocal(guard(an * c[5] + bn));
        const Tensor cn = guard(bn + an / c[4]);
        const Tensor step = dn * cn;
        return Carry{i, c[1], c[2], bn, cn, dn, c[6] * step, abs(step - 1.0)};
      });
  return out[6];
}

// {P, Q} of f64 operands of one shape.
std::pair<Tensor, Tensor> incomplete_gamma(const Tensor& a, const Tensor& x) {
  const Tensor valid = logical_not(logical_or(logical_or(isnan(a), isnan(x)), logical_or(a <= 0.0, x < 0.0)));
  const Tensor safe_a = where(valid, a, ones_like(a));
  const Tensor by_series = x < safe_a + 1.0;
  const Tensor xs = where(logical_and(valid, by_series), x, zeros_like(x));
  const Tensor xc =
      where(logical_and(logical_and(valid, logical_not(by_series)), isfinite(x)), x, safe_a + 2.0);
  const auto scale = [&](const Tensor& v) { return exp(safe_a * log(v) - v - lgamma(safe_a)); };
  const Tensor p_series = series(safe_a, xs) * scale(xs);
  const Tensor q_fraction = fraction(safe_a, xc) * scale(xc);
  Tensor p = where(by_series, p_series, 1.0 - q_fraction);
  Tensor q = where(by_series, 1.0 - p_series, q_fraction);
  const Tensor zero = x == 0.0, infinite = x == std::numeric_limits<double>::infinity();
  p = where(zero, zeros_like(p), where(infinite, ones_like(p), p));
  q = where(zero, ones_like(q), where(infinite, zeros_like(q), q));
  const Tensor nan = full_like(p, std::numeric_limits<double>::quiet_NaN());
  return {where(valid, p, nan), where(valid, q, nan)};
}

// The continued fraction of I_z(p, q) by Lentz's method, two steps per iteration.
// Carry: m, p, q, z, c, d, h, |step - 1|.
Tensor beta_fraction(const Tensor& p, const Tensor& q, const Tensor& z) {
  const auto guard = [](const Tensor& v) { return where(abs(v) < kTiny, full_like(v, kTiny), v); };
  const Tensor d = reciprocal(guard(1.0 - (p + q) * z / (p + 1.0)));
  const Carry out = loop(
      {scalar(0), p, q, z, ones_like(z), d, d, ones_like(z)},
      [](const Carry& c) { return logical_and(c[0] < kMaxSteps, any(c[7] >= kEps)); },
      [guard](const Carry& c) {
        const Tensor m = c[0] + 1.0, &a = c[1], &b = c[2], &x = c[3];
        const Tensor even = m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
        Tensor dn = reciprocal(guard(1.0 + even * c[5]));
        Tensor cn = guard(1.0 + even / c[4]);
        const Tensor h = c[6] * dn * cn;
        const Tensor odd = -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
        dn = reciprocal(guard(1.0 + odd * dn));
        cn = guard(1.0 + odd / cn);
        const Tensor step = dn * cn;
        return Carry{m, a, b, x, cn, dn, h * step, abs(step - 1.0)};
      });
  return out[6];
}

// I_x(a, b) of f64 operands of one shape.
Tensor incomplete_beta(const Tensor& a, const Tensor& b, const Tensor& x) {
  const Tensor bad = logical_or(logical_or(logical_or(isnan(a), isnan(b)), logical_or(isnan(x), a <= 0.0)),
                                logical_or(b <= 0.0, logical_or(x<0.0, x> 1.0)));
  const Tensor inside = logical_and(logical_not(bad), logical_and(x > 0.0, x < 1.0));
  const Tensor sa = where(inside, a, ones_like(a)), sb = where(inside, b, ones_like(b));
  const Tensor sx = where(inside, x, full_like(x, 0.5));
  const Tensor direct = sx < (sa + 1.0) / (sa + sb + 2.0);
  const Tensor h = beta_fraction(where(direct, sa, sb), where(direct, sb, sa), where(direct, sx, 1.0 - sx));
  const Tensor scale = exp(lgamma(sa + sb) - lgamma(sa) - lgamma(sb) + sa * log(sx) + sb * log1p(-sx));
  const Tensor r = where(direct, scale * h / sa, 1.0 - scale * h / sb);
  const Tensor nan = full_like(r, std::numeric_limits<double>::quiet_NaN());
  return where(bad, nan, where(inside, r, x));
}

std::vector<Tensor> lowered(std::span<const Tensor> in, bool upper) {
  const DType t = promote_types(in[0].dtype(), in[1].dtype());
  const DType out = is_floating(t) ? t : DType::f32;
  const Shape shape = broadcast_shapes("igamma", in[0].shape(), in[1].shape());
  const Tensor a = broadcast_to(in[0].astype(DType::f64), shape);
  const Tensor x = broadcast_to(in[1].astype(DType::f64), shape);
  const auto [p, q] = incomplete_gamma(a, x);
  return {(upper ? q : p).astype(out)};
}

}  // namespace

std::vector<Tensor> lower_igamma(std::span<const Tensor> in, const Attrs&) { return lowered(in, false); }
std::vector<Tensor> lower_igammac(std::span<const Tensor> in, const Attrs&) { return lowered(in, true); }

std::vector<Tensor> lower_betainc(std::span<const Tensor> in, const Attrs&) {
  DType t = promote_types(promote_types(in[0].dtype(), in[1].dtype()), in[2].dtype());
  if (!is_floating(t)) t = DType::f32;
  const Shape shape =
      broadcast_shapes("betainc", broadcast_shapes("betainc", in[0].shape(), in[1].shape()), in[2].shape());
  std::vector<Tensor> v;
  for (const Tensor& x : in) v.push_back(broadcast_to(x.astype(DType::f64), shape));
  return {incomplete_beta(v[0], v[1], v[2]).astype(t)};
}

}  // namespace tlaloc::detail
