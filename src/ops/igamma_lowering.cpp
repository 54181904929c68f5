// igamma and igammac in StableHLO ops, as the kernel computes them
// (core/special_math.cpp) but on whole tensors: the power series where x < a + 1
// and the continued fraction elsewhere, each a while loop that runs until every
// element of its branch has converged (at most 2000 steps, the kernel's bound).
// Elements of the other branch are given inputs that converge at once, and lowering
// picks each element's branch at the end. In f64, rounded once to the result type.
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
  if (b == nullptr) fail("igamma", "is lowered only while tracing");
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

}  // namespace tlaloc::detail
