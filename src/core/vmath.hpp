// Tlaloc -- private header: branch-free scalar float math for auto-vectorization.
//
// Every float function here is written so that a plain loop such as
//
//     for (std::size_t i = 0; i < n; ++i) y[i] = vmath::exp(x[i]);
//
// is auto-vectorized by GCC >= 12 and Clang >= 14 at -O3 with -march=x86-64-v3
// (AVX2 + FMA), without -ffast-math:
//   * no data-dependent branches: every case is computed and merged with a
//     bitwise value select (detail::sel -- see there why not `?:`);
//   * no table lookups and no libm calls; exponent manipulation uses
//     std::bit_cast and integer arithmetic;
//   * fused multiply-adds go through std::fma only when the target has an FMA
//     unit (__FMA__ / AArch64), where it is a single vfmadd instruction.
//     Without FMA the header still gives correct results (exact products are
//     then obtained by Dekker splitting); it is slower but stays accurate.
//   * results do not depend on -ffp-contract: every fused operation is
//     explicit and the error-free transformations are written so that
//     contraction cannot break them.
//   * everything is force-inlined (the vectorizers only see inlined code).
//
// API (namespace tlaloc::vmath, all `float f(float) noexcept`):
//   exp expm1 log log1p tanh sigmoid erf sin cos softplus gelu_tanh gelu_erf
//   silu, plus `double f(double)` overloads of the same names that forward to
//   <cmath> (or to a stable double formula for the functions <cmath> lacks),
//   so templates can call vmath::f(T) for T = float and T = double.
//
// Accuracy: max error vs the correctly rounded result, measured on every 7th
// float bit pattern (all 2^32 / 7 inputs: zeros, subnormals, normals, inf)
// against double-precision <cmath> references, GCC 12 -O3 -march=x86-64-v3:
//     exp 1 ulp   expm1 1   log 1   log1p 1   tanh 1   sigmoid 2   sin 1
//     cos 1   erf 1   softplus 1   gelu_tanh 1   gelu_erf 1   silu 1
// (the contract is <= 2 ulp for exp..cos and <= 4 ulp for erf and the
// activations; tests/core/vmath_test.cpp checks it).  Without FMA the same
// holds except gelu_erf (2 ulp).
//
// Special values: NaN propagates everywhere.  exp(-inf) = +0, exp(+inf) =
// +inf, overflow gives +inf, log(0) = -inf, log(x < 0) = NaN, log1p(-1) =
// -inf, tanh(+-inf) = +-1, erf(+-inf) = +-1, sigmoid(+inf) = 1; sin, tanh,
// erf, expm1 and log1p keep the sign of zero.  Subnormal inputs are handled and
// subnormal results are produced with a single rounding (gradual underflow,
// no flush to zero): exp(-100) = sigmoid(-100) = 3.7e-44.  (If the caller
// runs with FTZ/DAZ enabled those results flush to zero as usual.)  The
// default round-to-nearest mode is assumed.
//
// sin / cos: the argument reduction is exact for every finite float (a
// table-free Payne-Hanek reduction in double precision with 2/pi carried to
// ~215 bits as four doubles), so the 1 ulp bound holds on the whole range up
// to |x| = FLT_MAX; sin(+-inf) = cos(+-inf) = NaN.  The price is speed: sin
// and cos cost about 3x a reduction that is only valid for |x| < 2^51.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

// Everything is force-inlined: the vectorizers only see through inlined code,
// and the larger functions (sin, cos, gelu_erf) exceed the default inlining
// thresholds.
#if defined(__GNUC__) || defined(__clang__)
#define TLALOC_VMATH_INLINE inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define TLALOC_VMATH_INLINE __forceinline
#else
#define TLALOC_VMATH_INLINE inline
#endif

