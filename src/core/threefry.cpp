// Threefry-2x32 / JAX-compatible random generation. See threefry.hpp.

// Floating-point results must not depend on whether the compiler fuses
// a * b + c into an FMA, so contraction is switched off for this file.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include "core/threefry.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace tlaloc::detail::rng {
namespace {

#if defined(__GNUC__) || defined(__clang__)
#define TLALOC_RNG_INLINE [[gnu::always_inline]] inline
#else
#define TLALOC_RNG_INLINE inline
#endif

// ---------------------------------------------------------------------------
// Block function
// ---------------------------------------------------------------------------

// Skein key-schedule parity constant for 32-bit words.
constexpr uint32_t kParity32 = 0x1BD11BDAu;

// Four Threefry-2x32 rounds with rotation amounts R0..R3.
template <int R0, int R1, int R2, int R3>
TLALOC_RNG_INLINE void four_rounds(uint32_t& x0, uint32_t& x1) noexcept {
  x0 += x1; x1 = std::rotl(x1, R0); x1 ^= x0;
  x0 += x1; x1 = std::rotl(x1, R1); x1 ^= x0;
  x0 += x1; x1 = std::rotl(x1, R2); x1 ^= x0;
  x0 += x1; x1 = std::rotl(x1, R3); x1 ^= x0;
}

// 20 rounds: an initial key injection, then five groups of four rounds each
// followed by a key injection s = 1..5 (words ks[s % 3], ks[(s + 1) % 3] + s).
// The rotation amounts alternate between {13, 15, 26, 6} and {17, 29, 16, 24}.
TLALOC_RNG_INLINE void block20(uint32_t k0, uint32_t k1, uint32_t& x0,
                               uint32_t& x1) noexcept {
  const uint32_t k2 = k0 ^ k1 ^ kParity32;
  x0 += k0;
  x1 += k1;
  four_rounds<13, 15, 26, 6>(x0, x1);
  x0 += k1;
  x1 += k2 + 1u;
  four_rounds<17, 29, 16, 24>(x0, x1);
  x0 += k2;
  x1 += k0 + 2u;
  four_rounds<13, 15, 26, 6>(x0, x1);
  x0 += k0;
  x1 += k1 + 3u;
  four_rounds<17, 29, 16, 24>(x0, x1);
  x0 += k1;
  x1 += k2 + 4u;
  four_rounds<13, 15, 26, 6>(x0, x1);
  x0 += k2;
  x1 += k0 + 5u;
}

// Hashes the counters {x0_base (+ j if kStepX0), x1_base + j} for j in [0, c).
template <bool kStepX0>
void hash_lanes(Key key, uint32_t x0_base, uint32_t x1_base, uint32_t* a,
                uint32_t* b, size_t c) noexcept {
  const uint32_t k0 = key[0];
  const uint32_t k1 = key[1];
  for (size_t j = 0; j < c; ++j) {
    uint32_t x0 = kStepX0 ? x0_base + static_cast<uint32_t>(j) : x0_base;
    uint32_t x1 = x1_base + static_cast<uint32_t>(j);
    block20(k0, k1, x0, x1);
    a[j] = x0;
    b[j] = x1;
  }
}

// Number of counters hashed per chunk by the stream generators below.
constexpr size_t kChunk = 256;

// ---------------------------------------------------------------------------
// Original (non-partitionable) layout
// ---------------------------------------------------------------------------

// JAX processes at most 2^32 - 1 counters per key in _random_bits; longer
// requests are cut into blocks, each with its own key from split().
constexpr uint64_t kMaxCountPerKey = 0xFFFFFFFFull;

// Emits JAX's threefry_2x32(key, iota(uint32, m)) -- m < 2^32 -- as runs
// sink(pos, values, count) with positions offset by `base`. Element i < half
// is lane 0 of counter {i, i + half} and element i + half is lane 1 of it,
// where half = ceil(m / 2); for odd m the last counter is {half - 1, 0} (the
// zero pad) and its lane 1 is dropped.
template <class Sink>
void iota_stream(Key key, uint64_t m, uint64_t base, Sink& sink) {
  const uint64_t half = (m + 1) / 2;
  const uint64_t pairs = m / 2;  // counters whose lane 1 is kept
  uint32_t a[kChunk];
  uint32_t b[kChunk];
  for (uint64_t i0 = 0; i0 < half; i0 += kChunk) {
    const size_t c = static_cast<size_t>(std::min<uint64_t>(kChunk, half - i0));
    hash_lanes<true>(key, static_cast<uint32_t>(i0),
                     static_cast<uint32_t>(i0 + half), a, b, c);
    if (pairs != half && i0 + c == half) {
      // Odd m: the last counter's second word is the zero pad.
      a[c - 1] = threefry2x32(key, {static_cast<uint32_t>(half - 1), 0u})[0];
    }
    sink(base + i0, static_cast<const uint32_t*>(a), c);
    if (i0 < pairs) {
      const size_t c1 = static_cast<size_t>(std::min<uint64_t>(c, pairs - i0));
      sink(base + half + i0, static_cast<const uint32_t*>(b), c1);
    }
  }
}

// Key `j` of JAX's original split(key, num): the split keys are the rows of
// threefry_2x32(key, iota(2 * num)) reshaped to (num, 2).
Key original_split_at(Key key, uint64_t num, uint64_t j) noexcept {
  Key out{};
  for (uint64_t w = 0; w < 2; ++w) {
    const uint64_t p = 2 * j + w;  // position in the length-2*num stream
    if (p < num) {
      out[w] = threefry2x32(key, {static_cast<uint32_t>(p),
                                  static_cast<uint32_t>(p + num)})[0];
    } else {
      out[w] = threefry2x32(key, {static_cast<uint32_t>(p - num),
                                  static_cast<uint32_t>(p)})[1];
    }
  }
  return out;
}

// JAX's _threefry_random_bits_original u32 stream of length m (before it is
// reinterpreted for the requested width).
template <class Sink>
void original_stream(Key key, uint64_t m, Sink& sink) {
  const uint64_t nblocks = m / kMaxCountPerKey;
  const uint64_t rem = m % kMaxCountPerKey;
  if (nblocks == 0) {
    iota_stream(key, rem, 0, sink);
    return;
  }
  const uint64_t nkeys = nblocks + 1;
  for (uint64_t blk = 0; blk < nblocks; ++blk) {
    iota_stream(original_split_at(key, nkeys, blk), kMaxCountPerKey,
                blk * kMaxCountPerKey, sink);
  }
  iota_stream(original_split_at(key, nkeys, nblocks), rem,
              nblocks * kMaxCountPerKey, sink);
}

// Element p of original_stream(key, m); used only for the 64-bit path when
// 2n >= 2^32 - 1 (at least 16 GiB of output).
uint32_t original_stream_at(Key key, uint64_t m, uint64_t p) noexcept {
  const uint64_t nblocks = m / kMaxCountPerKey;
  uint64_t len = m;
  if (nblocks != 0) {
    const uint64_t blk = p / kMaxCountPerKey;
    key = original_split_at(key, nblocks + 1, blk);
    len = blk < nblocks ? kMaxCountPerKey : m % kMaxCountPerKey;
    p %= kMaxCountPerKey;
  }
  const uint64_t half = (len + 1) / 2;
  if (p < half) {
    const uint64_t x1 = p + half < len ? p + half : 0;
    return threefry2x32(key, {static_cast<uint32_t>(p),
                              static_cast<uint32_t>(x1)})[0];
  }
  return threefry2x32(key, {static_cast<uint32_t>(p - half),
                            static_cast<uint32_t>(p)})[1];
}

// ---------------------------------------------------------------------------
// Partitionable layout: output i uses the counter {hi32(i), lo32(i)}.
// ---------------------------------------------------------------------------

// Calls f(pos, a, b, c) with the two lanes of counters for i in [pos, pos+c).
template <class F>
void partitionable_lanes(Key key, uint64_t n, F& f) {
  uint32_t a[kChunk];
  uint32_t b[kChunk];
  for (uint64_t i0 = 0; i0 < n;) {
    const uint32_t lo = static_cast<uint32_t>(i0);
    const uint64_t to_wrap = (uint64_t{1} << 32) - lo;  // keep hi32 fixed
    const size_t c = static_cast<size_t>(
        std::min<uint64_t>({uint64_t{kChunk}, n - i0, to_wrap}));
    hash_lanes<false>(key, static_cast<uint32_t>(i0 >> 32), lo, a, b, c);
    f(i0, static_cast<const uint32_t*>(a), static_cast<const uint32_t*>(b), c);
    i0 += c;
  }
}

// ---------------------------------------------------------------------------
// Bit streams shared by all samplers
// ---------------------------------------------------------------------------

// sink(pos, const uint32_t* v, size_t c): v[j] are the 32-bit random bits of
// output pos + j.
template <class Sink>
void gen_bits32(Key key, uint64_t n, CounterLayout layout, Sink&& sink) {
  if (layout == CounterLayout::kOriginal) {
    original_stream(key, n, sink);
    return;
  }
  auto f = [&sink](uint64_t pos, const uint32_t* a, const uint32_t* b,
                   size_t c) {
    uint32_t v[kChunk];
    for (size_t j = 0; j < c; ++j) v[j] = a[j] ^ b[j];
    sink(pos, static_cast<const uint32_t*>(v), c);
  };
  partitionable_lanes(key, n, f);
}

// sink(pos, const uint64_t* v, size_t c): 64-bit random bits of outputs.
template <class Sink>
void gen_bits64(Key key, uint64_t n, CounterLayout layout, Sink&& sink) {
  auto join = [&sink](uint64_t pos, const uint32_t* hi, const uint32_t* lo,
                      size_t c) {
    uint64_t v[kChunk];
    for (size_t j = 0; j < c; ++j) {
      v[j] = (static_cast<uint64_t>(hi[j]) << 32) | lo[j];
    }
    sink(pos, static_cast<const uint64_t*>(v), c);
  };
  if (layout == CounterLayout::kPartitionable) {
    partitionable_lanes(key, n, join);
    return;
  }
  // Original: 2n words; output i = (word i) << 32 | (word n + i).
  const uint64_t m = 2 * n;
  if (m < kMaxCountPerKey) {
    // Single key, even length: words i and n + i are the two lanes of the
    // counter {i, n + i}.
    uint32_t a[kChunk];
    uint32_t b[kChunk];
    for (uint64_t i0 = 0; i0 < n; i0 += kChunk) {
      const size_t c = static_cast<size_t>(std::min<uint64_t>(kChunk, n - i0));
      hash_lanes<true>(key, static_cast<uint32_t>(i0),
                       static_cast<uint32_t>(n + i0), a, b, c);
      join(i0, a, b, c);
    }
    return;
  }
  uint64_t v[kChunk];
  for (uint64_t i0 = 0; i0 < n; i0 += kChunk) {
    const size_t c = static_cast<size_t>(std::min<uint64_t>(kChunk, n - i0));
    for (size_t j = 0; j < c; ++j) {
      const uint64_t hi = original_stream_at(key, m, i0 + j);
      const uint64_t lo = original_stream_at(key, m, n + i0 + j);
      v[j] = (hi << 32) | lo;
    }
    sink(i0, static_cast<const uint64_t*>(v), c);
  }
}

// 8- and 16-bit bits. Original layout: JAX draws ceil(n * W / 32) words and
// views them as little-endian W-bit lanes. Partitionable: low W bits of the
// 32-bit output.
template <class T>
void gen_narrow_bits(Key key, T* out, uint64_t n, CounterLayout layout) {
  constexpr unsigned kWidth = 8 * sizeof(T);
  if (layout == CounterLayout::kPartitionable) {
    gen_bits32(key, n, layout, [out](uint64_t pos, const uint32_t* v, size_t c) {
      for (size_t j = 0; j < c; ++j) out[pos + j] = static_cast<T>(v[j]);
    });
    return;
  }
  constexpr uint64_t kPerWord = 32 / kWidth;
  const uint64_t words = (n + kPerWord - 1) / kPerWord;
  auto sink = [out, n](uint64_t pos, const uint32_t* v, size_t c) {
    for (size_t j = 0; j < c; ++j) {
      const uint64_t first = (pos + j) * kPerWord;
      for (uint64_t s = 0; s < kPerWord && first + s < n; ++s) {
        out[first + s] = static_cast<T>(v[j] >> (kWidth * s));
      }
    }
  };
  original_stream(key, words, sink);
}

// ---------------------------------------------------------------------------
// Float helpers
// ---------------------------------------------------------------------------

// Giles' single-precision erfinv coefficients (highest degree first), for
// w < 5 (with w - 2.5) and w >= 5 (with sqrt(w) - 3).
constexpr float kErfinvF32Small[9] = {
    2.81022636e-08f,  3.43273939e-07f, -3.5233877e-06f,
    -4.39150654e-06f, 0.00021858087f,  -0.00125372503f,
    -0.00417768164f,  0.246640727f,    1.50140941f};
constexpr float kErfinvF32Large[9] = {
    -0.000200214257f, 0.000100950558f, 0.00134934322f,
    -0.00367342844f,  0.00573950773f,  -0.0076224613f,
    0.00943887047f,   1.00167406f,     2.83297682f};

// Giles' double-precision erfinv coefficients (highest degree first), for
// w < 6.25 (w - 3.125), w < 16 (sqrt(w) - 3.25) and w >= 16 (sqrt(w) - 5).
constexpr double kErfinvF64Small[23] = {
    -3.6444120640178196996e-21, -1.685059138182016589e-19,
    1.2858480715256400167e-18,  1.115787767802518096e-17,
    -1.333171662854620906e-16,  2.0972767875968561637e-17,
    6.6376381343583238325e-15,  -4.0545662729752068639e-14,
    -8.1519341976054721522e-14, 2.6335093153082322977e-12,
    -1.2975133253453532498e-11, -5.4154120542946279317e-11,
    1.051212273321532285e-09,   -4.1126339803469836976e-09,
    -2.9070369957882005086e-08, 4.2347877827932403518e-07,
    -1.3654692000834678645e-06, -1.3882523362786468719e-05,
    0.0001867342080340571352,   -0.00074070253416626697512,
    -0.0060336708714301490533,  0.24015818242558961693,
    1.6536545626831027356};
constexpr double kErfinvF64Medium[19] = {
    2.2137376921775787049e-09,  9.0756561938885390979e-08,
    -2.7517406297064545428e-07, 1.8239629214389227755e-08,
    1.5027403968909827627e-06,  -4.013867526981545969e-06,
    2.9234449089955446044e-06,  1.2475304481671778723e-05,
    -4.7318229009055733981e-05, 6.8284851459573175448e-05,
    2.4031110387097893999e-05,  -0.0003550375203628474796,
    0.00095328937973738049703,  -0.0016882755560235047313,
    0.0024914420961078508066,   -0.0037512085075692412107,
    0.005370914553590063617,    1.0052589676941592334,
    3.0838856104922207635};
constexpr double kErfinvF64Large[17] = {
    -2.7109920616438573243e-11, -2.5556418169965252055e-10,
    1.5076572693500548083e-09,  -3.7894654401267369937e-09,
    7.6157012080783393804e-09,  -1.4960026627149240478e-08,
    2.9147953450901080826e-08,  -6.7711997758452339498e-08,
    2.2900482228026654717e-07,  -9.9298272942317002539e-07,
    4.5260625972231537039e-06,  -1.9681778105531670567e-05,
    7.5995277030017761139e-05,  -0.00021503011930044477347,
    -0.00013871931833623122026, 1.0103004648645343977,
    4.8499064014085844221};

template <class T, size_t N>
TLALOC_RNG_INLINE T horner(const T (&c)[N], T w) noexcept {
  T p = c[0];
  for (size_t i = 1; i < N; ++i) p = c[i] + p * w;
  return p;
}

// float32(sqrt(2)) and float64(sqrt(2)), as JAX's np.array(np.sqrt(2), dtype).
constexpr float kSqrt2F = 1.41421356237309504880f;
constexpr double kSqrt2D = 1.41421356237309504880;

}  // namespace

