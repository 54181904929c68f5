// Threefry-2x32 (20 rounds) counter-based random generation, bit-compatible
// with JAX's default "threefry2x32" PRNG implementation.
//
// Private, tensor-free core: plain std types and raw buffers only.
//
// References
//   * J. K. Salmon, M. A. Moraes, R. O. Dror, D. E. Shaw, "Parallel random
//     numbers: as easy as 1, 2, 3", SC'11 (Threefry-2x32 block function).
//   * JAX: jax/_src/prng.py (threefry_seed, threefry_split, threefry_fold_in,
//     threefry_random_bits) and jax/_src/random.py (uniform, normal, randint,
//     bernoulli).
//   * M. Giles, "Approximating the erfinv function", GPU Computing Gems Jade
//     Edition (2011) -- the erfinv approximation XLA uses for erf_inv.
//
// JAX modes
//   JAX has two ways of laying out counters, selected by the config flag
//   `jax_threefry_partitionable`:
//     * CounterLayout::kOriginal      -- flag False (JAX's default before
//       v0.5.0; all of JAX's published regression values use it).
//     * CounterLayout::kPartitionable -- flag True (JAX's default from v0.5.0).
//   Every function that depends on the layout takes it as a trailing
//   argument defaulting to kOriginal. fold_in and key_from_seed do not depend
//   on it.
//
//   JAX's results also depend on `jax_enable_x64` (whether 64-bit types
//   exist). The functions here are named after the type they produce; see the
//   comment on each for which JAX mode it corresponds to.
//
// Shapes
//   The array functions fill n values as JAX would for shape (n,). For any
//   other shape, pass n = prod(shape): in both layouts JAX's values depend
//   only on the row-major flat index, so the buffer is the row-major
//   flattening of JAX's array.
//
// Floating point
//   threefry.cpp turns off FMA contraction so that results are identical
//   across compilers and flags (checked with GCC 12 and Clang 14, -O0 to
//   -O3 -march=native). Clang's -ffp-contract=fast overrides that pragma, so
//   do not build this file with it. JAX's own float results can differ from
//   these in the last bit: XLA uses its own log1p inside erf_inv and
//   may fuse multiply-adds.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tlaloc::detail::rng {

/// A threefry key: JAX's uint32[2] key data (`jax.random.key_data(key)`).
using Key = std::array<uint32_t, 2>;
/// One threefry counter block (two 32-bit words).
using Counter = std::array<uint32_t, 2>;

/// How counters are assigned to outputs (see the file comment).
enum class CounterLayout : uint8_t {
  kOriginal,       ///< jax_threefry_partitionable=False
  kPartitionable,  ///< jax_threefry_partitionable=True
};

// ---------------------------------------------------------------------------
// Block function
// ---------------------------------------------------------------------------

/// Threefry-2x32 with 20 rounds applied to one counter block. Matches the
/// Random123 reference `threefry2x32(ctr, key)` and JAX's threefry2x32_p.
Counter threefry2x32(Key key, Counter counter) noexcept;

/// Batched block function: (y0[i], y1[i]) = threefry2x32(key, {x0[i], x1[i]})
/// for i in [0, n). Outputs may alias the inputs exactly (in-place), but must
/// not partially overlap them.
void threefry2x32_fill(Key key, const uint32_t* x0, const uint32_t* x1,
                       uint32_t* y0, uint32_t* y1, size_t n) noexcept;

/// JAX's `prng.threefry_2x32(key, count)` on a flat array of m counts: the
/// counts are padded with one zero when m is odd, split into two halves that
/// form the two counter words, hashed, and the two output halves concatenated
/// (the pad dropped). `out` may be the same buffer as `count`.
void threefry2x32_array(Key key, const uint32_t* count, uint32_t* out,
                        size_t m) noexcept;

// ---------------------------------------------------------------------------
// Keys
// ---------------------------------------------------------------------------

/// `jax.random.PRNGKey(seed)` / `key_data(jax.random.key(seed))` with
/// jax_enable_x64=True: {seed >> 32, seed & 0xffffffff}. A negative int64
/// seed converts to uint64 modulo 2^64, which is what JAX does (seed -1 gives
/// {0xffffffff, 0xffffffff}). Seeds in [0, 2^32) give {0, seed} in both JAX
/// modes, e.g. 0 -> {0, 0} and 42 -> {0, 42}.
Key key_from_seed(uint64_t seed) noexcept;

/// `jax.random.PRNGKey(seed)` with jax_enable_x64=False (JAX's default): the
/// seed is reduced to 32 bits, so the key is {0, uint32(seed)} (seed -1 gives
/// {0, 0xffffffff}). JAX raises OverflowError for Python-int seeds outside
/// int32 under jit; outside jit it truncates the same way as here.
Key key_from_seed_x32(int64_t seed) noexcept;

/// `jax.random.split(key, num)`. With kOriginal, JAX needs 2*num < 2^32.
std::vector<Key> split(Key key, size_t num = 2,
                       CounterLayout layout = CounterLayout::kOriginal);
/// Same as split() but writes the num keys to `out`.
void split_into(Key key, Key* out, size_t num,
                CounterLayout layout = CounterLayout::kOriginal) noexcept;

