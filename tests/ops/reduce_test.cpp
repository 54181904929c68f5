// Tests for the reductions (sum, mean, prod, max, min, logsumexp, var, std, any, all),
// argmax/argmin and the scans cumsum/cumprod. Expected values are literals worked out
// by hand or naive loops in double written here (one generic reduce-over-axes helper).
#include <gtest/gtest.h>

#include <tlaloc/derivatives.hpp>
#include <tlaloc/tlaloc.hpp>

#include "support/expect_error.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace tl = tlaloc;

namespace {

using tltest::expect_error;

using Ints = std::vector<std::int64_t>;
using Doubles = std::vector<double>;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::int64_t count(const tl::Shape& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

// xorshift64: fixed sequences, independent of the standard library's distributions.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : s_(seed * 0x9E3779B97F4A7C15ull + 1) {}
  std::uint64_t next() {
    s_ ^= s_ << 13;
    s_ ^= s_ >> 7;
    s_ ^= s_ << 17;
    return s_;
  }
  double uniform() { return double(next() >> 11) * 0x1p-53; }  // [0, 1)
  std::int64_t below(std::int64_t n) { return std::int64_t(next() % std::uint64_t(n)); }

 private:
  std::uint64_t s_;
};

// general: spread values; product: factors whose products stay exact and in range;
// ties: few distinct values, so arg-reductions must pick the first of equal extremes.
enum class Values { general, product, ties };

// Values every dtype stores exactly (multiples of 1/64 within [-2, 2] for floats).
tl::Tensor make_input(const tl::Shape& s, tl::DType t, Values kind, std::uint64_t seed) {
  static const double float_factors[] = {1, -1, 2, 0.5, -1};
  static const double int_factors[] = {1, -1, 2, 1, -1};
  static const double u8_factors[] = {1, 2, 1, 1};
  Rng rng(seed);
  Doubles v(std::size_t(count(s)));
  for (auto& e : v) {
    if (t == tl::DType::boolean) e = double(rng.below(2));
    else if (kind == Values::product && tl::is_floating(t)) e = float_factors[rng.below(5)];
    else if (kind == Values::product && tl::is_unsigned(t))
      e = u8_factors[rng.below(4)];
    else if (kind == Values::product) e = int_factors[rng.below(5)];
    else if (kind == Values::ties)
      e = tl::is_floating(t) ? double(rng.below(9) - 4) / 2
                             : double(rng.below(5) - 2) + (tl::is_unsigned(t) ? 2 : 0);
    else if (tl::is_unsigned(t))
      e = double(rng.below(11));
    else if (tl::is_integral(t)) e = double(rng.below(11) - 5);
    else e = double(rng.below(257) - 128) / 64.0;
  }
  return tl::tensor(v, s).astype(t);
}

// ---- the reference: groups of elements per output position ----------------------------------

// The elements of each output position of a reduction over the axes marked in `reduced`,
// in row-major order.
std::vector<Doubles> groups_of(const Doubles& v, const tl::Shape& s, const std::vector<bool>& reduced) {
  std::int64_t groups = 1;
  for (std::size_t d = 0; d < s.size(); ++d)
    if (!reduced[d]) groups *= s[d];
  std::vector<Doubles> g(static_cast<std::size_t>(groups));
  for (std::int64_t i = 0; i < count(s); ++i) {
    std::int64_t rem = i, out = 0, scale = 1;
    for (std::size_t d = s.size(); d-- > 0;) {
      const std::int64_t c = rem % s[d];
      rem /= s[d];
      if (!reduced[d]) {
        out += c * scale;
        scale *= s[d];
      }
    }
    g[std::size_t(out)].push_back(v[std::size_t(i)]);
  }
  return g;
}

tl::Shape reduced_shape(const tl::Shape& s, const std::vector<bool>& reduced, bool keepdims) {
  tl::Shape out;
  for (std::size_t d = 0; d < s.size(); ++d)
    if (!reduced[d]) out.push_back(s[d]);
    else if (keepdims) out.push_back(1);
  return out;
}

double lowest_of(tl::DType t) {
  switch (t) {
    case tl::DType::i8: return -128;
    case tl::DType::i16:
      return -32768;
    case tl::DType::i32: return double(std::numeric_limits<std::int32_t>::min());
    case tl::DType::i64: return double(std::numeric_limits<std::int64_t>::min());
    case tl::DType::u8:
    case tl::DType::u16:
    case tl::DType::u32:
    case tl::DType::u64:
    case tl::DType::boolean: return 0;
    default: return -kInf;
  }
}
double highest_of(tl::DType t) {
  switch (t) {
    case tl::DType::i8: return 127;
    case tl::DType::i16:
      return 32767;
    case tl::DType::i32: return double(std::numeric_limits<std::int32_t>::max());
    case tl::DType::i64: return double(std::numeric_limits<std::int64_t>::max());
    case tl::DType::u8: return 255;
    case tl::DType::u16:
      return 65535;
    case tl::DType::u32:
      return 4294967295.0;
    case tl::DType::u64:
      return 18446744073709551615.0;  // rounds to 2^64, as the result read as double
    case tl::DType::boolean: return 1;
    default: return kInf;
  }
}

double ref_sum(const Doubles& g) {
  double a = 0;
  for (double e : g) a += e;
  return a;
}
double ref_prod(const Doubles& g) {
  double a = 1;
  for (double e : g) a *= e;
  return a;
}
// NaN wins; an empty group gives the identity of the dtype.
double ref_max(const Doubles& g, tl::DType t) {
  double m = lowest_of(t);
  for (double e : g) {
    if (std::isnan(e)) return kNaN;
    m = std::max(m, e);
  }
  return m;
}
double ref_min(const Doubles& g, tl::DType t) {
  double m = highest_of(t);
  for (double e : g) {
    if (std::isnan(e)) return kNaN;
    m = std::min(m, e);
  }
  return m;
}
double ref_mean(const Doubles& g) { return ref_sum(g) / double(g.size()); }
double ref_var(const Doubles& g, std::int64_t ddof) {
  const double m = ref_mean(g);
  double ss = 0;
  for (double e : g) ss += (e - m) * (e - m);
  return ss / double(std::max<std::int64_t>(std::int64_t(g.size()) - ddof, 0));
}
double ref_logsumexp(const Doubles& g) {
  const double m = ref_max(g, tl::DType::f64);
  if (std::isnan(m) || std::isinf(m)) return m;
  double s = 0;
  for (double e : g) s += std::exp(e - m);
  return m + std::log(s);
}
double ref_any(const Doubles& g) { return std::any_of(g.begin(), g.end(), [](double e) { return e != 0; }); }
double ref_all(const Doubles& g) { return std::all_of(g.begin(), g.end(), [](double e) { return e != 0; }); }

// ---- comparison ------------------------------------------------------------------------------

// The reference value as the result dtype stores it.
double round_to(tl::DType t, double v) {
  switch (t) {
    case tl::DType::f32: return double(float(v));
    case tl::DType::bf16: return double(float(tl::bf16(float(v))));
    case tl::DType::f16: return double(float(tl::f16(float(v))));
    case tl::DType::boolean: return v != 0 ? 1 : 0;
    default: return v;
  }
}

// Relative tolerance for a result dtype: its rounding plus that of intermediate steps.
double tol_of(tl::DType t) {
  switch (t) {
    case tl::DType::f64: return 1e-12;
    case tl::DType::f32: return 2e-5;
    case tl::DType::bf16: return 2e-2;
    case tl::DType::f16: return 4e-3;
    default: return 0;
  }
}

::testing::AssertionResult matches(const tl::Tensor& got, const tl::Shape& shape, tl::DType dtype,
                                   const Doubles& want, double tol) {
  if (got.shape() != shape)
    return ::testing::AssertionFailure() << "shape " << tl::shape_string(got.shape()) << ", want "
                                         << tl::shape_string(shape);
  if (got.dtype() != dtype)
    return ::testing::AssertionFailure() << "dtype " << tl::dtype_name(got.dtype()) << ", want "
                                         << tl::dtype_name(dtype);
  const Doubles v = got.to_vector<double>();
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double w = round_to(dtype, want[i]);
    const bool ok = std::isnan(w)   ? std::isnan(v[i])
                    : std::isinf(w) ? v[i] == w
                                    : std::fabs(v[i] - w) <= tol * (1 + std::fabs(w));
    if (!ok) return ::testing::AssertionFailure() << "element " << i << " is " << v[i] << ", want " << w;
  }
  return ::testing::AssertionSuccess();
}
::testing::AssertionResult matches(const tl::Tensor& got, const tl::Shape& shape, tl::DType dtype,
                                   const Doubles& want) {
  return matches(got, shape, dtype, want, tol_of(dtype));
}


