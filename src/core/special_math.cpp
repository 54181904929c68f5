// The special functions by the textbook methods: reflection and the asymptotic
// series for digamma, Euler-Maclaurin summation for zeta, the power series and
// Legendre's continued fraction (Lentz's method) for the incomplete gamma
// functions, the power series and Hankel's asymptotic expansion for the Bessel
// functions. Each is accurate to a few units of f64's last place in its domain.
#include "core/special_math.hpp"

#include <cmath>
#include <cstddef>
#include <iterator>
#include <limits>
#include <numbers>

namespace tlaloc::detail::special {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps = std::numeric_limits<double>::epsilon();

bool is_integer(double x) { return std::isfinite(x) && x == std::floor(x); }

// B_2j / (2j)! for j = 1..12: the Euler-Maclaurin corrections of zeta's tail.
constexpr double kBernoulliOverFactorial[] = {
    0.08333333333333333,   -0.001388888888888889,  3.306878306878307e-05,  -8.267195767195768e-07,
    2.08767569878681e-08,  -5.284190138687493e-10, 1.3382536530684679e-11, -3.3896802963225827e-13,
    8.586062056277845e-15, -2.174868698558062e-16, 5.5090028283602295e-18, -1.3954464685812522e-19,
};

// Q(a, x) by its continued fraction, for x >= a + 1 (where it converges fast).
double upper_fraction(double a, double x) {
  constexpr double tiny = 1e-300;
  double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (int i = 1; i < 2000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double step = d * c;
    h *= step;
    if (std::fabs(step - 1) < kEps) break;
  }
  return std::exp(-x + a * std::log(x) - lgamma(a)) * h;
}

// P(a, x) by its power series, for x < a + 1.
double lower_series(double a, double x) {
  double term = 1 / a, sum = term;
  for (int n = 1; n < 2000; ++n) {
    term *= x / (a + n);
    sum += term;
    if (std::fabs(term) < std::fabs(sum) * kEps) break;
  }
  return sum * std::exp(-x + a * std::log(x) - lgamma(a));
}

// The continued fraction of I_x(a, b) x^-a (1-x)^-b a B(a, b) by Lentz's method,
// for x < (a + 1) / (a + b + 2), where it converges fast.
double beta_fraction(double a, double b, double x) {
  constexpr double tiny = 1e-300;
  const auto guard = [](double v) { return std::fabs(v) < tiny ? tiny : v; };
  double c = 1, d = 1 / guard(1 - (a + b) * x / (a + 1)), h = d;
  for (int m = 1; m < 2000; ++m) {
    // The even step d_2m, then the odd step d_2m+1.
    const double even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
    d = 1 / guard(1 + even * d);
    c = guard(1 + even / c);
    h *= d * c;
    const double odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 / guard(1 + odd * d);
    c = guard(1 + odd / c);
    const double step = d * c;
    h *= step;
    if (std::fabs(step - 1) < kEps) break;
  }
  return h;
}

// exp(-|x|) I_nu(|x|) for nu = 0 or 1: the power series up to |x| = 20, where all
// terms are positive, and Hankel's expansion beyond, whose terms shrink to below
// exp(-2|x|) before they grow.
double scaled_bessel(int nu, double x) {
  const double ax = std::fabs(x);
  if (ax <= 20) {
    const double q = ax * ax / 4;
    double term = nu == 0 ? 1 : ax / 2, sum = term;
    for (int k = 1; k < 500; ++k) {
      term *= q / (double(k) * double(k + nu));
      sum += term;
      if (term < sum * kEps) break;
    }
    return sum * std::exp(-ax);
  }
  const double mu = 4.0 * nu * nu;
  double term = 1, sum = 1;
  for (int k = 1; k < 100; ++k) {
    const double next = term * ((2.0 * k - 1) * (2.0 * k - 1) - mu) / (8.0 * k * ax);
    if (std::fabs(next) >= std::fabs(term)) break;
    term = next;
    sum += term;
    if (std::fabs(term) < std::fabs(sum) * kEps) break;
  }
  return sum / std::sqrt(2 * std::numbers::pi * ax);
}

}  // namespace

double lgamma(double x) {
  int sign = 0;
  return ::lgamma_r(x, &sign);  // lgamma_r: glibc's lgamma writes a global sign
}