namespace tlaloc::vmath {

namespace detail {

#if defined(__FMA__) || defined(__aarch64__) || defined(__ARM_FEATURE_FMA) || \
    (defined(_MSC_VER) && defined(__AVX2__))
inline constexpr bool kHasFma = true;
#else
inline constexpr bool kHasFma = false;
#endif

TLALOC_VMATH_INLINE std::uint32_t bits(float x) noexcept { return std::bit_cast<std::uint32_t>(x); }
TLALOC_VMATH_INLINE float from_bits(std::uint32_t u) noexcept { return std::bit_cast<float>(u); }
TLALOC_VMATH_INLINE std::uint64_t bits(double x) noexcept { return std::bit_cast<std::uint64_t>(x); }

// a * b + c, fused when the target has hardware FMA.
TLALOC_VMATH_INLINE float mad(float a, float b, float c) noexcept {
  if constexpr (kHasFma) {
    return std::fma(a, b, c);
  } else {
    return a * b + c;
  }
}
TLALOC_VMATH_INLINE double mad(double a, double b, double c) noexcept {
  if constexpr (kHasFma) {
    return std::fma(a, b, c);
  } else {
    return a * b + c;
  }
}

// Error of the product: a * b - fl(a * b), exactly (barring over/underflow).
TLALOC_VMATH_INLINE float prod_err(float a, float b, float p) noexcept {
  if constexpr (kHasFma) {
    return std::fma(a, b, -p);
  } else {
    // Dekker / Veltkamp splitting.
    constexpr float kSplit = 4097.0f;  // 2^12 + 1
    const float ca = kSplit * a, cb = kSplit * b;
    const float ah = ca - (ca - a), bh = cb - (cb - b);
    const float al = a - ah, bl = b - bh;
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl;
  }
}
TLALOC_VMATH_INLINE double prod_err(double a, double b, double p) noexcept {
  if constexpr (kHasFma) {
    return std::fma(a, b, -p);
  } else {
    constexpr double kSplit = 134217729.0;  // 2^27 + 1
    const double ca = kSplit * a, cb = kSplit * b;
    const double ah = ca - (ca - a), bh = cb - (cb - b);
    const double al = a - ah, bl = b - bh;
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl;
  }
}

// Knuth two-sum: s + err == a + b exactly.
template <class T>
TLALOC_VMATH_INLINE T two_sum_err(T a, T b, T s) noexcept {
  const T bb = s - a;
  return (a - (s - bb)) + (b - bb);
}

TLALOC_VMATH_INLINE float abs(float x) noexcept { return from_bits(bits(x) & 0x7fffffffu); }
TLALOC_VMATH_INLINE float copysign(float mag, float sgn) noexcept {
  return from_bits((bits(mag) & 0x7fffffffu) | (bits(sgn) & 0x80000000u));
}
// Branch-free select c ? a : b on bit patterns.  GCC (with the default
// -ftrapping-math) does not if-convert a `?:` whose arms are computed with
// floating-point operations -- it sinks them into the arms, which may trap --
// so every value select goes through these; they compile to a compare and a
// blend.
TLALOC_VMATH_INLINE float sel(bool c, float a, float b) noexcept {
  const std::uint32_t m = 0u - static_cast<std::uint32_t>(c);
  return from_bits((bits(a) & m) | (bits(b) & ~m));
}
TLALOC_VMATH_INLINE double sel(bool c, double a, double b) noexcept {
  const std::uint64_t m = 0ull - static_cast<std::uint64_t>(c);
  return std::bit_cast<double>((bits(a) & m) | (bits(b) & ~m));
}
// NaN-preserving clamps (a NaN compares false and passes through).
TLALOC_VMATH_INLINE float clamp_hi(float x, float hi) noexcept { return sel(x > hi, hi, x); }
TLALOC_VMATH_INLINE float clamp_lo(float x, float lo) noexcept { return sel(x < lo, lo, x); }

inline constexpr float kInf = std::numeric_limits<float>::infinity();
inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// ---------------------------------------------------------------- exp ----
// Cody-Waite split of ln 2: kLn2Hi has 16 significant bits so n * kLn2Hi is
// exact for |n| < 2^8 even without FMA.
inline constexpr float kLog2e = 0x1.715476p+0f;
inline constexpr float kLn2Hi = 0x1.62e4p-1f;
inline constexpr float kLn2Lo = 0x1.7f7d1cp-20f;
inline constexpr float kRoundMagic = 0x1.8p23f;  // adding it rounds to integer

// expm1(r) ~= r + r^2 * P(r) on |r| <= ln2/2; minimax, relative error 2^-26.2.
TLALOC_VMATH_INLINE float expm1_poly_p(float r) noexcept {
  float p = 0x1.6bebfep-10f;
  p = mad(p, r, 0x1.1227bp-7f);
  p = mad(p, r, 0x1.555674p-5f);
  p = mad(p, r, 0x1.5554bp-3f);
  return mad(p, r, 0x1.fffffep-2f);
}
TLALOC_VMATH_INLINE float expm1_poly(float r) noexcept { return mad(r * r, expm1_poly_p(r), r); }

struct ExpReduced {
  float r;         // reduced argument, |r| <= ~ln2/2
  std::int32_t n;  // exponent: x = n ln2 + r
};

// x must already be clamped to roughly [-160, 89] (NaN allowed).
TLALOC_VMATH_INLINE ExpReduced exp_reduce(float x) noexcept {
  const float t = mad(x, kLog2e, kRoundMagic);
  const float n = t - kRoundMagic;
  const auto ni = static_cast<std::int32_t>(bits(t) - bits(kRoundMagic));
  float r = mad(n, -kLn2Hi, x);
  r = mad(n, -kLn2Lo, r);
  return {r, ni};
}

// 2^n as a float for n in [-126, 127].
TLALOC_VMATH_INLINE float pow2i(std::int32_t n) noexcept {
  return from_bits((static_cast<std::uint32_t>(n) + 127u) << 23);
}

// y * 2^n for n in [-252, 254]; rounds once (also into the subnormal range).
TLALOC_VMATH_INLINE float scale2(float y, std::int32_t n) noexcept {
  const std::int32_t n1 = n >> 1;
  const std::int32_t n2 = n - n1;
  return (y * pow2i(n1)) * pow2i(n2);
}

// exp(x + lo) = (y + yl) * 2^n with y in [~0.7, ~1.42] and yl the rounding
// error of y (|yl| <= ulp(y)/2); lo is a small correction of the argument
// (|lo| <= ulp(x)), used when the argument is known in extended precision.
struct ExpParts {
  float y, yl;
  std::int32_t n;
};
TLALOC_VMATH_INLINE ExpParts exp_parts(float x, float lo) noexcept {
  x = clamp_hi(x, 88.8f);    // exp(88.8) overflows to +inf through scale2
  x = clamp_lo(x, -160.0f);  // exp(x) rounds to +0 below -103.98; products
                             // x * exp(x) (silu, gelu) need a little more
  const ExpReduced red = exp_reduce(x);
  const float q = expm1_poly(red.r + lo);
  const float y = 1.0f + q;
  const float yl = q - (y - 1.0f);  // fast two-sum, |q| < 1
  return {y, yl, red.n};
}

// ---------------------------------------------------------------- log ----
// log(1 + f) - f for f in [sqrt(1/2) - 1, sqrt(2) - 1]:
//   -f^2/2 + f^3 P(f); minimax, relative error (of log1p) 2^-27.4.
TLALOC_VMATH_INLINE float log1p_poly_tail(float f) noexcept {
  float p = -0x1.38b5f4p-4f;
  p = mad(p, f, 0x1.055b92p-3f);
  p = mad(p, f, -0x1.0d854p-3f);
  p = mad(p, f, 0x1.22da18p-3f);
  p = mad(p, f, -0x1.547244p-3f);
  p = mad(p, f, 0x1.99a008p-3f);
  p = mad(p, f, -0x1.000226p-2f);
  p = mad(p, f, 0x1.555554p-2f);
  const float f2 = f * f;
  return f2 * mad(p, f, -0.5f);
}

struct LogReduced {
  float f;  // m - 1, m in [sqrt(1/2), sqrt(2))
  float e;  // exponent, x = m * 2^e
};

// x positive normal (other values give garbage that callers select away).
TLALOC_VMATH_INLINE LogReduced log_reduce(float x) noexcept {
  // Offset so that the mantissa range becomes [sqrt(1/2), sqrt(2)).
  constexpr std::uint32_t kSqrtHalf = 0x3f3504f3u;
  const std::uint32_t ix = bits(x) + (0x3f800000u - kSqrtHalf);
  const auto e = static_cast<std::int32_t>(ix >> 23) - 127;
  const float m = from_bits((ix & 0x007fffffu) + kSqrtHalf);
  return {m - 1.0f, static_cast<float>(e)};
}

// e*ln2 + f + tail + corr with one final rounding of the dominant part.
TLALOC_VMATH_INLINE float log_combine(float e, float f, float tail, float corr) noexcept {
  const float hi = e * kLn2Hi;                  // exact
  const float s = hi + f;                       // fast two-sum: |hi| >= |f| or hi == 0
  const float err = f - (s - hi);
  const float lo = mad(e, kLn2Lo, tail + corr);
  return s + (err + lo);
}

// --------------------------------------------------------------- misc ----
// (nh + nl) / (dh + dl), nearly correctly rounded; |nl| <= ulp(nh),
// |dl| <= ulp(dh), dh >= 1.
TLALOC_VMATH_INLINE float div_ext(float nh, float nl, float dh, float dl) noexcept {
  const float inv = 1.0f / dh;
  const float q = nh * inv;
  float r;  // nh - q dh, exactly
  if constexpr (kHasFma) {
    r = std::fma(-q, dh, nh);
  } else {
    const float p = q * dh;
    r = (nh - p) - prod_err(q, dh, p);  // nh - p is exact (Sterbenz)
  }
  r = mad(-q, dl, r + nl);
  return mad(r, inv, q);
}

// Shared core of sigmoid / silu / gelu_tanh:  num * sigmoid(z) where the
// caller supplies a = -|z| as a float-float (ah + al) and neg = (z < 0).
//   z >= 0:  num / (1 + e)        z < 0:  num * e / (1 + e),   e = exp(-|z|)
// The z < 0 product is formed on the mantissa of e and scaled at the end, so
// subnormal results are rounded only once.
TLALOC_VMATH_INLINE float mul_sigmoid(float num, float ah, float al, bool neg) noexcept {
  const ExpParts ep = exp_parts(ah, al);
  const float e = scale2(ep.y, ep.n);
  const float el = scale2(ep.yl, ep.n);
  const float dh = 1.0f + e;
  const float dl = (e - (dh - 1.0f)) + el;
  const float ny = num * ep.y;
  const float nyl = prod_err(num, ep.y, ny) + num * ep.yl;
  const float nh = sel(neg, ny, num);
  const float nl = sel(neg, nyl, 0.0f);
  const float q = div_ext(nh, nl, dh, dl);
  return sel(neg, scale2(q, ep.n), q);
}

// erf(x) = x + x Q(x^2) on [0, 0.921875]; minimax, relative error 2^-31.2.
TLALOC_VMATH_INLINE float erf_poly(float x2) noexcept {
  float p = 0x1.5f0ac8p-14f;
  p = mad(p, x2, -0x1.aae79cp-11f);
  p = mad(p, x2, 0x1.54daa2p-8f);
  p = mad(p, x2, -0x1.b81076p-6f);
  p = mad(p, x2, 0x1.ce2e2p-4f);
  p = mad(p, x2, -0x1.812744p-2f);
  return mad(p, x2, 0x1.06eba8p-3f);
}
inline constexpr float kErfSmall = 0.921875f;

// erfc(t) = m * 2^n for t = |xd| * scale in [0.5, 10], where xd is a float
// widened to double, scale = 1 or 1/sqrt 2 and scale_sq = 1 or 1/2:
//   erfc(t) = u exp(-t^2 + P(u)),  u = 2 / (2 + t),
// P minimax with absolute error 2^-29.7.  The polynomial and -t^2 (exact in
// double: xd has 24 significant bits) are evaluated in double, the
// exponential in float-float.
struct ErfcParts {
  double m;
  std::int32_t n;
};
TLALOC_VMATH_INLINE ErfcParts erfc_parts(double xd, double scale, double scale_sq) noexcept {
  const double t = std::bit_cast<double>(bits(xd) & 0x7fffffffffffffffull) * scale;
  const double t2 = (xd * xd) * scale_sq;
  const double u = 2.0 / (2.0 + t);
  // Estrin's scheme: shorter dependency chains than Horner.
  const double u2 = u * u, u4 = u2 * u2;
  const double p01 = mad(u, 0x1.003003dc091edp+0, -0x1.43fa3f2340837p+0);
  const double p23 = mad(u, 0x1.357d6c934c9f0p-3, 0x1.7675d5f6dbd2ep-2);
  const double p45 = mad(u, 0x1.95662b5df672fp-1, -0x1.96ce8bbe90098p-2);
  const double p67 = mad(u, 0x1.1caa0c0bc2835p+1, -0x1.ebb59993b3714p+0);
  const double p89 = mad(u, 0x1.06cf0fb16bec6p-2, -0x1.34d27daa7765dp+0);
  const double p03 = mad(u2, p23, p01);
  const double p47 = mad(u2, p67, p45);
  const double p = mad(u4, mad(u4, p89, p47), p03);
  const double arg = p - t2;
  const float ah = static_cast<float>(arg);
  const float al = static_cast<float>(arg - static_cast<double>(ah));
  const ExpParts ep = exp_parts(ah, al);
  return {u * (static_cast<double>(ep.y) + static_cast<double>(ep.yl)), ep.n};
}

// ---------------------------------------------------------- sin / cos ----
struct TrigReduced {
  double r;          // x - k pi/2, |r| <= ~pi/4
  std::uint64_t q;   // k mod 4 in the low two bits
};

// v - 4 round(v/4): exact, congruent to v mod 4, |result| <= 2.
TLALOC_VMATH_INLINE double mod4(double v) noexcept {
  const double q = v * 0.25;
#if defined(__SSE4_1__) || defined(__aarch64__)
  const double n = std::nearbyint(q);  // a single vroundpd / frintx
#else
  // Round to integer with the 2^52 trick (sign-adjusted); |q| >= 2^52 is
  // already an integer.
  const double magic = std::bit_cast<double>((bits(q) & 0x8000000000000000ull) |
                                             0x4330000000000000ull);  // +-2^52
  const double rq = (q + magic) - magic;
  const double aq = std::bit_cast<double>(bits(q) & 0x7fffffffffffffffull);
  const double n = sel(aq < 0x1p52, rq, q);
#endif
  return mad(-4.0, n, v);
}

// Table-free Payne-Hanek: x * 2/pi is formed exactly as a sum of products of
// x with a four-double expansion of 2/pi, each big term is reduced mod 4
// exactly, and the small fractional part is accumulated with two-sums.
TLALOC_VMATH_INLINE TrigReduced trig_reduce(float x) noexcept {
  constexpr double kT1 = 0x1.45f306dc9c883p-1;
  constexpr double kT2 = -0x1.6b01ec5417056p-55;
  constexpr double kT3 = -0x1.6447e493ad4cep-109;
  constexpr double kT4 = 0x1.e21c820ff28b2p-163;
  constexpr double kPio2 = 0x1.921fb54442d18p+0;
  const auto xd = static_cast<double>(x);
  const double p1 = xd * kT1, e1 = prod_err(xd, kT1, p1);
  const double p2 = xd * kT2, e2 = prod_err(xd, kT2, p2);
  const double p3 = xd * kT3, e3 = prod_err(xd, kT3, p3);
  const double p4 = xd * kT4;
  // |p1|, |e1|, |p2| can be huge: reduce them mod 4 (exactly).
  const double a1 = mod4(p1), b1 = mod4(e1), a2 = mod4(p2);
  // |e2|, |p3| < 2^21: sum everything exactly with two-sums.
  double s = a1 + b1;
  double lo = two_sum_err(a1, b1, s);
  double s2 = s + a2;
  lo += two_sum_err(s, a2, s2);
  s = s2 + e2;
  lo += two_sum_err(s2, e2, s);
  s2 = s + p3;
  lo += two_sum_err(s, p3, s2);
  lo += e3 + p4;
  // Integer part k (|k| < 2^22) and fraction.
  constexpr double kMagic = 0x1.8p52;
  const double sm = s2 + kMagic;
  const double k = sm - kMagic;
  const std::uint64_t q = bits(sm);
  const double f = s2 - k;  // exact, |f| <= 1/2
  // The cancellation happened exactly above; from here relative precision
  // 2^-52 in r is plenty for a float result.
  return {(f + lo) * kPio2, q};
}

// sin(r), cos(r) for |r| <= ~pi/4 in double; relative errors 2^-35, 2^-40.
TLALOC_VMATH_INLINE double sin_poly(double r) noexcept {
  const double z = r * r;
  double p = 0x1.6da90588351f6p-19;
  p = mad(p, z, -0x1.a013a56bd9f7fp-13);
  p = mad(p, z, 0x1.11110e504bda2p-7);
  p = mad(p, z, -0x1.55555554cf76cp-3);
  return mad(r * z, p, r);
}
TLALOC_VMATH_INLINE double cos_poly(double r) noexcept {
  const double z = r * r;
  double p = -0x1.24900b55829a8p-22;
  p = mad(p, z, 0x1.a0135b193d3a8p-16);
  p = mad(p, z, -0x1.6c16bc7968d2dp-10);
  p = mad(p, z, 0x1.555555533f237p-5);
  p = mad(p, z, -0x1.ffffffffffa84p-2);
  return mad(z, p, 1.0);
}

}  // namespace detail

// ===================================================================== exp
TLALOC_VMATH_INLINE float exp(float x) noexcept {
  const detail::ExpParts e = detail::exp_parts(x, 0.0f);
  return detail::scale2(e.y, e.n);
}

// =================================================================== expm1
TLALOC_VMATH_INLINE float expm1(float x) noexcept {
  using namespace detail;
  float xc = clamp_hi(x, 88.8f);
  xc = clamp_lo(xc, -20.0f);  // expm1(-20) rounds to -1
  const ExpReduced red = exp_reduce(xc);
  const float r = red.r;
  const float w = r * r * expm1_poly_p(r);  // expm1(r) = r + w
  // 2^n (1 + r + w) - 1 = (t - 1) + t r + t w with t = 2^min(n, 127); the
  // first two terms are exact and |t - 1| >= |t r| (or t - 1 == 0), so a fast
  // two-sum keeps their sum exact.  n == 128 finishes with * 2.
  const std::int32_t n = red.n > 127 ? 127 : red.n;
  const float t = pow2i(n);
  const float a = t - 1.0f;
  const float b = t * r;
  const float s = a + b;
  const float err = b - (s - a);
  const float y = s + mad(t, w, err);
  const float res = y * sel(red.n > 127, 2.0f, 1.0f);
  return sel(detail::abs(x) < 0x1p-25f, x, res);  // rounds to x; keeps -0
}

// ===================================================================== log
TLALOC_VMATH_INLINE float log(float x) noexcept {
  using namespace detail;
  // Subnormals: scale into the normal range.
  const bool sub = x < 0x1p-126f;
  const float xs = x * sel(sub, 0x1p24f, 1.0f);
  const LogReduced red = log_reduce(xs);
  const float e = red.e - sel(sub, 24.0f, 0.0f);
  const float y = log_combine(e, red.f, log1p_poly_tail(red.f), 0.0f);
  const bool valid = (x > 0.0f) & (x < kInf);
  const float special = sel(x < 0.0f, kNaN, sel(x == 0.0f, -kInf, x));
  return sel(valid, y, special);
}

// =================================================================== log1p
namespace detail {
// log1p(x + xl) for x > -1 finite, |xl| <= ulp(x) (no special cases).
TLALOC_VMATH_INLINE float log1p_ext(float x, float xl) noexcept {
  // 1 + x + xl = u + c; log1p = log(u) + log(1 + c/u), |c/u| <= ~2^-24.
  const float u = 1.0f + x;
  const float c = two_sum_err(1.0f, x, u) + xl;
  const LogReduced red = log_reduce(u);
  // c/u = (c 2^-e) / (1 + f) ~= (c 2^-e) (1 - f + f^2)
  const auto ei = static_cast<std::int32_t>(red.e);
  const float cs = c * pow2i(-(ei > 126 ? 126 : ei));
  const float corr = cs * mad(red.f, red.f - 1.0f, 1.0f);
  return log_combine(red.e, red.f, log1p_poly_tail(red.f), corr);
}
}  // namespace detail

TLALOC_VMATH_INLINE float log1p(float x) noexcept {
  using namespace detail;
  const float y = log1p_ext(x, 0.0f);
  const bool valid = (x > -1.0f) & (x < kInf);
  const float special = sel(x < -1.0f, kNaN, sel(x == -1.0f, -kInf, x));
  const float res = sel(valid, y, special);
  return sel(detail::abs(x) < 0x1p-25f, x, res);  // rounds to x; keeps -0
}

// ==================================================================== tanh
TLALOC_VMATH_INLINE float tanh(float x) noexcept {
  using namespace detail;
  const float ax = clamp_hi(detail::abs(x), 9.5f);  // tanh(9.5) rounds to 1
  // |x| < 0.625: x + x^3 P(x^2), minimax relative error 2^-25.2.
  const float z = ax * ax;
  float p = -0x1.977198p-8f;
  p = mad(p, z, 0x1.59db14p-6f);
  p = mad(p, z, -0x1.b96968p-5f);
  p = mad(p, z, 0x1.110fap-3f);
  p = mad(p, z, -0x1.555554p-2f);
  const float small = mad(ax * z, p, ax);
  // otherwise (e - 1) / (e + 1), e = exp(2|x|) = eh + el; eh - 1 is exact.
  const ExpParts ep = exp_parts(2.0f * ax, 0.0f);
  const float eh = scale2(ep.y, ep.n);
  const float el = scale2(ep.yl, ep.n);
  const float dh = eh + 1.0f;
  const float dl = (1.0f - (dh - eh)) + el;
  const float big = div_ext(eh - 1.0f, el, dh, dl);
  const float r = sel(ax < 0.625f, small, big);
  return detail::copysign(r, x);
}

// ================================================================= sigmoid
TLALOC_VMATH_INLINE float sigmoid(float x) noexcept {
  using namespace detail;
  // e = exp(-|x|) in (0, 1];  x >= 0: 1 / (1 + e),  x < 0: e / (1 + e),
  // with 1 + e kept exact as dh + dl.  (For x < -87 e is subnormal,
  // 1 + e == 1 and the quotient is e itself.)
  const float e = vmath::exp(-detail::abs(x));
  const float dh = 1.0f + e;
  const float dl = e - (dh - 1.0f);
  return div_ext(sel(x < 0.0f, e, 1.0f), 0.0f, dh, dl);
}

// ==================================================================== silu
TLALOC_VMATH_INLINE float silu(float x) noexcept {
  using namespace detail;
  const float xc = clamp_lo(x, -200.0f);  // silu(-200) == -0; avoids -inf * 0
  const float r = mul_sigmoid(xc, -detail::abs(xc), 0.0f, xc < 0.0f);
  return sel(x > 100.0f, x, r);  // also +inf
}

// ================================================================ softplus
TLALOC_VMATH_INLINE float softplus(float x) noexcept {
  using namespace detail;
  // log(1 + e^x) = max(x, 0) + log1p(e^-|x|), e^-|x| in float-float.
  const ExpParts ep = exp_parts(-detail::abs(x), 0.0f);
  const float e = scale2(ep.y, ep.n);
  const float el = scale2(ep.yl, ep.n);
  const float m = sel(x > 0.0f, x, 0.0f);
  return m + log1p_ext(e, el);
}

// ===================================================================== erf
TLALOC_VMATH_INLINE float erf(float x) noexcept {
  using namespace detail;
  const float ax = clamp_hi(detail::abs(x), 4.0f);  // erf(3.92) already rounds to 1
  const float small = mad(ax, erf_poly(ax * ax), ax);
  const ErfcParts ec = erfc_parts(static_cast<double>(ax), 1.0, 1.0);
  const float big = 1.0f - scale2(static_cast<float>(ec.m), ec.n);
  return detail::copysign(sel(ax < kErfSmall, small, big), x);
}

// =============================================================== gelu_tanh
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) == x * sigmoid(z),
// z = 2 sqrt(2/pi) (x + 0.044715 x^3), evaluated in float-float so that the
// negative tail (where gelu is tiny) keeps full relative accuracy.
TLALOC_VMATH_INLINE float gelu_tanh(float x) noexcept {
  using namespace detail;
  constexpr float kK1Hi = 0x1.988454p+0f, kK1Lo = -0x1.857936p-25f;  // 2 sqrt(2/pi)
  constexpr float kK3Hi = 0x1.2444f2p-4f, kK3Lo = 0x1.49b16ap-29f;   // * 0.044715
  float xc = clamp_hi(x, 12.0f);
  xc = clamp_lo(xc, -12.0f);
  const float x2h = xc * xc;
  const float x2l = prod_err(xc, xc, x2h);
  const float x3h = x2h * xc;
  const float x3l = mad(x2l, xc, prod_err(x2h, xc, x3h));
  const float ph = kK3Hi * x3h;
  const float pl = prod_err(kK3Hi, x3h, ph) + mad(kK3Hi, x3l, kK3Lo * x3h);
  const float qh = kK1Hi * xc;
  const float ql = mad(kK1Lo, xc, prod_err(kK1Hi, xc, qh));
  const float sh = ph + qh;
  const float sl = two_sum_err(ph, qh, sh) + (pl + ql);
  // -|z| as (ah, al); sign(z) == sign(x).
  const bool neg = xc < 0.0f;
  const float ah = sel(neg, sh, -sh);
  const float al = sel(neg, sl, -sl);
  const float r = mul_sigmoid(xc, ah, al, neg);
  return sel(x > 12.0f, x, r);
}