// Sets the thread count for one scope and restores it after.
class ThreadCount {
 public:
  explicit ThreadCount(int n) : saved_(tl::num_threads()) { tl::set_num_threads(n); }
  ~ThreadCount() { tl::set_num_threads(saved_); }
  ThreadCount(const ThreadCount&) = delete;
  ThreadCount& operator=(const ThreadCount&) = delete;

 private:
  int saved_;
};

// ---- the table of reductions -----------------------------------------------------------------

// u64 stays u64: i64 cannot hold it.
tl::DType widened(tl::DType t) { return tl::is_floating(t) || t == tl::DType::u64 ? t : tl::DType::i64; }
tl::DType same(tl::DType t) { return t; }
tl::DType floating(tl::DType t) { return tl::is_floating(t) ? t : tl::DType::f32; }
tl::DType boolean(tl::DType) { return tl::DType::boolean; }

struct ReduceCase {
  const char* name;
  std::function<tl::Tensor(const tl::Tensor&, const tl::Axes&, bool)> op;
  std::function<double(const Doubles&, tl::DType)> ref;
  tl::DType (*result)(tl::DType);
  Values values;
};

std::vector<ReduceCase> reduce_cases() {
  using A = const tl::Axes&;
  using T = const tl::Tensor&;
  using G = const Doubles&;
  return {
      {"sum", [](T x, A a, bool k) { return tl::sum(x, a, k); }, [](G g, tl::DType) { return ref_sum(g); },
       widened, Values::general},
      {"prod", [](T x, A a, bool k) { return tl::prod(x, a, k); }, [](G g, tl::DType) { return ref_prod(g); },
       widened, Values::product},
      {"max", [](T x, A a, bool k) { return tl::max(x, a, k); }, ref_max, same, Values::general},
      {"min", [](T x, A a, bool k) { return tl::min(x, a, k); }, ref_min, same, Values::general},
      {"mean", [](T x, A a, bool k) { return tl::mean(x, a, k); }, [](G g, tl::DType) { return ref_mean(g); },
       floating, Values::general},
      {"var", [](T x, A a, bool k) { return tl::var(x, a, k); }, [](G g, tl::DType) { return ref_var(g, 0); },
       floating, Values::general},
      {"var_ddof1", [](T x, A a, bool k) { return tl::var(x, a, k, 1); },
       [](G g, tl::DType) { return ref_var(g, 1); }, floating, Values::general},
      {"std", [](T x, A a, bool k) { return tl::std(x, a, k); },
       [](G g, tl::DType) { return std::sqrt(ref_var(g, 0)); }, floating, Values::general},
      {"std_ddof1", [](T x, A a, bool k) { return tl::std(x, a, k, 1); },
       [](G g, tl::DType) { return std::sqrt(ref_var(g, 1)); }, floating, Values::general},
      {"logsumexp", [](T x, A a, bool k) { return tl::logsumexp(x, a, k); },
       [](G g, tl::DType) { return ref_logsumexp(g); }, floating, Values::general},
      {"any", [](T x, A a, bool k) { return tl::any(x, a, k); }, [](G g, tl::DType) { return ref_any(g); },
       boolean, Values::ties},
      {"all", [](T x, A a, bool k) { return tl::all(x, a, k); }, [](G g, tl::DType) { return ref_all(g); },
       boolean, Values::ties},
  };
}

// Runs every case over every subset of the axes of `shape`, written as positive axes,
// as negative axes in reverse order, and (for all axes) as Axes{}.
void check_every_subset(const tl::Shape& shape) {
  const auto rank = std::int64_t(shape.size());
  std::uint64_t seed = 1;
  for (const ReduceCase& c : reduce_cases()) {
    for (tl::DType t : tl::all_dtypes) {
      const tl::Tensor x = make_input(shape, t, c.values, seed++);
      const Doubles xv = x.to_vector<double>();
      for (int mask = 0; mask < (1 << rank); ++mask) {
        std::vector<bool> reduced(shape.size(), false);
        Ints pos, neg;
        for (std::int64_t d = 0; d < rank; ++d)
          if ((mask >> d) & 1) {
            reduced[std::size_t(d)] = true;
            pos.push_back(d);
            neg.insert(neg.begin(), d - rank);
          }
        Doubles want;
        for (const Doubles& g : groups_of(xv, shape, reduced)) want.push_back(c.ref(g, t));
        std::vector<tl::Axes> forms{tl::Axes(pos), tl::Axes(neg)};
        if (mask == (1 << rank) - 1) forms.emplace_back();
        for (bool keepdims : {false, true})
          for (const tl::Axes& axes : forms)
            EXPECT_TRUE(matches(c.op(x, axes, keepdims), reduced_shape(shape, reduced, keepdims), c.result(t), want))
                << c.name << " of " << tl::dtype_name(t) << tl::shape_string(shape) << " over "
                << tl::shape_string(axes.all() ? Ints{} : axes.list()) << (axes.all() ? " (all)" : "")
                << " keepdims " << keepdims;
      }
    }
  }
}

// ---- literals --------------------------------------------------------------------------------

std::vector<double> vals(const tl::Tensor& t) { return t.to_vector<double>(); }