/// `jax.random.fold_in(key, data)` (data is converted to uint32 by JAX, so a
/// negative int folds in as its two's-complement value). Same in both modes.
Key fold_in(Key key, uint32_t data) noexcept;

// ---------------------------------------------------------------------------
// Raw bits: `jax.random.bits(key, (n,), uintW)` / `random._random_bits`
// ---------------------------------------------------------------------------

void random_bits8(Key key, uint8_t* out, size_t n,
                  CounterLayout layout = CounterLayout::kOriginal) noexcept;
void random_bits16(Key key, uint16_t* out, size_t n,
                   CounterLayout layout = CounterLayout::kOriginal) noexcept;
void random_bits32(Key key, uint32_t* out, size_t n,
                   CounterLayout layout = CounterLayout::kOriginal) noexcept;
/// 64-bit bits as JAX produces them with jax_enable_x64=True. (With x64
/// disabled JAX converts these to uint32, i.e. keeps the low 32 bits.)
void random_bits64(Key key, uint64_t* out, size_t n,
                   CounterLayout layout = CounterLayout::kOriginal) noexcept;

// ---------------------------------------------------------------------------
// Scalar conversions (what JAX does to each element)
// ---------------------------------------------------------------------------

/// JAX uniform: f = bitcast<float>((bits >> 9) | bits(1.0f)) - 1.0f in
/// [0, 1), then max(lo, f * (hi - lo) + lo). As in JAX, rounding can make the
/// result equal to `hi` for some (lo, hi) (e.g. [10, 20)); it is never below
/// lo.
float uniform_from_bits(uint32_t bits, float lo, float hi) noexcept;
/// Double version from 64 random bits: (bits >> 12) | bits(1.0).
double uniform_from_bits(uint64_t bits, double lo, double hi) noexcept;

/// Inverse error function as XLA computes erf_inv: Giles' single-precision
/// polynomial (float) and double-precision polynomial (double), with
/// w = -log1p(-x*x). Returns +-inf at +-1 and NaN outside [-1, 1].
float erfinv(float x) noexcept;
double erfinv(double x) noexcept;

/// JAX normal: u = uniform_from_bits(bits, nextafter(-1, 0), 1), then
/// sqrt(2) * erfinv(u), everything in the output precision.
float normal_from_bits(uint32_t bits) noexcept;
double normal_from_bits(uint64_t bits) noexcept;

// ---------------------------------------------------------------------------
// Array-level sampling: fill n values, equal to the JAX call on shape (n,)
// ---------------------------------------------------------------------------

/// `jax.random.uniform(key, (n,), float32, lo, hi)`.
void uniform_f32(Key key, float lo, float hi, float* out, size_t n,
                 CounterLayout layout = CounterLayout::kOriginal) noexcept;
/// `jax.random.uniform(key, (n,), float64, lo, hi)` (x64 enabled).
void uniform_f64(Key key, double lo, double hi, double* out, size_t n,
                 CounterLayout layout = CounterLayout::kOriginal) noexcept;

/// `jax.random.normal(key, (n,), float32)`.
void normal_f32(Key key, float* out, size_t n,
                CounterLayout layout = CounterLayout::kOriginal) noexcept;
/// `jax.random.normal(key, (n,), float64)` (x64 enabled).
void normal_f64(Key key, double* out, size_t n,
                CounterLayout layout = CounterLayout::kOriginal) noexcept;

/// `jax.random.bernoulli(key, p, (n,))` with a float32 p (JAX's behaviour
/// for a Python-float p when x64 is disabled): uniform_f32(0, 1) < p.
void bernoulli(Key key, float p, bool* out, size_t n,
               CounterLayout layout = CounterLayout::kOriginal) noexcept;
/// Same, writing 0/1 bytes.
void bernoulli(Key key, float p, uint8_t* out, size_t n,
               CounterLayout layout = CounterLayout::kOriginal) noexcept;
/// Bernoulli with a float64 p (JAX with x64 enabled): uniform_f64 < p.
void bernoulli_f64(Key key, double p, bool* out, size_t n,
                   CounterLayout layout = CounterLayout::kOriginal) noexcept;

/// `jax.random.randint(key, (n,), lo, hi, int32)`: values in [lo, hi); lo
/// when hi <= lo. Same algorithm as JAX: split the key in two, draw 32 bits
/// from each half, and combine them with span = hi - lo and
/// multiplier = ((2^16 mod span)^2 mod 2^32) mod span, all in wrapping uint32
/// arithmetic, so the result is exactly JAX's (including its slight bias for
/// spans that are not powers of two). JAX also accepts a maxval just past the
/// dtype's range (2^31 for int32, so that INT32_MAX can be drawn); an int32
/// `hi` cannot express that, so that case is not provided.
void randint_i32(Key key, int32_t lo, int32_t hi, int32_t* out, size_t n,
                 CounterLayout layout = CounterLayout::kOriginal) noexcept;
/// `jax.random.randint(key, (n,), lo, hi, int64)` with x64 enabled (64-bit
/// bits, multiplier from 2^32, wrapping uint64 arithmetic).
void randint_i64(Key key, int64_t lo, int64_t hi, int64_t* out, size_t n,
                 CounterLayout layout = CounterLayout::kOriginal) noexcept;

}  // namespace tlaloc::detail::rng