double digamma(double x) {
  if (std::isnan(x) || x == kInf) return x;
  if (x == -kInf || (x <= 0 && is_integer(x))) return kNaN;
  double result = 0;
  if (x < 0) {  // psi(x) = psi(1 - x) - pi cot(pi x); cot has period 1
    result = -std::numbers::pi / std::tan(std::numbers::pi * (x - std::floor(x)));
    x = 1 - x;
  }
  for (; x < 10; x += 1) result -= 1 / x;
  // psi(x) ~ log x - 1/(2x) - sum_k B_2k / (2k x^2k)
  const double z = 1 / (x * x);
  const double tail =
      z *
      (1.0 / 12 -
       z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z / 12))))));
  return result + std::log(x) - 0.5 / x - tail;
}

double zeta(double s, double q) {
  if (std::isnan(s) || std::isnan(q)) return kNaN;
  if (s == 1) return kInf;
  if (s < 1) return kNaN;
  if (q <= 0) {
    if (is_integer(q)) return kInf;
    if (!is_integer(s)) return kNaN;  // (q + k)^-s is not real
  }
  // Terms summed directly until q + k reaches max(12, s), where the tail's
  // corrections shrink by about (s + 2j)^2 / (2 pi a)^2 each; terms too small to
  // count end the sum early.
  const double until = std::fmax(12, s);
  double sum = 0, a = q;
  for (int k = 0; a < until && k < 100000; ++k, a += 1) {
    const double term = std::pow(a, -s);
    sum += term;
    if (a > 1 && term < sum * kEps * kEps) return sum;
  }
  // sum_{k>=0} (a + k)^-s = a^(1-s)/(s-1) + a^-s/2 + sum_j B_2j/(2j)! s(s+1)..(s+2j-2) a^(-s-2j+1)
  const double power = std::pow(a, -s);
  double tail = a * power / (s - 1) + power / 2;
  double rising = s, factor = power / a;  // s(s+1)...(s+2j-2) and a^(-s-2j+1)
  for (std::size_t j = 0; j < std::size(kBernoulliOverFactorial); ++j) {
    const double term = kBernoulliOverFactorial[j] * rising * factor;
    tail += term;
    if (std::fabs(term) < std::fabs(tail) * kEps) break;
    rising *= (s + double(2 * j + 1)) * (s + double(2 * j + 2));
    factor /= a * a;
  }
  return sum + tail;
}

double polygamma(double n, double x) {
  if (std::isnan(n) || std::isnan(x)) return kNaN;
  if (n < 0 || !is_integer(n)) return kNaN;
  if (n == 0) return digamma(x);
  // psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x)
  const double sign = std::fmod(n, 2) == 0 ? -1 : 1;
  return sign * std::exp(lgamma(n + 1)) * zeta(n + 1, x);
}

double igamma(double a, double x) {
  if (std::isnan(a) || std::isnan(x) || a <= 0 || x < 0) return kNaN;
  if (x == 0) return 0;
  if (x == kInf) return 1;
  if (x < a + 1) return lower_series(a, x);
  return 1 - upper_fraction(a, x);
}

double igammac(double a, double x) {
  if (std::isnan(a) || std::isnan(x) || a <= 0 || x < 0) return kNaN;
  if (x == 0) return 1;
  if (x == kInf) return 0;
  if (x < a + 1) return 1 - lower_series(a, x);
  return upper_fraction(a, x);
}

double betainc(double a, double b, double x) {
  if (std::isnan(a) || std::isnan(b) || std::isnan(x) || a <= 0 || b <= 0 || x < 0 || x > 1) return kNaN;
  if (x == 0 || x == 1) return x;
  // x^a (1-x)^b / B(a, b), from the side where the fraction converges.
  const double scale = std::exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return scale * beta_fraction(a, b, x) / a;
  return 1 - scale * beta_fraction(b, a, 1 - x) / b;
}

double bessel_i0e(double x) { return std::isnan(x) ? x : std::isinf(x) ? 0 : scaled_bessel(0, x); }

double bessel_i1e(double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return 0;
  const double v = scaled_bessel(1, x);
  return x < 0 ? -v : v;
}

}  // namespace tlaloc::detail::special