TEST(ReduceLiteral, SmallMatrix) {
  const auto x = tl::tensor({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {2, 3});
  EXPECT_EQ(vals(tl::sum(x)), (Doubles{21}));
  EXPECT_EQ(tl::sum(x).shape(), tl::Shape{});
  EXPECT_EQ(vals(tl::sum(x, 0)), (Doubles{5, 7, 9}));
  EXPECT_EQ(vals(tl::sum(x, 1)), (Doubles{6, 15}));
  EXPECT_EQ(vals(tl::sum(x, -1)), (Doubles{6, 15}));
  EXPECT_EQ(tl::sum(x, 1, true).shape(), (tl::Shape{2, 1}));
  EXPECT_EQ(tl::sum(x, {}, true).shape(), (tl::Shape{1, 1}));
  EXPECT_EQ(vals(tl::mean(x, 1)), (Doubles{2, 5}));
  EXPECT_EQ(vals(tl::prod(x)), (Doubles{720}));
  EXPECT_EQ(vals(tl::prod(x, 0)), (Doubles{4, 10, 18}));
  EXPECT_EQ(vals(tl::max(x, 0)), (Doubles{4, 5, 6}));
  EXPECT_EQ(vals(tl::min(x, 1)), (Doubles{1, 4}));
  EXPECT_NEAR(tl::var(x).item<double>(), 17.5 / 6, 1e-6);
  EXPECT_NEAR(tl::var(x, {}, false, 1).item<double>(), 3.5, 1e-6);
  EXPECT_NEAR(tl::std(x, {}, false, 1).item<double>(), std::sqrt(3.5), 1e-6);
  EXPECT_EQ(vals(tl::var(x, 0)), (Doubles{2.25, 2.25, 2.25}));
  EXPECT_EQ(vals(tl::cumsum(x, 1)), (Doubles{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(vals(tl::cumprod(x, 0)), (Doubles{1, 2, 3, 4, 10, 18}));
  EXPECT_EQ(vals(tl::cumsum(x, -2)), (Doubles{1, 2, 3, 5, 7, 9}));
}

TEST(ReduceLiteral, ArgReductionsPickTheFirstExtreme) {
  const auto x = tl::tensor({1.f, 5.f, 5.f, 7.f, 0.f, 7.f}, {2, 3});
  EXPECT_EQ(vals(tl::argmax(x, 1)), (Doubles{1, 0}));
  EXPECT_EQ(vals(tl::argmin(x, 1)), (Doubles{0, 1}));
  EXPECT_EQ(vals(tl::argmax(x, 0)), (Doubles{1, 0, 1}));
  EXPECT_EQ(vals(tl::argmin(x, -2)), (Doubles{0, 1, 0}));
  EXPECT_EQ(tl::argmax(x, 0, true).shape(), (tl::Shape{1, 3}));
  EXPECT_EQ(tl::argmax(x).item<std::int64_t>(), 3);
  EXPECT_EQ(tl::argmin(x).item<std::int64_t>(), 4);
  EXPECT_EQ(tl::argmax(x).dtype(), tl::DType::i64);
  EXPECT_EQ(tl::argmax(x).shape(), tl::Shape{});
}

TEST(ReduceLiteral, AnyAll) {
  const auto b = tl::tensor(std::vector<bool>{true, false, true, true, false, false}, {2, 3});
  EXPECT_EQ(vals(tl::any(b, 0)), (Doubles{1, 0, 1}));
  EXPECT_EQ(vals(tl::all(b, 0)), (Doubles{1, 0, 0}));
  EXPECT_EQ(vals(tl::all(b, 1)), (Doubles{0, 0}));
  EXPECT_EQ(vals(tl::any(b, 1)), (Doubles{1, 1}));
  // NaN is non-zero, so it counts as true.
  const auto f = tl::tensor({kNaN, 0.0}, {2});
  EXPECT_TRUE(tl::any(f).item<bool>());
  EXPECT_FALSE(tl::all(f).item<bool>());
  EXPECT_TRUE(tl::all(tl::tensor({kNaN, 2.0}, {2})).item<bool>());
}

// Integer sums widen to i64 before accumulating, so no element type wraps.
TEST(ReduceLiteral, IntegerSumsWidenBeforeAccumulating) {
  const std::int32_t big = std::numeric_limits<std::int32_t>::max();
  const auto i32 = tl::tensor(std::vector<std::int32_t>{big, big, big});
  EXPECT_EQ(tl::sum(i32).dtype(), tl::DType::i64);
  EXPECT_EQ(tl::sum(i32).item<std::int64_t>(), 3 * std::int64_t(big));
  EXPECT_EQ(tl::cumsum(i32, 0).to_vector<std::int64_t>(), (Ints{big, 2 * std::int64_t(big), 3 * std::int64_t(big)}));
  const auto i8 = tl::tensor(std::vector<std::int8_t>{100, 100, 100});
  EXPECT_EQ(tl::sum(i8).item<std::int64_t>(), 300);
  EXPECT_EQ(tl::prod(i8).item<std::int64_t>(), 1000000);
  EXPECT_EQ(tl::cumprod(i8, 0).to_vector<std::int64_t>(), (Ints{100, 10000, 1000000}));
  const auto u8 = tl::tensor(std::vector<std::uint8_t>{200, 200});
  EXPECT_EQ(tl::sum(u8).item<std::int64_t>(), 400);
  EXPECT_EQ(tl::max(u8).dtype(), tl::DType::u8);
  EXPECT_EQ(tl::max(u8).item<std::int64_t>(), 200);
  EXPECT_EQ(tl::mean(u8).dtype(), tl::DType::f32);
  EXPECT_EQ(tl::mean(u8).item<double>(), 200);
  const auto b = tl::tensor(std::vector<bool>{true, true, false, true});
  EXPECT_EQ(tl::sum(b).dtype(), tl::DType::i64);
  EXPECT_EQ(tl::sum(b).item<std::int64_t>(), 3);
  EXPECT_EQ(tl::cumsum(b, 0).to_vector<std::int64_t>(), (Ints{1, 2, 2, 3}));
}

// i16, u16 and u32 widen to i64 like the other integers; u64, which i64 cannot hold,
// accumulates in u64 and wraps modulo 2^64.
TEST(ReduceLiteral, NewIntegerTypes) {
  const auto u32 = tl::tensor(std::vector<std::uint32_t>{4294967295u, 1, 4294967295u});
  EXPECT_EQ(tl::sum(u32).dtype(), tl::DType::i64);
  EXPECT_EQ(tl::sum(u32).item<std::int64_t>(), 8589934591);
  // 3 * 2^32: it would wrap to 0 in u32.
  EXPECT_EQ(tl::prod(tl::tensor(std::vector<std::uint32_t>{65536, 65536, 3})).item<std::int64_t>(),
            12884901888);
  EXPECT_EQ(tl::max(u32).item<std::uint32_t>(), 4294967295u);
  EXPECT_EQ(tl::min(u32).item<std::uint32_t>(), 1u);
  EXPECT_EQ(tl::argmin(u32).item<std::int64_t>(), 1);
  EXPECT_EQ(tl::mean(u32).dtype(), tl::DType::f32);
  const auto i16 = tl::tensor(std::vector<std::int16_t>{32767, 1, -2});
  EXPECT_EQ(tl::sum(i16).item<std::int64_t>(), 32766);
  EXPECT_EQ(tl::cumsum(i16, 0).to_vector<std::int64_t>(), (Ints{32767, 32768, 32766}));
  EXPECT_EQ(tl::min(i16).item<std::int16_t>(), -2);
  EXPECT_EQ(tl::sum(tl::tensor(std::vector<std::uint16_t>{65535, 65535})).item<std::int64_t>(), 131070);
  const std::uint64_t big = std::numeric_limits<std::uint64_t>::max();
  const auto u64 = tl::tensor(std::vector<std::uint64_t>{big, 2, 1ull << 63});
  EXPECT_EQ(tl::sum(u64).dtype(), tl::DType::u64);
  EXPECT_EQ(tl::sum(u64).item<std::uint64_t>(), (1ull << 63) + 1);  // 2^64 - 1 + 2 + 2^63, mod 2^64
  EXPECT_EQ(tl::prod(tl::tensor(std::vector<std::uint64_t>{1ull << 32, 1ull << 32, 3})).item<std::uint64_t>(),
            0u);
  EXPECT_EQ(tl::cumsum(u64, 0).to_vector<std::uint64_t>(),
            (std::vector<std::uint64_t>{big, 1, (1ull << 63) + 1}));
  EXPECT_EQ(
      tl::cumprod(tl::tensor(std::vector<std::uint64_t>{1ull << 63, 2, 5}), 0).to_vector<std::uint64_t>(),
      (std::vector<std::uint64_t>{1ull << 63, 0, 0}));
  // Largest and smallest compare as unsigned: 2^64 - 1 is the maximum, not -1.
  EXPECT_EQ(tl::max(u64).item<std::uint64_t>(), big);
  EXPECT_EQ(tl::argmax(u64).item<std::int64_t>(), 0);
  EXPECT_EQ(tl::argmin(u64).item<std::int64_t>(), 1);
  // Columns: (2^64 - 1) + 3 wraps to 2.
  EXPECT_EQ(tl::sum(tl::reshape(tl::tensor(std::vector<std::uint64_t>{big, 1, 3, 4}), {2, 2}), 0)
                .to_vector<std::uint64_t>(),
            (std::vector<std::uint64_t>{2, 5}));
}

// ddof >= n divides by zero, as NumPy does (its max(n - ddof, 0)).
TEST(ReduceLiteral, VarDdof) {
  const auto x = tl::tensor({1.0, 2.0, 3.0, 4.0}, {4});
  EXPECT_DOUBLE_EQ(tl::var(x).item<double>(), 1.25);
  EXPECT_DOUBLE_EQ(tl::var(x, {}, false, 1).item<double>(), 5.0 / 3);
  EXPECT_DOUBLE_EQ(tl::var(x, {}, false, 2).item<double>(), 2.5);
  EXPECT_DOUBLE_EQ(tl::std(x, {}, false, 3).item<double>(), std::sqrt(5.0));
  EXPECT_EQ(tl::var(x, {}, false, 4).item<double>(), kInf);
  EXPECT_EQ(tl::var(x, {}, false, 5).item<double>(), kInf);
  EXPECT_TRUE(std::isnan(tl::var(tl::tensor({2.0}, {1}), {}, false, 1).item<double>()));
}

// ---- every axis subset, every dtype -----------------------------------------------------------

TEST(ReduceAxes, EverySubsetEveryDTypeMatchesNaiveLoops) { check_every_subset({3, 4, 5}); }

// Empty groups give the identities: sum 0, prod 1, max -inf (the dtype's lowest for integers),
// mean/var NaN, logsumexp -inf, any false, all true.
TEST(ReduceAxes, EverySubsetOfAnEmptyTensor) { check_every_subset({2, 0, 3}); }

TEST(ReduceAxes, EmptyIdentitiesLiteral) {
  const auto e = tl::zeros({0});
  EXPECT_EQ(tl::sum(e).item<double>(), 0);
  EXPECT_EQ(tl::prod(e).item<double>(), 1);
  EXPECT_EQ(tl::max(e).item<double>(), -kInf);
  EXPECT_EQ(tl::min(e).item<double>(), kInf);
  EXPECT_EQ(tl::logsumexp(e).item<double>(), -kInf);
  EXPECT_TRUE(std::isnan(tl::mean(e).item<double>()));
  EXPECT_FALSE(tl::any(e).item<bool>());
  EXPECT_TRUE(tl::all(e).item<bool>());
  EXPECT_EQ(tl::sum(tl::zeros({0}, tl::DType::i32)).dtype(), tl::DType::i64);
  EXPECT_EQ(tl::max(tl::zeros({0}, tl::DType::bf16)).item<double>(), -kInf);
  EXPECT_EQ(tl::min(tl::zeros({0}, tl::DType::f16)).item<double>(), kInf);
  EXPECT_EQ(tl::sum(tl::zeros({4, 0}), 1).shape(), (tl::Shape{4}));
  EXPECT_EQ(vals(tl::sum(tl::zeros({4, 0}), 1)), (Doubles{0, 0, 0, 0}));
  EXPECT_EQ(tl::sum(tl::zeros({4, 0}), 0).shape(), (tl::Shape{0}));
}

// A rank-0 tensor reduces over no axes: every reduction returns the element itself
// (var/std 0). An explicit axis is out of range, as in NumPy and JAX; the flattened
// argmax/argmin see one element.
TEST(ReduceAxes, RankZero) {
  for (tl::DType t : tl::all_dtypes) {
    const auto x = tl::scalar_tensor(t == tl::DType::boolean ? 1 : 3, t);
    const double v = t == tl::DType::boolean ? 1 : 3;
    for (bool k : {false, true}) {
      EXPECT_TRUE(matches(tl::sum(x, {}, k), {}, widened(t), {v})) << tl::dtype_name(t);
      EXPECT_TRUE(matches(tl::prod(x, {}, k), {}, widened(t), {v})) << tl::dtype_name(t);
      EXPECT_TRUE(matches(tl::max(x, {}, k), {}, t, {v})) << tl::dtype_name(t);
      EXPECT_TRUE(matches(tl::min(x, {}, k), {}, t, {v})) << tl::dtype_name(t);
      EXPECT_TRUE(matches(tl::mean(x, {}, k), {}, floating(t), {v})) << tl::dtype_name(t);
      EXPECT_TRUE(matches(tl::var(x, {}, k), {}, floating(t), {0})) << tl::dtype_name(t);
      EXPECT_TRUE(matches(tl::std(x, {}, k), {}, floating(t), {0})) << tl::dtype_name(t);
      EXPECT_TRUE(matches(tl::logsumexp(x, {}, k), {}, floating(t), {v})) << tl::dtype_name(t);
      EXPECT_TRUE(matches(tl::any(x, {}, k), {}, tl::DType::boolean, {1})) << tl::dtype_name(t);
      EXPECT_TRUE(matches(tl::all(x, {}, k), {}, tl::DType::boolean, {1})) << tl::dtype_name(t);
      EXPECT_TRUE(matches(tl::sum(x, tl::Axes(Ints{}), k), {}, widened(t), {v})) << tl::dtype_name(t);
    }
    EXPECT_TRUE(matches(tl::argmax(x), {}, tl::DType::i64, {0})) << tl::dtype_name(t);
    EXPECT_TRUE(matches(tl::argmin(x), {}, tl::DType::i64, {0})) << tl::dtype_name(t);
  }
  const auto s = tl::scalar_tensor(1.0, tl::DType::f32);
  expect_error<tl::AxisError>([&] { tl::sum(s, 0); }, "sum");
  expect_error<tl::AxisError>([&] { tl::argmax(s, 0); }, "argmax");
  expect_error<tl::AxisError>([&] { tl::argmin(s, -1); }, "argmin");
  expect_error<tl::AxisError>([&] { tl::cumsum(s, 0); }, "cumsum");
  expect_error<tl::AxisError>([&] { tl::cumprod(s, -1); }, "cumprod");
}

// ---- argmax / argmin -------------------------------------------------------------------------

// The first index of the extreme; NaN counts as the extreme.
double ref_arg(const Doubles& g, bool is_max) {
  std::size_t at = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(g[i])) return double(i);
    if (is_max ? g[i] > g[at] : g[i] < g[at]) at = i;
  }
  return double(at);
}

TEST(ReduceArg, EveryAxisEveryDTypeWithTies) {
  const tl::Shape shape{3, 4, 5};
  std::uint64_t seed = 100;
  for (tl::DType t : tl::all_dtypes) {
    const auto x = make_input(shape, t, Values::ties, seed++);
    const Doubles xv = x.to_vector<double>();
    for (std::int64_t axis = -3; axis < 3; ++axis) {
      std::vector<bool> reduced(3, false);
      reduced[std::size_t((axis + 3) % 3)] = true;
      Doubles want_max, want_min;
      for (const Doubles& g : groups_of(xv, shape, reduced)) {
        want_max.push_back(ref_arg(g, true));
        want_min.push_back(ref_arg(g, false));
      }
      for (bool k : {false, true}) {
        EXPECT_TRUE(matches(tl::argmax(x, axis, k), reduced_shape(shape, reduced, k), tl::DType::i64, want_max))
            << tl::dtype_name(t) << " axis " << axis << " keepdims " << k;
        EXPECT_TRUE(matches(tl::argmin(x, axis, k), reduced_shape(shape, reduced, k), tl::DType::i64, want_min))
            << tl::dtype_name(t) << " axis " << axis << " keepdims " << k;
      }
    }
    EXPECT_EQ(tl::argmax(x).item<double>(), ref_arg(xv, true)) << tl::dtype_name(t);
    EXPECT_EQ(tl::argmin(x).item<double>(), ref_arg(xv, false)) << tl::dtype_name(t);
  }
}

TEST(ReduceArg, EmptyAxisThrowsOtherEmptyShapesWork) {
  const auto x = tl::zeros({2, 0, 3});
  expect_error<tl::ValueError>([&] { tl::argmax(x, 1); }, "argmax");
  expect_error<tl::ValueError>([&] { tl::argmin(x, -2); }, "argmin");
  expect_error<tl::ValueError>([&] { tl::argmax(x); }, "argmax");
  expect_error<tl::ValueError>([&] { tl::argmin(tl::zeros({0})); }, "argmin");
  expect_error<tl::ValueError>([&] { tl::argmax(tl::zeros({3, 0}), 1); }, "argmax");
  EXPECT_EQ(tl::argmax(x, 0).shape(), (tl::Shape{0, 3}));
  EXPECT_EQ(tl::argmin(x, 2, true).shape(), (tl::Shape{2, 0, 1}));
}

// ---- cumsum / cumprod ------------------------------------------------------------------------

// Inclusive scan along `axis` in double, walking the elements in row-major order.
Doubles ref_scan(const Doubles& v, const tl::Shape& s, std::size_t axis, bool product) {
  std::int64_t stride = 1;
  for (std::size_t d = axis + 1; d < s.size(); ++d) stride *= s[d];
  Doubles out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const bool first = (std::int64_t(i) / stride) % s[axis] == 0;
    const double prev = first ? (product ? 1.0 : 0.0) : out[i - std::size_t(stride)];
    out[i] = product ? prev * v[i] : prev + v[i];
  }
  return out;
}

TEST(ReduceScan, EveryAxisEveryDType) {
  std::uint64_t seed = 200;
  for (const tl::Shape& shape : {tl::Shape{3, 4, 5}, tl::Shape{2, 0, 3}, tl::Shape{7}})
    for (bool product : {false, true})
      for (tl::DType t : tl::all_dtypes) {
        const auto x = make_input(shape, t, product ? Values::product : Values::general, seed++);
        const Doubles xv = x.to_vector<double>();
        const auto rank = std::int64_t(shape.size());
        for (std::int64_t axis = -rank; axis < rank; ++axis) {
          const Doubles want = ref_scan(xv, shape, std::size_t((axis + rank) % rank), product);
          const auto got = product ? tl::cumprod(x, axis) : tl::cumsum(x, axis);
          EXPECT_TRUE(matches(got, shape, widened(t), want))
              << (product ? "cumprod" : "cumsum") << " of " << tl::dtype_name(t) << tl::shape_string(shape)
              << " axis " << axis;
        }
      }
}

// ---- 16-bit floats accumulate in f32 ---------------------------------------------------------

// In bf16, 256 + 1 rounds back to 256; in f16, 2048 + 1 to 2048. f32 accumulators
// reach the true counts, which both types store exactly.
TEST(ReduceHalf, AccumulatesInF32) {
  EXPECT_EQ(tl::sum(tl::ones({1000}, tl::DType::bf16)).item<double>(), 1000);
  EXPECT_EQ(vals(tl::sum(tl::ones({1000, 2}, tl::DType::bf16), 0)), (Doubles{1000, 1000}));
  EXPECT_EQ(tl::sum(tl::ones({3000}, tl::DType::f16)).item<double>(), 3000);
  EXPECT_EQ(vals(tl::sum(tl::ones({3000, 2}, tl::DType::f16), 0)), (Doubles{3000, 3000}));
  EXPECT_EQ(tl::mean(tl::ones({1000}, tl::DType::bf16)).item<double>(), 1);
  EXPECT_EQ(tl::cumsum(tl::ones({1000}, tl::DType::bf16), 0).to_vector<double>().back(), 1000);
  EXPECT_EQ(tl::cumsum(tl::ones({3000}, tl::DType::f16), 0).to_vector<double>().back(), 3000);
  EXPECT_EQ(tl::sum(tl::ones({1000}, tl::DType::bf16)).dtype(), tl::DType::bf16);
}

// A mean is representable in f16 even when the element count and the sum of the
// elements are not (f16 overflows above 65504); JAX computes these in f32.
TEST(ReduceHalf, MeanVarLogsumexpOfF16BeyondTheF16Range) {
  EXPECT_EQ(tl::mean(tl::ones({70000}, tl::DType::f16)).item<double>(), 1);
  EXPECT_EQ(tl::mean(tl::full({70000}, 0.5, tl::DType::f16)).item<double>(), 0.5);
  EXPECT_EQ(vals(tl::mean(tl::full({70000, 2}, 0.25, tl::DType::f16), 0)), (Doubles{0.25, 0.25}));
  EXPECT_EQ(tl::mean(tl::full({1000}, 100.0, tl::DType::f16)).item<double>(), 100);  // the sum is 1e5
  EXPECT_NEAR(tl::logsumexp(tl::zeros({70000}, tl::DType::f16)).item<double>(), std::log(70000.0), 1e-2);
  Doubles alt(70000);
  for (std::size_t i = 0; i < alt.size(); ++i) alt[i] = i % 2 ? 1 : -1;
  EXPECT_EQ(tl::var(tl::tensor(alt).astype(tl::DType::f16)).item<double>(), 1);
}

// ---- NaN and infinities ----------------------------------------------------------------------

TEST(ReduceNaN, MaxMinArgPropagateNaN) {
  // Rows: NaN in the middle, NaN first, NaN last, no NaN, NaN beside +inf.
  const Doubles v{1, kNaN, 5, kNaN, kNaN, 2, 3, 4, 1, 2, 3, kNaN, 4, -1, 9, 0, kInf, kNaN, -kInf, 1};
  for (tl::DType t : {tl::DType::f32, tl::DType::f64, tl::DType::bf16, tl::DType::f16}) {
    const auto x = tl::tensor(v, {5, 4}).astype(t);
    EXPECT_TRUE(matches(tl::max(x, 1), {5}, t, {kNaN, kNaN, kNaN, 9, kNaN})) << tl::dtype_name(t);
    EXPECT_TRUE(matches(tl::min(x, 1), {5}, t, {kNaN, kNaN, kNaN, -1, kNaN})) << tl::dtype_name(t);
    EXPECT_TRUE(matches(tl::argmax(x, 1), {5}, tl::DType::i64, {1, 0, 3, 2, 1})) << tl::dtype_name(t);
    EXPECT_TRUE(matches(tl::argmin(x, 1), {5}, tl::DType::i64, {1, 0, 3, 1, 1})) << tl::dtype_name(t);
    // Along axis 0 (columns): NaN sits in columns 0, 1 and 3.
    EXPECT_TRUE(matches(tl::max(x, 0), {4}, t, {kNaN, kNaN, 9, kNaN})) << tl::dtype_name(t);
    EXPECT_TRUE(matches(tl::min(x, 0), {4}, t, {kNaN, kNaN, -kInf, kNaN})) << tl::dtype_name(t);
    EXPECT_TRUE(matches(tl::argmax(x, 0), {4}, tl::DType::i64, {1, 0, 3, 0})) << tl::dtype_name(t);
    EXPECT_TRUE(matches(tl::argmin(x, 0), {4}, tl::DType::i64, {1, 0, 4, 0})) << tl::dtype_name(t);
    EXPECT_TRUE(std::isnan(tl::max(x).item<double>())) << tl::dtype_name(t);
    EXPECT_EQ(tl::argmax(x).item<std::int64_t>(), 1) << tl::dtype_name(t);
    EXPECT_TRUE(std::isnan(tl::sum(x).item<double>())) << tl::dtype_name(t);
  }
}

TEST(ReduceNaN, LongRowFindsNaNLate) {
  Doubles v(200000, -3.0);
  v[150001] = kNaN;
  v[7] = 5;
  const auto x = tl::tensor(v, {200000});
  EXPECT_TRUE(std::isnan(tl::max(x).item<double>()));
  EXPECT_TRUE(std::isnan(tl::min(x).item<double>()));
  EXPECT_EQ(tl::argmax(x).item<std::int64_t>(), 150001);
  EXPECT_EQ(tl::argmin(x).item<std::int64_t>(), 150001);
}

TEST(ReduceLogsumexp, InfinitiesAndLargeValues) {
  const Doubles v{-kInf, -kInf,  // all -inf
                  1000, 1000,    // exp would overflow without the shift
                  -1000, -1000,  // exp would underflow without the shift
                  -kInf, 2,      // -inf contributes nothing
                  kInf, 1,       // +inf
                  kNaN, 1,       // NaN
                  88, 90};       // exp(90) overflows f32
  const Doubles want{-kInf, 1000 + std::log(2.0), -1000 + std::log(2.0), 2, kInf, kNaN,
                     90 + std::log1p(std::exp(-2.0))};
  for (tl::DType t : {tl::DType::f32, tl::DType::f64, tl::DType::bf16, tl::DType::f16}) {
    const auto x = tl::tensor(v, {7, 2}).astype(t);
    EXPECT_TRUE(matches(tl::logsumexp(x, 1), {7}, t, want)) << tl::dtype_name(t);
    EXPECT_TRUE(matches(tl::logsumexp(x, -1, true), {7, 1}, t, want)) << tl::dtype_name(t);
  }
  // Along axis 0 and with integer input (computed in f32).
  const auto cols = tl::tensor({1000.0, -kInf, 1000.0, -kInf}, {2, 2});
  EXPECT_TRUE(matches(tl::logsumexp(cols, 0), {2}, tl::DType::f64, {1000 + std::log(2.0), -kInf}));
  const auto ints = tl::tensor(std::vector<std::int32_t>{0, 0, 0, 0});
  EXPECT_TRUE(matches(tl::logsumexp(ints), {}, tl::DType::f32, {std::log(4.0)}));
}

// ---- large inputs split across threads -------------------------------------------------------

std::vector<float> uniform_floats(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<float> v(n);
  for (auto& e : v) e = float(rng.uniform());
  return v;
}

// Row and column sums of a row-major [rows, cols] matrix in double.
void ref_row_col_sums(const std::vector<float>& v, std::int64_t rows, std::int64_t cols, Doubles& row_sums,
                      Doubles& col_sums, double& total) {
  row_sums.assign(std::size_t(rows), 0);
  col_sums.assign(std::size_t(cols), 0);
  total = 0;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) {
      const double e = v[std::size_t(r * cols + c)];
      row_sums[std::size_t(r)] += e;
      col_sums[std::size_t(c)] += e;
    }
  for (double s : row_sums) total += s;
}