// ---------------------------------------------------------------------------
// Block function
// ---------------------------------------------------------------------------

Counter threefry2x32(Key key, Counter counter) noexcept {
  uint32_t x0 = counter[0];
  uint32_t x1 = counter[1];
  block20(key[0], key[1], x0, x1);
  return {x0, x1};
}

void threefry2x32_fill(Key key, const uint32_t* x0, const uint32_t* x1,
                       uint32_t* y0, uint32_t* y1, size_t n) noexcept {
  const uint32_t k0 = key[0];
  const uint32_t k1 = key[1];
  for (size_t i = 0; i < n; ++i) {
    uint32_t a = x0[i];
    uint32_t b = x1[i];
    block20(k0, k1, a, b);
    y0[i] = a;
    y1[i] = b;
  }
}

void threefry2x32_array(Key key, const uint32_t* count, uint32_t* out,
                        size_t m) noexcept {
  const size_t half = (m + 1) / 2;
  const uint32_t k0 = key[0];
  const uint32_t k1 = key[1];
  for (size_t i = 0; i < half; ++i) {
    const bool has_second = i + half < m;
    uint32_t a = count[i];
    uint32_t b = has_second ? count[i + half] : 0u;
    block20(k0, k1, a, b);
    out[i] = a;
    if (has_second) out[i + half] = b;
  }
}

