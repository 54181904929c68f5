// Special functions of one real value, in f64: the kernels of the special-function
// ops (src/ops/special.cpp). Narrower types are computed here and rounded once.
// Edge values follow XLA's (what JAX programs see): docs/SPECIAL_FUNCTIONS.md.
#pragma once

namespace tlaloc::detail::special {

// log|Gamma(x)|; +inf at the poles (0, -1, -2, ...).
double lgamma(double x);
// psi(x) = d/dx lgamma(x); NaN at the poles.
double digamma(double x);
// The Hurwitz zeta function sum_k (q + k)^-s: inf at s = 1, NaN for s < 1, inf where
// q is a pole (a non-positive integer), NaN for q < 0 with s not an integer.
double zeta(double s, double q);
// The n-th derivative of digamma, for n a non-negative integer value (else NaN).
double polygamma(double n, double x);
// The regularized incomplete gamma functions P(a, x) and Q(a, x) = 1 - P(a, x):
// NaN for a <= 0 or x < 0.
double igamma(double a, double x);
double igammac(double a, double x);
// The regularized incomplete beta function I_x(a, b): NaN for a <= 0, b <= 0 or x
// outside [0, 1].
double betainc(double a, double b, double x);
// exp(-|x|) I0(x) and exp(-|x|) I1(x), the exponentially scaled modified Bessel
// functions of the first kind.
double bessel_i0e(double x);
double bessel_i1e(double x);

}  // namespace tlaloc::detail::special