double max_rel_error(const tl::Tensor& got, const Doubles& want) {
  const Doubles g = got.to_vector<double>();
  double worst = 0;
  for (std::size_t i = 0; i < g.size(); ++i) worst = std::max(worst, std::fabs(g[i] - want[i]) / std::fabs(want[i]));
  return worst;
}

// Uniform [0, 1) values: a pairwise-style f32 sum stays within 1e-6 of the double sum,
// while a sequential one drifts by ~1e-4 over millions of elements.
TEST(ReduceLarge, SumsAreAccurateOverEveryAxis) {
  const auto data = uniform_floats(10'000'000, 7);
  for (int threads : {1, 2, 3}) {
    ThreadCount tc(threads);
    for (const tl::Shape& s : {tl::Shape{2, 5'000'000}, tl::Shape{5'000'000, 2}, tl::Shape{1000, 3000}}) {
      const std::vector<float> part(data.begin(), data.begin() + count(s));
      Doubles rows, cols;
      double total = 0;
      ref_row_col_sums(part, s[0], s[1], rows, cols, total);
      const auto x = tl::tensor(part, s);
      const std::string what = tl::shape_string(s) + " with " + std::to_string(threads) + " threads";
      EXPECT_LT(max_rel_error(tl::sum(x, 1), rows), 1e-6) << "axis 1 of " << what;
      EXPECT_LT(max_rel_error(tl::sum(x, 0), cols), 1e-6) << "axis 0 of " << what;
      EXPECT_LT(max_rel_error(tl::sum(x), {total}), 1e-6) << "all axes of " << what;
    }
    const std::vector<float> flat(data.begin(), data.begin() + 3'000'000);
    Doubles rows, cols;
    double total = 0;
    ref_row_col_sums(flat, 1, 3'000'000, rows, cols, total);
    EXPECT_LT(max_rel_error(tl::sum(tl::tensor(flat)), {total}), 1e-6) << threads << " threads";
  }
}