// ---------------------------------------------------------------------------
// Keys
// ---------------------------------------------------------------------------

Key key_from_seed(uint64_t seed) noexcept {
  return {static_cast<uint32_t>(seed >> 32), static_cast<uint32_t>(seed)};
}

Key key_from_seed_x32(int64_t seed) noexcept {
  return {0u, static_cast<uint32_t>(static_cast<uint64_t>(seed))};
}

void split_into(Key key, Key* out, size_t num, CounterLayout layout) noexcept {
  if (layout == CounterLayout::kPartitionable) {
    auto f = [out](uint64_t pos, const uint32_t* a, const uint32_t* b,
                   size_t c) {
      for (size_t j = 0; j < c; ++j) out[pos + j] = {a[j], b[j]};
    };
    partitionable_lanes(key, num, f);
    return;
  }
  // The keys are consecutive pairs of threefry_2x32(key, iota(2 * num)).
  auto sink = [out](uint64_t pos, const uint32_t* v, size_t c) {
    for (size_t j = 0; j < c; ++j) {
      const uint64_t p = pos + j;
      out[p / 2][p % 2] = v[j];
    }
  };
  iota_stream(key, 2 * static_cast<uint64_t>(num), 0, sink);
}

std::vector<Key> split(Key key, size_t num, CounterLayout layout) {
  std::vector<Key> keys(num);
  split_into(key, keys.data(), num, layout);
  return keys;
}