// ================================================================ gelu_erf
// 0.5 x (1 + erf(x / sqrt 2)) == 0.5 x erfc(-x / sqrt 2).
TLALOC_VMATH_INLINE float gelu_erf(float x) noexcept {
  using namespace detail;
  constexpr float kRsqrt2Hi = 0x1.6a09e6p-1f, kRsqrt2Lo = 0x1.9fcef4p-27f;  // 1/sqrt(2)
  float xc = clamp_hi(x, 10.0f);  // gelu_erf(x) rounds to x for x >= 5.7
  xc = clamp_lo(xc, -20.0f);      // and to -0 for x <= -14.1
  const float h = 0.5f * xc;
  const float ax = detail::abs(xc);
  // t = |x| / sqrt 2 = th + tl
  const float th = ax * kRsqrt2Hi;
  const float tl = mad(ax, kRsqrt2Lo, prod_err(ax, kRsqrt2Hi, th));
  // small t: erf(t) = t + t Q(t^2), t^2 = x^2 / 2
  const float q = th * erf_poly(h * xc);
  const float erf_small = th + (tl + q);
  // erfc(t) = 1 - t - t Q for t < 1/2, with 1 - th kept exact
  const float s1 = 1.0f - th;
  const float s1e = two_sum_err(1.0f, -th, s1);
  const float erfc_small_lo = (s1e - tl) - q;
  const ErfcParts ec = erfc_parts(static_cast<double>(xc), 0x1.6a09e667f3bcdp-1, 0.5);
  // positive x: h (1 + erf(t)) = h + h erf(t);  negative: h erfc(t)
  const float erf_big = 1.0f - scale2(static_cast<float>(ec.m), ec.n);
  const float erf_t = sel(th < kErfSmall, erf_small, erf_big);
  const float pos = mad(h, erf_t, h);
  const float neg_small = mad(h, s1, h * erfc_small_lo);
  const float neg_big = scale2(static_cast<float>(static_cast<double>(h) * ec.m), ec.n);
  const float neg = sel(th < 0.5f, neg_small, neg_big);
  const float r = sel(xc < 0.0f, neg, pos);
  return sel(x > 10.0f, x, r);
}