// 2^24 + 8 is exact in f32, but a running f32 sum of ones sticks at 2^24.
TEST(ReduceLarge, SumOfOnesIsExact) {
  EXPECT_EQ(tl::sum(tl::ones({16'777'216})).item<double>(), 16'777'216.0);
  EXPECT_EQ(tl::sum(tl::ones({16'777'224})).item<double>(), 16'777'224.0);
  EXPECT_EQ(tl::mean(tl::ones({16'777'224})).item<double>(), 1.0);
}

// Rows long enough to be split into per-thread parts, with lengths that the thread
// count does not divide.
TEST(ReduceLarge, LongRowsOfAnyLengthAndThreadCount) {
  for (int threads : {2, 3, 4}) {
    ThreadCount tc(threads);
    for (std::int64_t n : {100'001, 3 * 32'768 + 1, 1'000'003}) {
      const auto ones = tl::ones({n});
      EXPECT_EQ(tl::sum(ones).item<double>(), double(n)) << n << " with " << threads << " threads";
      EXPECT_EQ(tl::sum(tl::ones({2, n}), 1).to_vector<double>(), (Doubles{double(n), double(n)}))
          << n << " with " << threads << " threads";
      const auto neg = tl::full({n}, -2.0, tl::DType::f64);
      EXPECT_EQ(tl::max(neg).item<double>(), -2.0) << n << " with " << threads << " threads";
      EXPECT_EQ(tl::prod(tl::ones({n}, tl::DType::i32)).item<double>(), 1.0) << n << " with " << threads << " threads";
    }
  }
}

