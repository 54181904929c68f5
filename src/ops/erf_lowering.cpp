// erf and the erf form of gelu in StableHLO ops, which have no erf: Chebyshev
// series evaluated in f64 and rounded once to the result type. The f64 series
// are within 3e-15 of erf, so an f32 result is the correctly rounded erf but
// for values within that distance of a rounding tie (at most 1 ulp off);
// f64 results are within about 3e-15 absolutely.
//
// The coefficients interpolate erf at 64 Chebyshev nodes of each interval
// (truncated where the terms fall below 1e-16):
//   |x| <= 1   erf(x) = x g(x^2), g(z) = erf(sqrt z) / sqrt z, series in 2z - 1
//   [1, 2], [2, 3], [3, 4], [4, 6]   erf itself, series in the interval mapped to [-1, 1]
//   |x| > 6    1 (erf(6) is 1 - 2e-17)
#include <cmath>
#include <numbers>
#include <span>

#include "ops/elementwise_defs.hpp"
#include "ops/elementwise_lowering.hpp"

namespace tlaloc::detail {
namespace {

constexpr double kSmall[] = {
    0.9754769393826541,     -0.14226120510371357,    0.010035582187599743,   -0.0005768764699765963,
    2.7419931252069263e-05, -1.1043175507721714e-06, 3.8488755391141716e-08, -1.180858230642734e-09,
    3.233411455250135e-11,  -7.994993556081909e-13,  1.7819079545233762e-14, -6.938893903907228e-17,
};
constexpr double kFrom1[] = {
    0.942852255736389,      0.07216411186037625,    -0.023555662412541062,  0.004179719271557341,
    -0.0002938447133488259, -3.263863513894294e-05, 8.853742394350494e-06,  -4.6810084711190747e-07,
    -7.33010935491385e-08,  1.1752406790799252e-08, -7.524786002632844e-11, -1.142825972744177e-10,
    7.874697421916821e-12,  5.464274865918384e-13,  -9.413650414735741e-14, 6.036837696399289e-16,
};
constexpr double kFrom2[] = {
    0.9986968793331216,      0.0019935206572260014,   -0.000970184077040262,   0.0003219110647037504,
    -7.532105760276256e-05,  1.2343188523254028e-05,  -1.2964140790848455e-06, 4.9199521973825044e-08,
    9.347897410999506e-09,   -1.8722152474170972e-09, 1.303275230790657e-10,   4.143352327901084e-12,
    -1.6500169286448596e-12, 1.2182962971785116e-13,  2.480654570646834e-15,   -1.0304257447302234e-15,
};
constexpr double kFrom3[] = {
    0.9999948902231348,      8.532197326896473e-06,  -5.108210075342734e-06, 2.2827106291277433e-06,
    -7.871206544329823e-07,  2.143478697660961e-07,  -4.671114632939788e-08, 8.165367416934632e-09,
    -1.1302927899192738e-09, 1.185916850832136e-10,  -8.156985503715575e-12, 9.466386008405436e-14,
    6.214473380339314e-14,   -9.457712391025552e-15,
};
constexpr double kFrom4[] = {
    0.999999997845446,       4.049657734150891e-09,  -3.3628571316501876e-09, 2.470673235444032e-09,
    -1.6090441860849847e-09, 9.309944204449749e-10,  -4.796891737990361e-10,  2.20556732599686e-10,
    -9.064337821995672e-11,  3.332651862808511e-11,  -1.0960597013331963e-11, 3.2193657462098457e-12,
    -8.410112883883158e-13,  1.9374432613794568e-13, -3.917699498146021e-14,  6.827871601444713e-15,
};

struct Piece {
  double lo, hi;
  std::span<const double> coef;
};
constexpr Piece kPieces[] = {{1, 2, kFrom1}, {2, 3, kFrom2}, {3, 4, kFrom3}, {4, 6, kFrom4}};

Tensor lit(double v) { return scalar_tensor(Scalar(v), DType::f64); }
Tensor add(const Tensor& a, const Tensor& b) { return call_op("add", {a, b}); }
Tensor sub(const Tensor& a, const Tensor& b) { return call_op("sub", {a, b}); }
Tensor mul(const Tensor& a, const Tensor& b) { return call_op("mul", {a, b}); }
Tensor le(const Tensor& a, double v) {
  return call_op("compare", {a, lit(v)}, {{"comparison_direction", std::string("LE")}});
}
Tensor select(const Tensor& p, const Tensor& a, const Tensor& b) { return call_op("select", {p, a, b}); }

// Clenshaw's recurrence for sum c_k T_k(t).
Tensor chebyshev(std::span<const double> c, const Tensor& t) {
  const Tensor two_t = mul(lit(2), t);
  Tensor b1 = lit(0), b2 = lit(0);
  for (std::size_t k = c.size() - 1; k >= 1; --k) {
    Tensor b = sub(add(lit(c[k]), mul(two_t, b1)), b2);
    b2 = b1;
    b1 = b;
  }
  return sub(add(lit(c[0]), mul(t, b1)), b2);
}

// erf of an f64 tensor. NaN fails every comparison and reaches the last
// series, which keeps it NaN; ±0 keeps its sign through x g(x^2).
Tensor erf64(const Tensor& x) {
  const Tensor a = call_op("abs", {x});
  const Tensor z = mul(x, x);
  const Tensor small = mul(x, chebyshev(kSmall, sub(mul(lit(2), z), lit(1))));
  Tensor big;
  for (std::size_t i = std::size(kPieces); i-- > 0;) {
    const Piece& p = kPieces[i];
    const Tensor t = sub(mul(a, lit(2 / (p.hi - p.lo))), lit((p.hi + p.lo) / (p.hi - p.lo)));
    const Tensor v = chebyshev(p.coef, t);
    big = big.defined() ? select(le(a, p.hi), v, big) : v;
  }
  big = select(le(a, 6), big, lit(1));
  const Tensor nan_or_big =
      select(call_op("compare", {a, a}, {{"comparison_direction", std::string("NE")}}), a, big);
  return select(le(a, 1), small, mul(call_op("sign", {x}), nan_or_big));
}

Tensor to_f64(const Tensor& x) {
  return x.dtype() == DType::f64 ? x : call_op("convert", {x}, {{"dtype", DType::f64}});
}
// Float functions take integers as f32, as the library's kernels do.
DType result_type(DType t) { return is_floating(t) ? t : DType::f32; }
Tensor from_f64(const Tensor& y, DType t) {
  return t == DType::f64 ? y : call_op("convert", {y}, {{"dtype", t}});
}

}  // namespace

std::vector<Tensor> lower_erf(std::span<const Tensor> in, const Attrs&) {
  return {from_f64(erf64(to_f64(in[0])), result_type(in[0].dtype()))};
}

// gelu(x) = x/2 (1 + erf(x / sqrt 2)).
std::vector<Tensor> lower_gelu(std::span<const Tensor> in, const Attrs&) {
  const Tensor x = to_f64(in[0]);
  const Tensor e = erf64(mul(x, lit(1 / std::numbers::sqrt2)));
  return {from_f64(mul(mul(lit(0.5), x), add(lit(1), e)), result_type(in[0].dtype()))};
}

}  // namespace tlaloc::detail
