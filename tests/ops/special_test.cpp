// Special functions at their edges (poles, domain ends, infinities), the dtypes of
// their results, derivatives refused by name in the operands that have none, and
// top_k's order and refusals. Values on the domains are checked against torch in the
// oracle lane (tests/oracle/cases_special.cpp) and against known constants in
// tests/stablehlo/chlo.mlir.
#include <gtest/gtest.h>

#include <tlaloc/tlaloc.hpp>

#include "support/expect_error.hpp"

#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

namespace tl = tlaloc;

namespace {

using tl::DType;
using tl::Tensor;

const double inf = std::numeric_limits<double>::infinity();

std::vector<double> values(const Tensor& t) { return t.astype(DType::f64).to_vector<double>(); }
Tensor f64(std::vector<double> v) {
  const auto n = std::int64_t(v.size());
  return tl::tensor(std::move(v), {n});
}

TEST(Special, PolesAndDomainEnds) {
  // lgamma is +inf at the poles; digamma NaN there, as XLA gives.
  EXPECT_EQ(values(tl::lgamma(f64({0, -1, -2}))), (std::vector<double>{inf, inf, inf}));
  for (double v : values(tl::digamma(f64({0, -1, -3})))) EXPECT_TRUE(std::isnan(v));
  // zeta: inf at x = 1, NaN below; inf where q is a pole.
  const std::vector<double> z = values(tl::zeta(f64({1, 0.5, 2}), f64({1, 1, -2})));
  EXPECT_EQ(z[0], inf);
  EXPECT_TRUE(std::isnan(z[1]));
  EXPECT_EQ(z[2], inf);
  // polygamma of an order that is not a non-negative integer is NaN.
  for (double v : values(tl::polygamma(f64({1.5, -1}), f64({2, 2})))) EXPECT_TRUE(std::isnan(v));
  // P(a, 0) = 0, Q(a, 0) = 1, P(a, inf) = 1; a <= 0 or x < 0 give NaN.
  EXPECT_EQ(values(tl::igamma(f64({2, 2}), f64({0, inf}))), (std::vector<double>{0, 1}));
  EXPECT_EQ(values(tl::igammac(f64({2, 2}), f64({0, inf}))), (std::vector<double>{1, 0}));
  for (double v : values(tl::igamma(f64({0, 2}), f64({1, -1})))) EXPECT_TRUE(std::isnan(v));
  // erf_inv: +-inf at +-1, NaN outside; erfc's ends.
  const std::vector<double> e = values(tl::erf_inv(f64({1, -1, 1.5})));
  EXPECT_EQ(e[0], inf);
  EXPECT_EQ(e[1], -inf);
  EXPECT_TRUE(std::isnan(e[2]));
  EXPECT_EQ(values(tl::erfc(f64({-inf, inf}))), (std::vector<double>{2, 0}));
  // The scaled Bessel functions vanish at infinity; i1e is odd.
  EXPECT_EQ(values(tl::bessel_i0e(f64({inf, -inf, 0}))), (std::vector<double>{0, 0, 1}));
  const std::vector<double> i1 = values(tl::bessel_i1e(f64({-2, 2})));
  EXPECT_EQ(i1[0], -i1[1]);
}

// Identities that tie the functions to each other: P + Q = 1, Q(1/2, x) =
// erfc(sqrt x), P(1, x) = 1 - e^-x, polygamma(0, x) = digamma(x),
// zeta(n + 1, x) = (-1)^(n+1) polygamma(n, x) / n!.
TEST(Special, IdentitiesBetweenTheFunctions) {
  const Tensor a = f64({0.3, 1, 2.5, 7, 30}), x = f64({0.1, 1.5, 3, 9, 25});
  const std::vector<double> sum = values(tl::igamma(a, x) + tl::igammac(a, x));
  for (double v : sum) EXPECT_NEAR(v, 1, 1e-15);
  const std::vector<double> q = values(tl::igammac(tl::full_like(x, 0.5), x)),
                            c = values(tl::erfc(tl::sqrt(x)));
  for (std::size_t i = 0; i < q.size(); ++i) EXPECT_NEAR(q[i], c[i], 1e-15 + 1e-13 * c[i]) << i;
  const std::vector<double> p = values(tl::igamma(tl::ones_like(x), x)), xs = values(x);
  for (std::size_t i = 0; i < p.size(); ++i) EXPECT_NEAR(p[i], -std::expm1(-xs[i]), 1e-15) << i;
  EXPECT_EQ(values(tl::polygamma(tl::zeros_like(x), x)), values(tl::digamma(x)));
  const std::vector<double> pg = values(tl::polygamma(tl::full_like(x, 3), x));
  const std::vector<double> zt = values(tl::zeta(tl::full_like(x, 4), x));
  for (std::size_t i = 0; i < pg.size(); ++i) EXPECT_NEAR(pg[i], 6 * zt[i], 1e-13 * std::abs(pg[i])) << i;
}

// I_x(1, 1) = x, I_x(a, 1) = x^a, I_x(1, b) = 1 - (1-x)^b, I_1/2(a, a) = 1/2,
// I_x(1/2, 1/2) = 2/pi asin(sqrt x), and I_x(a, b) = 1 - I_1-x(b, a).
TEST(Special, IncompleteBetaIdentities) {
  const std::vector<double> xs = {0.01, 0.2, 0.5, 0.7, 0.99};
  const Tensor x = f64(xs), ones = tl::ones_like(x);
  const std::vector<double> i11 = values(tl::betainc(ones, ones, x));
  const std::vector<double> ia1 = values(tl::betainc(tl::full_like(x, 2.5), ones, x));
  const std::vector<double> i1b = values(tl::betainc(ones, tl::full_like(x, 3.5), x));
  const std::vector<double> half =
      values(tl::betainc(tl::full_like(x, 7.3), tl::full_like(x, 7.3), tl::full_like(x, 0.5)));
  const std::vector<double> arcsine = values(tl::betainc(tl::full_like(x, 0.5), tl::full_like(x, 0.5), x));
  const Tensor a = f64({0.3, 2, 5, 30, 50}), b = f64({4, 0.7, 5, 20, 30});
  const std::vector<double> direct = values(tl::betainc(a, b, x)),
                            mirrored = values(tl::betainc(b, a, 1.0 - x));
  for (std::size_t i = 0; i < xs.size(); ++i) {
    EXPECT_NEAR(i11[i], xs[i], 1e-15) << i;
    EXPECT_NEAR(ia1[i], std::pow(xs[i], 2.5), 1e-14) << i;
    EXPECT_NEAR(i1b[i], 1 - std::pow(1 - xs[i], 3.5), 1e-14) << i;
    EXPECT_NEAR(half[i], 0.5, 1e-14) << i;
    EXPECT_NEAR(arcsine[i], 2 / std::numbers::pi * std::asin(std::sqrt(xs[i])), 1e-14) << i;
    EXPECT_NEAR(direct[i], 1 - mirrored[i], 1e-14) << i;
  }
  // The ends of [0, 1], and NaN outside the domain.
  EXPECT_EQ(values(tl::betainc(f64({2, 2}), f64({3, 3}), f64({0, 1}))), (std::vector<double>{0, 1}));
  for (double v : values(tl::betainc(f64({0, 2, 2}), f64({1, 1, 1}), f64({0.5, -0.1, 1.1}))))
    EXPECT_TRUE(std::isnan(v));
}

TEST(Special, ResultDtypes) {
  const Tensor i = tl::tensor(std::vector<std::int32_t>{1, 2, 3}, {3});
  EXPECT_EQ(tl::lgamma(i).dtype(), DType::f32);
  EXPECT_EQ(tl::zeta(i, tl::tensor({1.0, 2.0, 3.0}, {3})).dtype(), DType::f64);
  const Tensor h = tl::ones({2}, DType::bf16);
  EXPECT_EQ(tl::bessel_i1e(h).dtype(), DType::bf16);
  EXPECT_EQ(tl::nextafter(h, h * 2.0).dtype(), DType::bf16);
  // bf16 1.0 = 0x3F80, the next is 0x3F81 = 1.0078125.
  EXPECT_EQ(values(tl::nextafter(h, h * 2.0))[0], 1.0078125);
  tltest::expect_error<tl::DTypeError>([] { (void)tl::lgamma(tl::ones({2}, DType::c64)); }, "lgamma",
                                       "complex");
  tltest::expect_error<tl::DTypeError>(
      [] { (void)tl::nextafter(tl::ones({2}, DType::f8e5m2), tl::zeros({2}, DType::f8e5m2)); }, "nextafter",
      "f8e5m2");
}

TEST(Special, DerivativesInOrdersAndShapesAreRefusedByName) {
  const Tensor x = f64({1.5, 2.5});
  tltest::expect_error<tl::NotDifferentiableError>(
      [&] {
        (void)tl::grad([&](const Tensor& n) { return tl::sum(tl::polygamma(n, x)); })(f64({1, 2}));
      },
      "polygamma", "operand n");
  tltest::expect_error<tl::NotDifferentiableError>(
      [&] {
        (void)tl::grad([&](const Tensor& s) { return tl::sum(tl::zeta(s, x)); })(f64({2, 3}));
      },
      "zeta", "operand x");
  tltest::expect_error<tl::NotDifferentiableError>(
      [&] {
        (void)tl::grad([&](const Tensor& a) { return tl::sum(tl::igamma(a, x)); })(f64({2, 3}));
      },
      "igamma", "operand a");
  tltest::expect_error_with<tl::NotDifferentiableError>(
      [&] {
        (void)tl::grad([&](const Tensor& v) { return tl::sum(tl::nextafter(v, x)); })(f64({2, 3}));
      },
      {"nextafter"});
  // The other operand differentiates.
  const Tensor g =
      tl::grad([](const Tensor& q) { return tl::sum(tl::zeta(tl::full_like(q, 2), q)); })(f64({1}));
  EXPECT_NEAR(values(g)[0], -2 * 1.2020569031595942, 1e-14);  // -2 zeta(3, 1)
}

TEST(Special, TopKOrderAndGradient) {
  const Tensor x = tl::tensor({1.0, 5.0, 3.0, 5.0, -2.0, 4.0}, {2, 3});
  const std::vector<Tensor> r = tl::top_k(x, 2);
  EXPECT_EQ(values(r[0]), (std::vector<double>{5, 3, 5, 4}));
  EXPECT_EQ(r[1].dtype(), DType::i32);
  EXPECT_EQ(values(r[1]), (std::vector<double>{1, 2, 0, 2}));
  // Each value's cotangent goes back to where it was taken from.
  const Tensor w = tl::tensor({10.0, 20.0, 30.0, 40.0}, {2, 2});
  const Tensor g = tl::grad([&](const Tensor& v) { return tl::sum(tl::top_k(v, 2)[0] * w); })(x);
  EXPECT_EQ(values(g), (std::vector<double>{0, 10, 20, 30, 0, 40}));
  tltest::expect_error<tl::ShapeError>([&] { (void)tl::top_k(x, 4); }, "top_k", "k = 4", "[2, 3]");
  tltest::expect_error<tl::ShapeError>([] { (void)tl::top_k(tl::ones({}, DType::f32), 1); }, "top_k", "rank");
}

}  // namespace
