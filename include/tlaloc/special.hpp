// Special functions: elementwise with floating results (integer operands are taken
// as f32), broadcasting like the binary ops; the functions of JAX's lax and
// torch.special. Values at poles and outside domains follow XLA's, and each
// derivative JAX and torch define is a rule here; docs/SPECIAL_FUNCTIONS.md.
#pragma once

#include <cstdint>
#include <vector>

#include "tlaloc/export.hpp"
#include "tlaloc/tensor.hpp"

TLALOC_PUBLIC_BEGIN
namespace tlaloc {

Tensor lgamma(const Tensor& x);   // log|Gamma(x)|
Tensor digamma(const Tensor& x);  // d/dx lgamma(x)
// The n-th derivative of digamma; n holds non-negative integer values. No
// derivative in n.
Tensor polygamma(const Tensor& n, const Tensor& x);
// The Hurwitz zeta function sum_k (q + k)^-x; no derivative in x.
Tensor zeta(const Tensor& x, const Tensor& q);
// The regularized incomplete gamma functions P(a, x) and Q(a, x) = 1 - P(a, x);
// no derivative in a.
Tensor igamma(const Tensor& a, const Tensor& x);
Tensor igammac(const Tensor& a, const Tensor& x);
// The regularized incomplete beta function I_x(a, b); no derivative in a and b.
Tensor betainc(const Tensor& a, const Tensor& b, const Tensor& x);
Tensor erfc(const Tensor& x);     // 1 - erf(x), without its cancellation
Tensor erf_inv(const Tensor& x);  // the inverse of erf on (-1, 1)
// exp(-|x|) I0(x) and exp(-|x|) I1(x), the scaled modified Bessel functions.
Tensor bessel_i0e(const Tensor& x);
Tensor bessel_i1e(const Tensor& x);
// The next representable value after x toward y; no derivative.
Tensor nextafter(const Tensor& x, const Tensor& y);
// The k largest (smallest, with largest false) values along the last axis, in
// order, and their indices (i32): {values, indices}. Equal values keep their
// order; NaN is above every number.
std::vector<Tensor> top_k(const Tensor& x, std::int64_t k, bool largest = true);

}  // namespace tlaloc
TLALOC_PUBLIC_END