Key fold_in(Key key, uint32_t data) noexcept {
  // threefry_2x32(key, threefry_seed(data)) with threefry_seed(data) = [0, data].
  const Counter r = threefry2x32(key, {0u, data});
  return {r[0], r[1]};
}

// ---------------------------------------------------------------------------
// Raw bits
// ---------------------------------------------------------------------------

void random_bits8(Key key, uint8_t* out, size_t n,
                  CounterLayout layout) noexcept {
  gen_narrow_bits(key, out, n, layout);
}

void random_bits16(Key key, uint16_t* out, size_t n,
                   CounterLayout layout) noexcept {
  gen_narrow_bits(key, out, n, layout);
}

void random_bits32(Key key, uint32_t* out, size_t n,
                   CounterLayout layout) noexcept {
  gen_bits32(key, n, layout, [out](uint64_t pos, const uint32_t* v, size_t c) {
    std::copy(v, v + c, out + pos);
  });
}

void random_bits64(Key key, uint64_t* out, size_t n,
                   CounterLayout layout) noexcept {
  gen_bits64(key, n, layout, [out](uint64_t pos, const uint64_t* v, size_t c) {
    std::copy(v, v + c, out + pos);
  });
}

// ---------------------------------------------------------------------------
// Scalar conversions
// ---------------------------------------------------------------------------

