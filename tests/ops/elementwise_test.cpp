// Elementwise ops against references computed here in double with <cmath>.
#include <gtest/gtest.h>

#include <tlaloc/tlaloc.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

namespace tl = tlaloc;

namespace {

struct UnaryCase {
  const char* name;
  std::function<tl::Tensor(const tl::Tensor&)> op;
  std::function<double(double)> ref;
  double lo, hi;
};

double gelu_ref(double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }
double gelu_tanh_ref(double x) {
  return 0.5 * x * (1 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}

std::vector<UnaryCase> unary_cases() {
  return {
      {"neg", [](auto& x) { return tl::neg(x); }, [](double v) { return -v; }, -5, 5},
      {"abs", [](auto& x) { return tl::abs(x); }, [](double v) { return std::fabs(v); }, -5, 5},
      {"sign", [](auto& x) { return tl::sign(x); }, [](double v) { return double((v > 0) - (v < 0)); }, -5, 5},
      {"exp", [](auto& x) { return tl::exp(x); }, [](double v) { return std::exp(v); }, -80, 80},
      {"expm1", [](auto& x) { return tl::expm1(x); }, [](double v) { return std::expm1(v); }, -10, 10},
      {"log", [](auto& x) { return tl::log(x); }, [](double v) { return std::log(v); }, 1e-6, 1e6},
      {"log1p", [](auto& x) { return tl::log1p(x); }, [](double v) { return std::log1p(v); }, -0.99, 100},
      {"sqrt", [](auto& x) { return tl::sqrt(x); }, [](double v) { return std::sqrt(v); }, 0, 100},
      {"rsqrt", [](auto& x) { return tl::rsqrt(x); }, [](double v) { return 1 / std::sqrt(v); }, 0.01, 100},
      {"square", [](auto& x) { return tl::square(x); }, [](double v) { return v * v; }, -10, 10},
      {"reciprocal", [](auto& x) { return tl::reciprocal(x); }, [](double v) { return 1 / v; }, 0.1, 10},
      {"sin", [](auto& x) { return tl::sin(x); }, [](double v) { return std::sin(v); }, -10, 10},
      {"cos", [](auto& x) { return tl::cos(x); }, [](double v) { return std::cos(v); }, -10, 10},
      {"tan", [](auto& x) { return tl::tan(x); }, [](double v) { return std::tan(v); }, -1.5, 1.5},
      {"tanh", [](auto& x) { return tl::tanh(x); }, [](double v) { return std::tanh(v); }, -10, 10},
      {"sinh", [](auto& x) { return tl::sinh(x); }, [](double v) { return std::sinh(v); }, -5, 5},
      {"cosh", [](auto& x) { return tl::cosh(x); }, [](double v) { return std::cosh(v); }, -5, 5},
      {"asin", [](auto& x) { return tl::asin(x); }, [](double v) { return std::asin(v); }, -0.99, 0.99},
      {"acos", [](auto& x) { return tl::acos(x); }, [](double v) { return std::acos(v); }, -0.99, 0.99},
      {"atan", [](auto& x) { return tl::atan(x); }, [](double v) { return std::atan(v); }, -10, 10},
      {"asinh", [](auto& x) { return tl::asinh(x); }, [](double v) { return std::asinh(v); }, -10, 10},
      {"acosh", [](auto& x) { return tl::acosh(x); }, [](double v) { return std::acosh(v); }, 1, 10},
      {"atanh", [](auto& x) { return tl::atanh(x); }, [](double v) { return std::atanh(v); }, -0.99, 0.99},
      {"sigmoid", [](auto& x) { return tl::sigmoid(x); }, [](double v) { return 1 / (1 + std::exp(-v)); }, -30, 30},
      {"relu", [](auto& x) { return tl::relu(x); }, [](double v) { return v > 0 ? v : 0; }, -5, 5},
      {"gelu", [](auto& x) { return tl::gelu(x); }, gelu_ref, -6, 6},
      {"gelu_tanh", [](auto& x) { return tl::gelu(x, true); }, gelu_tanh_ref, -6, 6},
      {"silu", [](auto& x) { return tl::silu(x); }, [](double v) { return v / (1 + std::exp(-v)); }, -20, 20},
      {"softplus", [](auto& x) { return tl::softplus(x); }, [](double v) { return std::log1p(std::exp(v)); }, -20, 20},
      {"erf", [](auto& x) { return tl::erf(x); }, [](double v) { return std::erf(v); }, -4, 4},
      {"floor", [](auto& x) { return tl::floor(x); }, [](double v) { return std::floor(v); }, -5, 5},
      {"ceil", [](auto& x) { return tl::ceil(x); }, [](double v) { return std::ceil(v); }, -5, 5},
      {"round", [](auto& x) { return tl::round(x); }, [](double v) { return std::nearbyint(v); }, -5, 5},
  };
}

// Compares op on n points of [lo, hi] in dtype t with the double reference.
void check_unary(const UnaryCase& c, tl::DType t, double rtol, double atol) {
  const int n = 1001;
  std::vector<double> xs(n);
  for (int i = 0; i < n; ++i) xs[i] = c.lo + (c.hi - c.lo) * i / (n - 1);
  const tl::Tensor x = tl::tensor(xs, {n}).astype(t);
  const std::vector<double> xr = x.to_vector<double>();  // the values actually stored in t
  const tl::Tensor y = c.op(x);
  ASSERT_EQ(y.dtype(), t) << c.name;
  ASSERT_EQ(y.shape(), x.shape()) << c.name;
  const std::vector<double> got = y.to_vector<double>();
  for (int i = 0; i < n; ++i) {
    const double want = c.ref(xr[i]);
    if (got[i] == want) continue;  // also covers overflow to inf in 16-bit types
    ASSERT_NEAR(got[i], want, atol + rtol * std::fabs(want)) << c.name << " at x=" << xr[i] << " in " << tl::dtype_name(t);
  }
}

}  // namespace

TEST(Unary, F32MatchesDoubleReference) {
  for (const auto& c : unary_cases()) check_unary(c, tl::DType::f32, 4e-6, 1e-6);
}
TEST(Unary, F64MatchesDoubleReference) {
  for (const auto& c : unary_cases()) check_unary(c, tl::DType::f64, 1e-13, 1e-14);
}
TEST(Unary, HalfTypesComputeInF32) {
  for (const auto& c : unary_cases()) {
    check_unary(c, tl::DType::bf16, 1e-2, 1e-2);
    if (std::string(c.name) != "exp" && std::string(c.name) != "cosh" && std::string(c.name) != "sinh")
      check_unary(c, tl::DType::f16, 2e-3, 2e-3);  // exp/sinh/cosh overflow f16 on this range
  }
}

TEST(Unary, IntegerInputs) {
  auto i = tl::tensor(std::vector<std::int32_t>{-2, 0, 3});
  EXPECT_EQ(tl::exp(i).dtype(), tl::DType::f32);
  EXPECT_NEAR(tl::exp(i).to_vector<double>()[2], std::exp(3.0), 1e-5);
  EXPECT_EQ(tl::abs(i).to_vector<int>(), (std::vector<int>{2, 0, 3}));
  EXPECT_EQ(tl::neg(i).dtype(), tl::DType::i32);
  EXPECT_EQ(tl::relu(i).to_vector<int>(), (std::vector<int>{0, 0, 3}));
  EXPECT_EQ(tl::sign(i).to_vector<int>(), (std::vector<int>{-1, 0, 1}));
  EXPECT_EQ(tl::floor(i).to_vector<int>(), (std::vector<int>{-2, 0, 3}));
  EXPECT_EQ(tl::square(tl::tensor(std::vector<std::uint8_t>{20})).to_vector<int>(), (std::vector<int>{144}));  // wraps
  EXPECT_THROW(tl::neg(tl::tensor(std::vector<bool>{true})), tl::DTypeError);
}

TEST(Unary, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  auto x = tl::tensor({-inf, inf, nan, -0.f}, {4});
  auto e = tl::exp(x).to_vector<float>();
  EXPECT_EQ(e[0], 0.f);
  EXPECT_EQ(e[1], inf);
  EXPECT_TRUE(std::isnan(e[2]));
  auto t = tl::tanh(x).to_vector<float>();
  EXPECT_EQ(t[0], -1.f);
  EXPECT_EQ(t[1], 1.f);
  EXPECT_TRUE(std::isnan(tl::relu(x).to_vector<float>()[2]));
  EXPECT_TRUE(std::signbit(tl::sign(x).to_vector<float>()[3]));
  EXPECT_EQ(tl::sigmoid(x).to_vector<float>()[1], 1.f);
  EXPECT_EQ(tl::log(tl::zeros({1})).item<float>(), -inf);
  EXPECT_EQ(tl::round(tl::tensor({0.5f, 1.5f, 2.5f, -0.5f}, {4})).to_vector<float>(),
            (std::vector<float>{0, 2, 2, -0}));
  EXPECT_EQ(tl::isnan(x).to_vector<bool>(), (std::vector<bool>{false, false, true, false}));
  EXPECT_EQ(tl::isfinite(x).to_vector<bool>(), (std::vector<bool>{false, false, false, true}));
  EXPECT_EQ(tl::logical_not(x).to_vector<bool>(), (std::vector<bool>{false, false, false, true}));
  EXPECT_EQ(tl::isnan(tl::arange(3)).to_vector<bool>(), (std::vector<bool>{false, false, false}));
}

TEST(Unary, LargeTensorsUseEveryThreadAndAgree) {
  // Big enough to be split across threads: the result must equal the element-wise reference.
  const std::int64_t n = 1 << 20;
  auto x = tl::linspace(-5, 5, n);
  auto y = tl::tanh(x).to_vector<float>();
  auto xs = x.to_vector<float>();
  for (std::int64_t i = 0; i < n; i += 997) ASSERT_NEAR(y[i], std::tanh(double(xs[i])), 2e-7);
}

// ---- binary -------------------------------------------------------------------

namespace {
// Reference broadcasting: index of a flat output position into an operand of shape s.
std::int64_t bcast_index(std::int64_t flat, const tl::Shape& out, const tl::Shape& s) {
  std::int64_t idx = 0, stride = 1;
  for (std::size_t k = 0; k < out.size(); ++k) {
    const std::size_t d = out.size() - 1 - k;
    const std::int64_t coord = flat % out[d];
    flat /= out[d];
    if (k < s.size()) {
      const std::size_t sd = s.size() - 1 - k;
      if (s[sd] != 1) idx += coord * stride;
      stride *= s[sd];
    }
  }
  return idx;
}
}  // namespace

std::int64_t count(const tl::Shape& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

TEST(Binary, BroadcastingShapes) {
  const std::vector<std::pair<tl::Shape, tl::Shape>> cases = {
      {{2, 3}, {3}}, {{2, 1}, {1, 3}}, {{4, 1, 5}, {3, 1}}, {{}, {2, 2}}, {{3}, {}},
      {{2, 3, 4}, {2, 3, 4}}, {{1}, {5}}, {{0, 3}, {3}}, {{2, 1, 1}, {1, 70000}}, {{300, 1}, {300, 200}}};
  for (const auto& [sa, sb] : cases) {
    const auto a = tl::reshape(tl::arange(0, count(sa), 1, tl::DType::f64), sa);
    const auto b = tl::reshape(tl::arange(0, count(sb), 1, tl::DType::f64) * 0.5 + 1.0, sb);
    const auto y = tl::sub(a, b);
    tl::Shape out(std::max(sa.size(), sb.size()));
    for (std::size_t k = 0; k < out.size(); ++k) {
      const std::int64_t da = k < sa.size() ? sa[sa.size() - 1 - k] : 1;
      const std::int64_t db = k < sb.size() ? sb[sb.size() - 1 - k] : 1;
      out[out.size() - 1 - k] = da == 1 ? db : da;
    }
    ASSERT_EQ(y.shape(), out) << tl::shape_string(sa) << " - " << tl::shape_string(sb);
    const auto va = a.to_vector<double>(), vb = b.to_vector<double>(), vy = y.to_vector<double>();
    for (std::int64_t i = 0; i < count(out); ++i)
      ASSERT_EQ(vy[i], va[bcast_index(i, out, sa)] - vb[bcast_index(i, out, sb)]) << i;
  }
}

TEST(Binary, ArithmeticAllDTypes) {
  for (auto t :
       {tl::DType::f32, tl::DType::f64, tl::DType::bf16, tl::DType::f16, tl::DType::i8, tl::DType::i16,
        tl::DType::i32, tl::DType::i64, tl::DType::u8, tl::DType::u16, tl::DType::u32, tl::DType::u64}) {
    auto a = tl::tensor(std::vector<double>{6, 9, 12}).astype(t);
    auto b = tl::tensor(std::vector<double>{3, 2, 5}).astype(t);
    EXPECT_EQ((a + b).to_vector<double>(), (std::vector<double>{9, 11, 17})) << tl::dtype_name(t);
    EXPECT_EQ((a - b).to_vector<double>(), (std::vector<double>{3, 7, 7})) << tl::dtype_name(t);
    EXPECT_EQ((a * b).to_vector<double>(), (std::vector<double>{18, 18, 60})) << tl::dtype_name(t);
    EXPECT_EQ(tl::maximum(a, b).to_vector<double>(), (std::vector<double>{6, 9, 12}));
    EXPECT_EQ(tl::minimum(a, b).to_vector<double>(), (std::vector<double>{3, 2, 5}));
    EXPECT_EQ(tl::remainder(a, b).to_vector<double>(), (std::vector<double>{0, 1, 2}));
    EXPECT_EQ(tl::pow(b, tl::tensor(std::vector<double>{2, 3, 1}).astype(t)).to_vector<double>(),
              (std::vector<double>{9, 8, 5}));
    EXPECT_EQ((a > b).to_vector<bool>(), (std::vector<bool>{true, true, true}));
    EXPECT_EQ((a / b).to_vector<double>()[0], 2.0);
    EXPECT_EQ((a / b).dtype(), tl::is_floating(t) ? t : tl::DType::f32);
  }
}

TEST(Binary, IntegerSemantics) {
  auto a = tl::tensor(std::vector<std::int32_t>{7, -7, 7, -7, 5});
  auto b = tl::tensor(std::vector<std::int32_t>{3, 3, -3, -3, 0});
  // Python's %: the sign of the divisor; x % 0 = x.
  EXPECT_EQ(tl::remainder(a, b).to_vector<int>(), (std::vector<int>{1, 2, -2, -1, 5}));
  EXPECT_EQ(tl::pow(a, tl::full({5}, -1, tl::DType::i32)).to_vector<int>(), (std::vector<int>{0, 0, 0, 0, 0}));
  EXPECT_EQ(tl::pow(tl::full({1}, -1, tl::DType::i32), -3).to_vector<int>(), (std::vector<int>{-1}));
  auto m = tl::tensor(std::vector<std::int32_t>{INT32_MIN});
  EXPECT_EQ(tl::remainder(m, -1).to_vector<int>(), (std::vector<int>{0}));
  EXPECT_EQ((tl::tensor(std::vector<std::uint8_t>{250}) + 10).to_vector<int>(), (std::vector<int>{4}));  // wraps
}

TEST(Binary, SignedOverflowWrapsWithoutUndefinedBehaviour) {
  // Two's complement wrap-around, as StableHLO defines it (the asan preset runs this under UBSan).
  auto mx = tl::tensor(std::vector<std::int32_t>{INT32_MAX}), mn = tl::tensor(std::vector<std::int32_t>{INT32_MIN});
  EXPECT_EQ((mx + 1).item<std::int32_t>(), INT32_MIN);
  EXPECT_EQ((mn - 1).item<std::int32_t>(), INT32_MAX);
  EXPECT_EQ((mx * 2).item<std::int32_t>(), -2);
  EXPECT_EQ(tl::neg(mn).item<std::int32_t>(), INT32_MIN);
  EXPECT_EQ(tl::abs(mn).item<std::int32_t>(), INT32_MIN);
  EXPECT_EQ(tl::square(mx).item<std::int32_t>(), 1);
  auto big = tl::tensor(std::vector<std::int64_t>{INT64_MAX, 1});
  EXPECT_EQ(tl::sum(big).item<std::int64_t>(), INT64_MIN);
  EXPECT_EQ(tl::cumsum(big, 0).to_vector<std::int64_t>(), (std::vector<std::int64_t>{INT64_MAX, INT64_MIN}));
}

// Wrap-around modulo 2^N for the 16-, 32- and 64-bit integer types.
TEST(Binary, NewIntegerTypesWrap) {
  using U32 = std::vector<std::uint32_t>;
  using U64 = std::vector<std::uint64_t>;
  const std::uint64_t u64max = std::numeric_limits<std::uint64_t>::max();
  const auto u32 = tl::tensor(U32{0, 4294967295u, 65536, 2147483653u});
  EXPECT_EQ((u32 - 1).to_vector<std::uint32_t>(), (U32{4294967295u, 4294967294u, 65535, 2147483652u}));
  EXPECT_EQ((u32 + 1).to_vector<std::uint32_t>(), (U32{1, 0, 65537, 2147483654u}));
  EXPECT_EQ((u32 * tl::tensor(U32{7, 1, 65536, 3})).to_vector<std::uint32_t>(),
            (U32{0, 4294967295u, 0, 2147483663u}));
  const auto u64 = tl::tensor(U64{0, u64max, 4294967299ull});
  EXPECT_EQ((u64 - tl::tensor(U64{1, 0, 0})).to_vector<std::uint64_t>(),
            (U64{u64max, u64max, 4294967299ull}));
  EXPECT_EQ((u64 + 2).to_vector<std::uint64_t>(), (U64{2, 1, 4294967301ull}));
  // (2^32 + 3)(2^32 + 5) = 2^64 + 8 * 2^32 + 15.
  EXPECT_EQ((u64 * tl::tensor(U64{1, 1, 4294967301ull})).to_vector<std::uint64_t>(),
            (U64{0, u64max, 34359738383ull}));
  const auto i16 = tl::tensor(std::vector<std::int16_t>{32767, -32768, 300});
  EXPECT_EQ((i16 + 1).to_vector<std::int16_t>(), (std::vector<std::int16_t>{-32768, -32767, 301}));
  EXPECT_EQ((i16 - 1).to_vector<std::int16_t>(), (std::vector<std::int16_t>{32766, 32767, 299}));
  EXPECT_EQ((i16 * i16).to_vector<std::int16_t>(),
            (std::vector<std::int16_t>{1, 0, 24464}));  // 90000 - 65536
  const auto u16 = tl::tensor(std::vector<std::uint16_t>{65535, 40000});
  EXPECT_EQ((u16 + 1).to_vector<std::uint16_t>(), (std::vector<std::uint16_t>{0, 40001}));
  EXPECT_EQ((u16 * 3).to_vector<std::uint16_t>(),
            (std::vector<std::uint16_t>{65533, 54464}));  // 120000 - 65536
}

// neg wraps modulo 2^N, abs is the identity, sign is 0 or 1.
TEST(Unary, UnsignedTypes) {
  using U32 = std::vector<std::uint32_t>;
  const auto u32 = tl::tensor(U32{0, 1, 5, 4294967295u});
  EXPECT_EQ(tl::neg(u32).to_vector<std::uint32_t>(), (U32{0, 4294967295u, 4294967291u, 1}));
  EXPECT_EQ((-u32).dtype(), tl::DType::u32);
  EXPECT_EQ(tl::abs(u32).to_vector<std::uint32_t>(), (U32{0, 1, 5, 4294967295u}));
  EXPECT_EQ(tl::sign(u32).to_vector<std::uint32_t>(), (U32{0, 1, 1, 1}));
  EXPECT_EQ(tl::relu(u32).to_vector<std::uint32_t>(), (U32{0, 1, 5, 4294967295u}));
  EXPECT_EQ(tl::square(u32).to_vector<std::uint32_t>(), (U32{0, 1, 25, 1}));
  EXPECT_EQ(tl::floor(u32).to_vector<std::uint32_t>(), (U32{0, 1, 5, 4294967295u}));
  EXPECT_EQ(tl::round(u32).dtype(), tl::DType::u32);
  const auto u64 = tl::tensor(std::vector<std::uint64_t>{1, 1ull << 63});
  EXPECT_EQ(tl::neg(u64).to_vector<std::uint64_t>(),
            (std::vector<std::uint64_t>{18446744073709551615ull, 1ull << 63}));
  EXPECT_EQ(tl::sign(tl::tensor(std::vector<std::uint16_t>{0, 65535})).to_vector<int>(),
            (std::vector<int>{0, 1}));
  const auto i16 = tl::tensor(std::vector<std::int16_t>{-32768, -3, 4});
  EXPECT_EQ(tl::abs(i16).to_vector<std::int16_t>(), (std::vector<std::int16_t>{-32768, 3, 4}));  // wraps
  EXPECT_EQ(tl::neg(i16).to_vector<std::int16_t>(), (std::vector<std::int16_t>{-32768, 3, -4}));
  EXPECT_EQ(tl::sign(i16).to_vector<std::int16_t>(), (std::vector<std::int16_t>{-1, -1, 1}));
  EXPECT_EQ(tl::sqrt(tl::tensor(std::vector<std::uint32_t>{16})).dtype(), tl::DType::f32);
  EXPECT_EQ(tl::isfinite(u32).to_vector<bool>(), (std::vector<bool>{true, true, true, true}));
}

// Unsigned values compare, divide and take remainders as themselves, never through
// a signed type (where 2^64 - 1 would be -1).
TEST(Binary, UnsignedSemantics) {
  using U64 = std::vector<std::uint64_t>;
  const std::uint64_t u64max = std::numeric_limits<std::uint64_t>::max();
  const auto a = tl::tensor(U64{u64max, 7, 5});
  const auto b = tl::tensor(U64{7, 3, 0});
  // 2^64 = 2 * 8^21 = 2 (mod 7), so 2^64 - 1 = 1 (mod 7); x % 0 = x.
  EXPECT_EQ(tl::remainder(a, b).to_vector<std::uint64_t>(), (U64{1, 1, 5}));
  EXPECT_EQ((a > b).to_vector<bool>(), (std::vector<bool>{true, true, true}));
  EXPECT_EQ((a > 1).to_vector<bool>(), (std::vector<bool>{true, true, true}));
  EXPECT_EQ(tl::maximum(a, b).to_vector<std::uint64_t>(), (U64{u64max, 7, 5}));
  EXPECT_EQ(tl::minimum(a, b).to_vector<std::uint64_t>(), (U64{7, 3, 0}));
  EXPECT_EQ(tl::pow(tl::tensor(U64{2, 2, 3}), tl::tensor(U64{63, 64, 2})).to_vector<std::uint64_t>(),
            (U64{1ull << 63, 0, 9}));
  const auto u32 = tl::tensor(std::vector<std::uint32_t>{4294967295u, 3, 7});
  const auto d32 = tl::tensor(std::vector<std::uint32_t>{10, 21, 2});
  EXPECT_EQ(tl::remainder(u32, d32).to_vector<std::uint32_t>(), (std::vector<std::uint32_t>{5, 3, 1}));
  // 3^21 = 10460353203 = 2 * 2^32 + 1870418611.
  EXPECT_EQ(tl::pow(u32, d32).to_vector<std::uint32_t>()[1], 1870418611u);
  // True division: integers divide in f32.
  EXPECT_EQ((u32 / d32).dtype(), tl::DType::f32);
  EXPECT_EQ((u32 / d32).to_vector<float>()[2], 3.5f);
  EXPECT_EQ((a / 1).to_vector<float>()[0], 18446744073709551616.f);
  EXPECT_EQ(tl::remainder(tl::tensor(std::vector<std::int16_t>{-7, 7}), 3).to_vector<int>(),
            (std::vector<int>{2, 1}));
}

TEST(Binary, FloatSemantics) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto a = tl::tensor({nan, 1.0, -7.5, 7.5}, {4});
  auto b = tl::tensor({1.0, nan, 2.0, -2.0}, {4});
  auto mx = tl::maximum(a, b).to_vector<double>();
  EXPECT_TRUE(std::isnan(mx[0]) && std::isnan(mx[1]));
  EXPECT_EQ(tl::remainder(a, b).to_vector<double>()[2], 0.5);
  EXPECT_EQ(tl::remainder(a, b).to_vector<double>()[3], -0.5);
  EXPECT_EQ((a == a).to_vector<bool>(), (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ((a != a).to_vector<bool>(), (std::vector<bool>{true, false, false, false}));
  EXPECT_NEAR(tl::atan2(tl::tensor({1.0}, {1}), tl::tensor({-1.0}, {1})).item<double>(), std::atan2(1.0, -1.0), 1e-15);
  EXPECT_NEAR(tl::pow(tl::tensor({2.0}, {1}), 0.5).item<double>(), std::sqrt(2.0), 1e-15);
  EXPECT_EQ((2.0 - tl::tensor({1.0}, {1})).item<double>(), 1.0);
  EXPECT_EQ((1.0 / tl::tensor({4.0}, {1})).item<double>(), 0.25);
}

TEST(Binary, LogicalAndBool) {
  auto p = tl::tensor(std::vector<bool>{true, true, false, false});
  auto q = tl::tensor(std::vector<bool>{true, false, true, false});
  EXPECT_EQ((p & q).to_vector<bool>(), (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ((p | q).to_vector<bool>(), (std::vector<bool>{true, true, true, false}));
  EXPECT_EQ((p ^ q).to_vector<bool>(), (std::vector<bool>{false, true, true, false}));
  EXPECT_EQ((!p).to_vector<bool>(), (std::vector<bool>{false, false, true, true}));
  EXPECT_EQ((p + q).dtype(), tl::DType::boolean);
  EXPECT_EQ((p + q).to_vector<bool>(), (std::vector<bool>{true, true, true, false}));
  EXPECT_EQ(tl::logical_and(tl::tensor({2.f, 0.f}, {2}), 1).to_vector<bool>(), (std::vector<bool>{true, false}));
  EXPECT_THROW(p - q, tl::DTypeError);
}

TEST(Binary, WhereAndClamp) {
  auto c = tl::tensor(std::vector<bool>{true, false, true});
  auto a = tl::tensor({1.f, 2.f, 3.f}, {3});
  EXPECT_EQ(tl::where(c, a, 0.0).to_vector<float>(), (std::vector<float>{1, 0, 3}));
  EXPECT_EQ(tl::where(c, -1, a).to_vector<float>(), (std::vector<float>{-1, 2, -1}));
  // The condition broadcasts too: [2,1] against [3].
  auto c2 = tl::reshape(tl::tensor(std::vector<bool>{true, false}), {2, 1});
  EXPECT_EQ(tl::where(c2, a, tl::zeros({3})).to_vector<float>(), (std::vector<float>{1, 2, 3, 0, 0, 0}));
  EXPECT_EQ(tl::where(c, a, tl::tensor({0.0}, {1})).dtype(), tl::DType::f64);
  EXPECT_EQ(tl::clamp(a, 1.5, 2.5).to_vector<float>(), (std::vector<float>{1.5, 2, 2.5}));
  EXPECT_EQ(tl::clamp(a, tl::full({3}, 2.f), tl::full({3}, 2.f)).to_vector<float>(), (std::vector<float>{2, 2, 2}));
  EXPECT_THROW(tl::where(a, a, a), tl::DTypeError);
}

TEST(BinaryErrors, NameTheOpAndShapes) {
  auto a = tl::zeros({2, 3}), b = tl::zeros({4});
  try {
    (void)(a + b);
    FAIL() << "no throw";
  } catch (const tl::ShapeError& e) {
    EXPECT_STREQ(e.what(), "tl::add: cannot broadcast shapes [2, 3] and [4]");
  }
  EXPECT_THROW(tl::where(tl::zeros({2}, tl::DType::boolean), a, b), tl::ShapeError);
  EXPECT_THROW(tl::maximum(a, tl::zeros({3, 3})), tl::ShapeError);
}