// Same input, same thread count: bit-identical results.
TEST(ReduceLarge, Deterministic) {
  const auto data = uniform_floats(3'000'000, 11);
  for (int threads : {1, 2, 3, 4}) {
    ThreadCount tc(threads);
    const auto flat = tl::tensor(data);
    const auto m = tl::tensor(data, {1000, 3000});
    EXPECT_EQ(tl::sum(flat).item<float>(), tl::sum(flat).item<float>());
    EXPECT_EQ(tl::sum(m, 0).to_vector<float>(), tl::sum(m, 0).to_vector<float>());
    EXPECT_EQ(tl::sum(m, 1).to_vector<float>(), tl::sum(m, 1).to_vector<float>());
    EXPECT_EQ(tl::mean(m, 1).to_vector<float>(), tl::mean(m, 1).to_vector<float>());
    EXPECT_EQ(tl::max(flat).item<float>(), tl::max(flat).item<float>());
  }
}

// ---- errors ----------------------------------------------------------------------------------

// Each public reduction names itself in its axis errors (not only the primitive it is built on).
TEST(ReduceErrors, AxisOutOfRangeAndRepeatedNameTheOp) {
  const auto x = tl::zeros({2, 3, 4});
  const std::vector<tl::Axes> bad{tl::Axes(3), tl::Axes(-4), tl::Axes{0, 0}, tl::Axes{1, -2}, tl::Axes{0, 5}};
  for (const ReduceCase& c : reduce_cases()) {
    std::string name = c.name;
    name = name.substr(0, name.find('_'));
    std::string wrong;  // messages that do not name the op
    for (const tl::Axes& axes : bad) {
      try {
        c.op(x, axes, false);
        ADD_FAILURE() << name << " accepted bad axes";
      } catch (const tl::AxisError& e) {
        if (std::string(e.what()).find(name) == std::string::npos) wrong += std::string("\n  ") + e.what();
      }
    }
    EXPECT_TRUE(wrong.empty()) << "tl::" << name << " errors should name " << name << ":" << wrong;
  }
  expect_error<tl::AxisError>([&] { tl::argmax(x, 3); }, "argmax");
  expect_error<tl::AxisError>([&] { tl::argmin(x, -4); }, "argmin");
  expect_error<tl::AxisError>([&] { tl::cumsum(x, 3); }, "cumsum");
  expect_error<tl::AxisError>([&] { tl::cumprod(x, -4); }, "cumprod");
}

}  // namespace