float uniform_from_bits(uint32_t bits, float lo, float hi) noexcept {
  // 23 mantissa bits with the exponent of 1.0f: a float in [1, 2).
  const uint32_t mant = (bits >> 9) | std::bit_cast<uint32_t>(1.0f);
  const float f = std::bit_cast<float>(mant) - 1.0f;
  const float span = hi - lo;
  const float scaled = f * span;
  const float v = scaled + lo;
  return std::max(lo, v);
}

double uniform_from_bits(uint64_t bits, double lo, double hi) noexcept {
  const uint64_t mant = (bits >> 12) | std::bit_cast<uint64_t>(1.0);
  const double f = std::bit_cast<double>(mant) - 1.0;
  const double span = hi - lo;
  const double scaled = f * span;
  const double v = scaled + lo;
  return std::max(lo, v);
}

float erfinv(float x) noexcept {
  if (std::fabs(x) == 1.0f) return x * std::numeric_limits<float>::infinity();
  const float w = -std::log1p(-x * x);
  float p;
  if (w < 5.0f) {
    p = horner(kErfinvF32Small, w - 2.5f);
  } else {
    p = horner(kErfinvF32Large, std::sqrt(w) - 3.0f);
  }
  return p * x;
}

double erfinv(double x) noexcept {
  if (std::fabs(x) == 1.0) return x * std::numeric_limits<double>::infinity();
  const double w = -std::log1p(-x * x);
  double p;
  if (w < 6.25) {
    p = horner(kErfinvF64Small, w - 3.125);
  } else if (w < 16.0) {
    p = horner(kErfinvF64Medium, std::sqrt(w) - 3.25);
  } else {
    p = horner(kErfinvF64Large, std::sqrt(w) - 5.0);
  }
  return p * x;
}