// ================================================================ sin, cos
TLALOC_VMATH_INLINE float sin(float x) noexcept {
  using namespace detail;
  const TrigReduced red = trig_reduce(x);
  const double s = sin_poly(red.r), c = cos_poly(red.r);
  const double v = sel((red.q & 1u) != 0, c, s);
  const double r = std::bit_cast<double>(bits(v) ^ ((red.q & 2u) << 62));
  const float res = static_cast<float>(r);
  return sel(detail::abs(x) < 0x1p-12f, x, res);  // sin(x) rounds to x; keeps -0
}

TLALOC_VMATH_INLINE float cos(float x) noexcept {
  using namespace detail;
  const TrigReduced red = trig_reduce(x);
  const double s = sin_poly(red.r), c = cos_poly(red.r);
  const double v = sel((red.q & 1u) != 0, s, c);
  const double r = std::bit_cast<double>(bits(v) ^ (((red.q + 1u) & 2u) << 62));
  return static_cast<float>(r);
}

// ======================================================= double overloads
inline double exp(double x) noexcept { return std::exp(x); }
inline double expm1(double x) noexcept { return std::expm1(x); }
inline double log(double x) noexcept { return std::log(x); }
inline double log1p(double x) noexcept { return std::log1p(x); }
inline double tanh(double x) noexcept { return std::tanh(x); }
inline double erf(double x) noexcept { return std::erf(x); }
inline double sin(double x) noexcept { return std::sin(x); }
inline double cos(double x) noexcept { return std::cos(x); }
inline double sigmoid(double x) noexcept {
  const double e = std::exp(-std::fabs(x));
  return (x < 0.0 ? e : 1.0) / (1.0 + e);
}
inline double silu(double x) noexcept {
  if (x == -std::numeric_limits<double>::infinity()) return -0.0;  // not -inf * 0
  const double e = std::exp(-std::fabs(x));
  return (x < 0.0 ? x * e : x) / (1.0 + e);
}
inline double softplus(double x) noexcept {
  return (x > 0.0 ? x : 0.0) + std::log1p(std::exp(-std::fabs(x)));
}
// x * sigmoid(z), z = 2 sqrt(2/pi) (x + 0.044715 x^3): same value as
// 0.5 x (1 + tanh(z/2)) without the cancellation for negative x.
inline double gelu_tanh(double x) noexcept {
  if (x == -std::numeric_limits<double>::infinity()) return -0.0;  // not -inf * 0
  constexpr double kK1 = 1.5957691216057308;  // 2 sqrt(2/pi)
  const double z = kK1 * (x + 0.044715 * x * x * x);
  const double e = std::exp(-std::fabs(z));
  return (x < 0.0 ? x * e : x) / (1.0 + e);
}
inline double gelu_erf(double x) noexcept {
  constexpr double kRsqrt2 = 0.70710678118654752440;
  if (x > 40.0) return x;  // also avoids inf * 0 below
  if (x < -40.0) return -0.0;
  return 0.5 * x * std::erfc(-x * kRsqrt2);
}

}  // namespace tlaloc::vmath

#undef TLALOC_VMATH_INLINE
