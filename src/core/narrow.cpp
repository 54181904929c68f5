#include "core/narrow.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "core/check.hpp"
#include "core/parallel.hpp"
#include "core/tensor_impl.hpp"

namespace tlaloc::detail {
namespace {

// How a narrow float spends its codes beyond the finite values.
enum class Special : std::uint8_t {
  ieee,    // exponent all ones: infinities and NaNs, as IEEE 754
  fn,      // no infinities; only S.1..1.1..1 is NaN
  fnuz,    // no infinities, no -0: the code of -0 is the one NaN
  finite,  // every code a finite value
  e8m0,    // no sign, no mantissa, no zero: 2^(e - 127); 0xFF is NaN
};

struct Format {
  int ebits, mbits, bias;
  Special special;
};

Format format_of(DType t) {
  switch (t) {
    case DType::f8e3m4:
      return {3, 4, 3, Special::ieee};
    case DType::f8e4m3:
      return {4, 3, 7, Special::ieee};
    case DType::f8e4m3fn:
      return {4, 3, 7, Special::fn};
    case DType::f8e4m3fnuz:
      return {4, 3, 8, Special::fnuz};
    case DType::f8e4m3b11fnuz:
      return {4, 3, 11, Special::fnuz};
    case DType::f8e5m2:
      return {5, 2, 15, Special::ieee};
    case DType::f8e5m2fnuz:
      return {5, 2, 16, Special::fnuz};
    case DType::f8e8m0fnu:
      return {8, 0, 127, Special::e8m0};
    case DType::f4e2m1fn:
      return {2, 1, 1, Special::finite};
    case DType::f6e2m3fn:
      return {2, 3, 1, Special::finite};
    case DType::f6e3m2fn:
      return {3, 2, 3, Special::finite};
    default:
      fail<DTypeError>("narrow float", "{} is not a narrow float type", t);
  }
}

double decode(const Format& f, unsigned bits) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  const unsigned width = unsigned(f.ebits + f.mbits);
  const unsigned emask = (1u << f.ebits) - 1, mmask = (1u << f.mbits) - 1;
  if (f.special == Special::e8m0) return bits == 0xFFu ? nan : std::ldexp(1.0, int(bits) - f.bias);
  const bool negative = ((bits >> width) & 1u) != 0;
  const unsigned e = (bits >> f.mbits) & emask, m = bits & mmask;
  if (f.special == Special::fnuz && negative && e == 0 && m == 0) return nan;
  if (f.special == Special::ieee && e == emask)
    return m != 0     ? nan
           : negative ? -std::numeric_limits<double>::infinity()
                      : std::numeric_limits<double>::infinity();
  if (f.special == Special::fn && e == emask && m == mmask) return nan;
  const double v = e == 0 ? std::ldexp(double(m), 1 - f.bias - f.mbits)
                          : std::ldexp(double(m + (1u << f.mbits)), int(e) - f.bias - f.mbits);
  return negative ? -v : v;
}

// One narrow float's values by code, and its finite non-negative values in
// increasing order: codes 0, 1, ... up to the largest (a prefix of the codes in
// every format here), which encoding searches.
struct Table {
  Format format{};
  std::array<float, 256> value{};
  std::vector<double> positive;
  unsigned sign_bit = 0;  // 0: no sign
  std::uint8_t nan_code = 0, inf_code = 0;
};

Table make_table(DType t) {
  Table tb;
  tb.format = format_of(t);
  const Format& f = tb.format;
  const unsigned width = unsigned(f.ebits + f.mbits);
  const unsigned codes = f.special == Special::e8m0 ? 256u : 2u << width;
  for (unsigned c = 0; c < codes; ++c) tb.value[c] = float(decode(f, c));
  for (unsigned c = 0; c < (f.special == Special::e8m0 ? 256u : 1u << width); ++c) {
    const double v = decode(f, c);
    if (!std::isfinite(v)) break;
    tb.positive.push_back(v);
  }
  tb.sign_bit = f.special == Special::e8m0 ? 0 : 1u << width;
  const unsigned emask = (1u << f.ebits) - 1;
  tb.inf_code = std::uint8_t(emask << f.mbits);
  tb.nan_code = f.special == Special::ieee   ? std::uint8_t(tb.inf_code | (1u << (f.mbits - 1)))
                : f.special == Special::fn   ? std::uint8_t((1u << width) - 1)
                : f.special == Special::fnuz ? std::uint8_t(1u << width)
                : f.special == Special::e8m0 ? std::uint8_t(0xFF)
                                             : std::uint8_t(0);
  return tb;
}

const Table& table(DType t) {
  static const auto tables = [] {
    std::array<Table, std::size_t(DType::f6e3m2fn) - std::size_t(DType::f8e3m4) + 1> all;
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = make_table(DType(std::size_t(DType::f8e3m4) + i));
    return all;
  }();
  if (!is_narrow_float(t)) fail<DTypeError>("narrow float", "{} is not a narrow float type", t);
  return tables[std::size_t(t) - std::size_t(DType::f8e3m4)];
}

// The code of the largest finite value, or what overflow past it gives.
std::uint8_t overflow_code(const Table& tb) {
  switch (tb.format.special) {
    case Special::ieee:
      return tb.inf_code;
    case Special::finite:
      return std::uint8_t(tb.positive.size() - 1);
    default:
      return tb.nan_code;
  }
}

// The code nearest a >= 0 among the non-negative values, ties to the even code (up
// where there is no mantissa bit, whose one significand bit is always odd); one past
// the largest finite value means overflow.
std::size_t nearest_code(const std::vector<double>& pos, double a, bool ties_up) {
  const auto above = std::upper_bound(pos.begin(), pos.end(), a);
  if (above == pos.begin()) return 0;  // below the smallest value (e8m0 has no zero)
  const std::size_t lo = std::size_t(above - pos.begin()) - 1;
  // Past the largest value the next step would be as wide as the last.
  const double hi_value = above != pos.end() ? *above : 2 * pos[lo] - (lo > 0 ? pos[lo - 1] : 0.0);
  const double mid = pos[lo] + (hi_value - pos[lo]) / 2;
  if (a < mid) return lo;
  if (a > mid) return lo + 1;
  return lo % 2 == 0 && !ties_up ? lo : lo + 1;
}

}  // namespace