float normal_from_bits(uint32_t bits) noexcept {
  const float lo = std::nextafter(-1.0f, 0.0f);
  const float u = uniform_from_bits(bits, lo, 1.0f);
  return kSqrt2F * erfinv(u);
}

double normal_from_bits(uint64_t bits) noexcept {
  const double lo = std::nextafter(-1.0, 0.0);
  const double u = uniform_from_bits(bits, lo, 1.0);
  return kSqrt2D * erfinv(u);
}

// ---------------------------------------------------------------------------
// Array-level sampling
// ---------------------------------------------------------------------------

void uniform_f32(Key key, float lo, float hi, float* out, size_t n,
                 CounterLayout layout) noexcept {
  gen_bits32(key, n, layout,
             [out, lo, hi](uint64_t pos, const uint32_t* v, size_t c) {
               for (size_t j = 0; j < c; ++j) {
                 out[pos + j] = uniform_from_bits(v[j], lo, hi);
               }
             });
}

void uniform_f64(Key key, double lo, double hi, double* out, size_t n,
                 CounterLayout layout) noexcept {
  gen_bits64(key, n, layout,
             [out, lo, hi](uint64_t pos, const uint64_t* v, size_t c) {
               for (size_t j = 0; j < c; ++j) {
                 out[pos + j] = uniform_from_bits(v[j], lo, hi);
               }
             });
}

void normal_f32(Key key, float* out, size_t n, CounterLayout layout) noexcept {
  gen_bits32(key, n, layout, [out](uint64_t pos, const uint32_t* v, size_t c) {
    for (size_t j = 0; j < c; ++j) out[pos + j] = normal_from_bits(v[j]);
  });
}

void normal_f64(Key key, double* out, size_t n, CounterLayout layout) noexcept {
  gen_bits64(key, n, layout, [out](uint64_t pos, const uint64_t* v, size_t c) {
    for (size_t j = 0; j < c; ++j) out[pos + j] = normal_from_bits(v[j]);
  });
}