// ---- prod's and cumprod's derivatives as functions (values worked by hand) -----------

namespace {

TEST(ReduceDerivatives, ProdWithAZero) {
  const tl::Tensor x = tl::tensor({2.0, 0.0, 3.0, 1.0, 4.0, 5.0}, {2, 3});
  // Each element's derivative is the product of the others in its row.
  const tl::Tensor g = tl::tensor({10.0, 100.0}, {2});
  EXPECT_EQ(tl::derivatives::prod_backward(g, x, {1}).to_vector<double>(), (Doubles{0, 60, 0, 2000, 500, 400}));
  EXPECT_EQ(tl::derivatives::prod_backward(tl::reshape(g, {2, 1}), x, 1, true).to_vector<double>(),
            (Doubles{0, 60, 0, 2000, 500, 400}));
  EXPECT_EQ(tl::derivatives::prod_backward(tl::scalar_tensor(1.0, tl::DType::f64), x).to_vector<double>(),
            (Doubles{0, 120, 0, 0, 0, 0}));
  const tl::Tensor t = tl::tensor({1.0, 1.0, 1.0, 0.0, 0.0, 2.0}, {2, 3});
  EXPECT_EQ(tl::derivatives::prod_jvp(t, x, {1}).to_vector<double>(), (Doubles{6, 8}));
  expect_error<tl::ShapeError>([&] { tl::derivatives::prod_backward(g, x, {0}); }, "prod_backward");
  expect_error<tl::ShapeError>([&] { tl::derivatives::prod_jvp(g, x); }, "prod_jvp");
}

TEST(ReduceDerivatives, Cumsum) {
  // Each x_j enters every y_k with k >= j: its share is the sum of those cotangents.
  const tl::Tensor g = tl::tensor({1.0, 2.0, 3.0, 4.0, 10.0, 20.0, 30.0, 40.0}, {2, 4});
  EXPECT_EQ(tl::derivatives::cumsum_backward(g, 1).to_vector<double>(), (Doubles{10, 9, 7, 4, 100, 90, 70, 40}));
  EXPECT_EQ(tl::derivatives::cumsum_backward(g, -2).to_vector<double>(), (Doubles{11, 22, 33, 44, 10, 20, 30, 40}));
  expect_error<tl::AxisError>([&] { tl::derivatives::cumsum_backward(g, 2); }, "cumsum_backward");
}

TEST(ReduceDerivatives, Cumprod) {
  const tl::Tensor x = tl::tensor({2.0, 3.0, 0.0, 5.0}, {4});
  const tl::Tensor y = tl::cumprod(x, 0);  // 2, 6, 0, 0
  // d(sum y)/dx_0 = 1 + x1 + x1 x2 + ... = 1 + 3 = 4; dx_1 = 2; dx_2 = x0 x1 (1 + x3) = 36; dx_3 = 0.
  EXPECT_EQ(tl::derivatives::cumprod_backward(tl::ones_like(x), x, y, 0).to_vector<double>(), (Doubles{4, 2, 36, 0}));
  // Moving x_2 alone moves y_2 by x0 x1 and y_3 by x0 x1 x3.
  const tl::Tensor t = tl::tensor({0.0, 0.0, 1.0, 0.0}, {4});
  EXPECT_EQ(tl::derivatives::cumprod_jvp(t, x, y, -1).to_vector<double>(), (Doubles{0, 0, 6, 30}));
  expect_error<tl::ShapeError>([&] { tl::derivatives::cumprod_backward(tl::ones({3}), x, y, 0); }, "cumprod_backward");
}

TEST(ReduceDerivatives, ExtremesShareAmongTies) {
  // Row maxima 3 (twice) and 5; row minima 1 and 2 (twice).
  const tl::Tensor x = tl::tensor({3.0, 1.0, 3.0, 2.0, 5.0, 2.0}, {2, 3});
  const tl::Tensor g = tl::tensor({10.0, 100.0}, {2});
  EXPECT_EQ(tl::derivatives::extreme_backward(g, x, tl::max(x, {1}), {1}).to_vector<double>(),
            (Doubles{5, 0, 5, 0, 100, 0}));
  EXPECT_EQ(tl::derivatives::extreme_backward(g, x, tl::min(x, -1), -1).to_vector<double>(),
            (Doubles{0, 10, 0, 50, 0, 50}));
  EXPECT_EQ(
      tl::derivatives::extreme_backward(tl::reshape(g, {2, 1}), x, tl::max(x, {1}, true), {1}, true).to_vector<double>(),
      (Doubles{5, 0, 5, 0, 100, 0}));
  // Over every element: the single maximum 5 takes all of g.
  EXPECT_EQ(tl::derivatives::extreme_backward(tl::scalar_tensor(2.0, tl::DType::f64), x, tl::max(x)).to_vector<double>(),
            (Doubles{0, 0, 0, 0, 2, 0}));
  // A tangent is summed over the ties, each weighted by its share.
  const tl::Tensor t = tl::tensor({1.0, 7.0, 3.0, 4.0, 6.0, 8.0}, {2, 3});
  EXPECT_EQ(tl::derivatives::extreme_jvp(t, x, tl::max(x, {1}), {1}).to_vector<double>(), (Doubles{2, 6}));
  EXPECT_EQ(tl::derivatives::extreme_jvp(t, x, tl::min(x, {1}), {1}).to_vector<double>(), (Doubles{7, 6}));
  expect_error<tl::ShapeError>([&] { tl::derivatives::extreme_backward(g, x, tl::max(x, {0}), {1}); }, "extreme_backward");
  expect_error<tl::ShapeError>([&] { tl::derivatives::extreme_backward(t, x, tl::max(x, {1}), {1}); }, "extreme_backward");
  expect_error<tl::ShapeError>([&] { tl::derivatives::extreme_jvp(g, x, tl::max(x, {1}), {1}); }, "extreme_jvp");
  expect_error<tl::AxisError>([&] { tl::derivatives::extreme_jvp(t, x, tl::max(x, {1}), {2}); }, "extreme_jvp");
}

// The engine's rules for max and min are these functions: tl::grad and tl::jvp of max
// and min give their bits.
TEST(ReduceDerivatives, ExtremesAreTheEnginesRules) {
  const tl::Tensor x = tl::tensor({3.0, 1.0, 3.0, 2.0, 5.0, 2.0, -1.0, 4.0, 4.0, 0.5, 4.0, 0.25}, {2, 2, 3});
  const tl::Tensor v = tl::sin(tl::arange(2).astype(tl::DType::f64) + 0.5);
  const tl::Tensor t = tl::reshape(tl::cos(tl::arange(12).astype(tl::DType::f64)), {2, 2, 3});
  for (const bool keep : {false, true}) {
    const auto f = [&](const tl::Tensor& a) {
      return tl::sum(tl::reshape(tl::max(a, {0, 2}, keep), {2}) * v) + tl::sum(tl::min(a, -1, keep) * 0.5);
    };
    const tl::Tensor y_max = tl::max(x, {0, 2}, keep), y_min = tl::min(x, -1, keep);
    const tl::Tensor expected = tl::derivatives::extreme_backward(tl::reshape(v, y_max.shape()), x, y_max, {0, 2}, keep) +
                                tl::derivatives::extreme_backward(tl::full_like(y_min, 0.5), x, y_min, -1, keep);
    EXPECT_EQ(tl::grad(f)(x).to_vector<double>(), expected.to_vector<double>()) << "keepdims " << keep;
    const auto [value, tangent] = tl::jvp(
        [&](const tl::Tensor& a) {
          return tl::max(a, {0, 2}, keep);
        },
        x, t);
    EXPECT_EQ(tangent.to_vector<double>(), tl::derivatives::extreme_jvp(t, x, y_max, {0, 2}, keep).to_vector<double>());
  }
}

// sum_to_shape_of and broadcast_to_shape_of undo and redo a binary op's broadcasting
// and promotion; they are the engine's rules for add, so tl::vjp and tl::jvp of an add
// of an f32 [3] or [2, 1] and an f64 [2, 3] give their dtypes and bits. Where shape
// and dtype already agree they return their argument itself; a zero stays undefined.
TEST(ReduceDerivatives, SumToShapeOfUndoesBroadcastAndPromotion) {
  const tl::Tensor wide = tl::reshape(tl::sin(tl::arange(6).astype(tl::DType::f64) + 0.1), {2, 3});
  const tl::Tensor g = tl::reshape(tl::cos(tl::arange(6).astype(tl::DType::f64) * 1.7), {2, 3});
  for (const tl::Shape& shape : {tl::Shape{3}, tl::Shape{2, 1}, tl::Shape{1, 3}}) {
    const tl::Tensor x = (tl::ones(shape, tl::DType::f64) * 0.3).astype(tl::DType::f32);
    const tl::Tensor summed = tl::sum_to_shape_of(g, x);
    EXPECT_EQ(summed.dtype(), tl::DType::f32);
    EXPECT_EQ(summed.shape(), shape);
    EXPECT_EQ(summed.to_vector<float>(), tl::sum_to_size(g, shape).astype(tl::DType::f32).to_vector<float>());
    auto [y, pullback] = tl::vjp([](const tl::Tensor& a, const tl::Tensor& b) { return a + b; }, x, wide);
    EXPECT_EQ(pullback(g)[0].to_vector<float>(), summed.to_vector<float>());
    const tl::Tensor t = tl::full(shape, 0.7, tl::DType::f32);
    const tl::Tensor spread = tl::broadcast_to_shape_of(t, y);
    EXPECT_EQ(spread.dtype(), tl::DType::f64);
    EXPECT_EQ(spread.shape(), (tl::Shape{2, 3}));
    const auto [value, tangent] = tl::jvp([&](const tl::Tensor& a) { return a + wide; }, x, t);
    EXPECT_EQ(tangent.to_vector<double>(), spread.to_vector<double>());
  }
  EXPECT_TRUE(tl::sum_to_shape_of(g, wide).is_same(g));
  EXPECT_TRUE(tl::broadcast_to_shape_of(g, wide).is_same(g));
  EXPECT_FALSE(tl::sum_to_shape_of(tl::Tensor(), wide).defined());
  EXPECT_FALSE(tl::broadcast_to_shape_of(tl::Tensor(), wide).defined());
  expect_error<tl::ShapeError>([&] { tl::sum_to_shape_of(tl::ones({3}, tl::DType::f64), wide); },
                               "sum_to_size");
}

}  // namespace