double narrow_float_value(DType t, std::uint8_t bits) { return decode(table(t).format, bits); }

std::uint8_t narrow_float_bits(DType t, double v) {
  const Table& tb = table(t);
  if (std::isnan(v)) return tb.nan_code;
  const bool negative = std::signbit(v);
  if (tb.sign_bit == 0 && negative && v != 0) return tb.nan_code;  // e8m0 holds no negative value
  const double a = std::fabs(v);
  std::size_t code = std::isinf(a) ? tb.positive.size() : nearest_code(tb.positive, a, tb.format.mbits == 0);
  if (code >= tb.positive.size()) code = overflow_code(tb);
  if (code == tb.nan_code && tb.format.special != Special::ieee) return tb.nan_code;
  if (!negative || tb.sign_bit == 0 || (code == 0 && tb.format.special == Special::fnuz))
    return std::uint8_t(code);
  return std::uint8_t(code | tb.sign_bit);
}

std::uint8_t narrow_int_byte(DType t, std::int64_t v) {
  const int shift = 64 - bit_width(t);
  const auto u = std::uint64_t(v) << shift;
  return std::uint8_t(is_unsigned(t) ? u >> shift : std::uint64_t(std::int64_t(u) >> shift));
}

Tensor widened(const Tensor& x) {
  const DType t = x.dtype();
  Tensor y = empty(x.shape(), compute_dtype(t));
  const auto* src = static_cast<const std::uint8_t*>(x.raw_data());
  if (!is_narrow_float(t)) {  // the bytes already read as i8 or u8
    if (x.numel() > 0) std::memcpy(y.impl().data(), src, std::size_t(x.numel()));
    return y;
  }
  const std::array<float, 256>& value = table(t).value;
  float* dst = mutable_data<float>(y);
  parallel_for(x.numel(), kElementwiseGrain, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i) dst[i] = value[src[i]];
  });
  return y;
}

Tensor narrowed(const Tensor& x, DType t, bool saturate) {
  Tensor y = empty(x.shape(), t);
  auto* dst = mutable_data<std::uint8_t>(y);
  const auto each = [&](auto f) {
    parallel_for(x.numel(), kElementwiseGrain, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t i = b; i < e; ++i) dst[i] = f(i);
    });
  };
  if (is_narrow_float(t)) {
    if (x.dtype() == DType::f64) {
      const double* src = x.data<double>();
      each([&](std::int64_t i) { return narrow_float_bits(t, src[i]); });
    } else {
      const float* src = x.data<float>();
      each([&](std::int64_t i) { return narrow_float_bits(t, double(src[i])); });
    }
    return y;
  }
  if (x.dtype() != compute_dtype(t))
    fail<DTypeError>("narrow", "rounds {} to {}, not {}", compute_dtype(t), t, x.dtype());
  const auto* src = static_cast<const std::uint8_t*>(x.raw_data());
  const int bits = bit_width(t);
  const std::int64_t lo = is_unsigned(t) ? 0 : -(std::int64_t(1) << (bits - 1));
  const std::int64_t hi =
      is_unsigned(t) ? (std::int64_t(1) << bits) - 1 : (std::int64_t(1) << (bits - 1)) - 1;
  each([&](std::int64_t i) {
    const std::int64_t v = is_unsigned(t) ? std::int64_t(src[i]) : std::int64_t(std::int8_t(src[i]));
    return narrow_int_byte(t, saturate ? std::clamp(v, lo, hi) : v);
  });
  return y;
}

}  // namespace tlaloc::detail