void bernoulli(Key key, float p, bool* out, size_t n,
               CounterLayout layout) noexcept {
  gen_bits32(key, n, layout, [out, p](uint64_t pos, const uint32_t* v, size_t c) {
    for (size_t j = 0; j < c; ++j) {
      out[pos + j] = uniform_from_bits(v[j], 0.0f, 1.0f) < p;
    }
  });
}

void bernoulli(Key key, float p, uint8_t* out, size_t n,
               CounterLayout layout) noexcept {
  gen_bits32(key, n, layout, [out, p](uint64_t pos, const uint32_t* v, size_t c) {
    for (size_t j = 0; j < c; ++j) {
      out[pos + j] = uniform_from_bits(v[j], 0.0f, 1.0f) < p ? 1 : 0;
    }
  });
}

void bernoulli_f64(Key key, double p, bool* out, size_t n,
                   CounterLayout layout) noexcept {
  gen_bits64(key, n, layout, [out, p](uint64_t pos, const uint64_t* v, size_t c) {
    for (size_t j = 0; j < c; ++j) {
      out[pos + j] = uniform_from_bits(v[j], 0.0, 1.0) < p;
    }
  });
}

void randint_i32(Key key, int32_t lo, int32_t hi, int32_t* out, size_t n,
                 CounterLayout layout) noexcept {
  // span = hi - lo in uint32 (exact for any int32 pair with hi > lo); JAX
  // uses span = 1 when hi <= lo so that lo is returned.
  const uint32_t span = hi <= lo ? 1u
                                 : static_cast<uint32_t>(hi) -
                                       static_cast<uint32_t>(lo);
  // multiplier = 2^32 mod span computed as JAX does, in wrapping uint32:
  // ((2^16 mod span)^2) mod span. (For span > 2^16 the square wraps to 0.)
  uint32_t multiplier = (uint32_t{1} << 16) % span;
  multiplier = (multiplier * multiplier) % span;

  Key keys[2];
  split_into(key, keys, 2, layout);
  // Pass 1: higher bits (first key) mod span, parked in the output buffer.
  gen_bits32(keys[0], n, layout,
             [out, span](uint64_t pos, const uint32_t* v, size_t c) {
               for (size_t j = 0; j < c; ++j) {
                 out[pos + j] = static_cast<int32_t>(v[j] % span);
               }
             });
  // Pass 2: combine with the lower bits (second key).
  const uint32_t ulo = static_cast<uint32_t>(lo);
  gen_bits32(keys[1], n, layout,
             [out, span, multiplier, ulo](uint64_t pos, const uint32_t* v,
                                          size_t c) {
               for (size_t j = 0; j < c; ++j) {
                 const uint32_t high = static_cast<uint32_t>(out[pos + j]);
                 const uint32_t offset =
                     (high * multiplier + v[j] % span) % span;
                 out[pos + j] = static_cast<int32_t>(ulo + offset);
               }
             });
}

void randint_i64(Key key, int64_t lo, int64_t hi, int64_t* out, size_t n,
                 CounterLayout layout) noexcept {
  const uint64_t span = hi <= lo ? 1u
                                 : static_cast<uint64_t>(hi) -
                                       static_cast<uint64_t>(lo);
  uint64_t multiplier = (uint64_t{1} << 32) % span;
  multiplier = (multiplier * multiplier) % span;

  Key keys[2];
  split_into(key, keys, 2, layout);
  gen_bits64(keys[0], n, layout,
             [out, span](uint64_t pos, const uint64_t* v, size_t c) {
               for (size_t j = 0; j < c; ++j) {
                 out[pos + j] = static_cast<int64_t>(v[j] % span);
               }
             });
  const uint64_t ulo = static_cast<uint64_t>(lo);
  gen_bits64(keys[1], n, layout,
             [out, span, multiplier, ulo](uint64_t pos, const uint64_t* v,
                                          size_t c) {
               for (size_t j = 0; j < c; ++j) {
                 const uint64_t high = static_cast<uint64_t>(out[pos + j]);
                 const uint64_t offset =
                     (high * multiplier + v[j] % span) % span;
                 out[pos + j] = static_cast<int64_t>(ulo + offset);
               }
             });
}

}  // namespace tlaloc::detail::rng
