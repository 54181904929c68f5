// Complex tensors (c64, c128): creation, promotion, printing, the parts, and fft
// against a direct O(N^2) sum written here; refusals of what has no complex kernel.
#include <gtest/gtest.h>

#include <tlaloc/tlaloc.hpp>

#include "support/expect_error.hpp"
#include "support/lowering.hpp"

#include <cmath>
#include <complex>
#include <numbers>
#include <random>
#include <vector>

namespace tl = tlaloc;

namespace {

using tl::DType;
using tl::Tensor;
using Cd = std::complex<double>;
using Cf = std::complex<float>;

std::vector<Cd> random_values(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Cd> v(n);
  for (Cd& z : v) z = Cd(u(gen), u(gen));
  return v;
}

// X[k] = sum_n x[n] exp(-+2 pi i k n / N) along the last axis of rows x n values.
std::vector<Cd> direct_dft(const std::vector<Cd>& x, std::size_t n, bool inverse) {
  std::vector<Cd> y(x.size());
  const double sign = inverse ? 1.0 : -1.0;
  for (std::size_t r = 0; r < x.size() / n; ++r)
    for (std::size_t k = 0; k < n; ++k) {
      Cd s = 0;
      for (std::size_t j = 0; j < n; ++j)
        s += x[r * n + j] * std::polar(1.0, sign * 2.0 * std::numbers::pi * double(k * j) / double(n));
      y[r * n + k] = inverse ? s / double(n) : s;
    }
  return y;
}

void expect_near_all(const std::vector<Cd>& got, const std::vector<Cd>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_LT(std::abs(got[i] - want[i]), tol) << "at " << i;
}

TEST(Complex, DtypesAndPromotion) {
  EXPECT_EQ(tl::itemsize(DType::c64), 8u);
  EXPECT_EQ(tl::itemsize(DType::c128), 16u);
  EXPECT_EQ(tl::dtype_name(DType::c128), "c128");
  EXPECT_EQ(tl::real_dtype(DType::c64), DType::f32);
  EXPECT_EQ(tl::complex_dtype(DType::f64), DType::c128);
  EXPECT_EQ(tl::promote_types(DType::c64, DType::f64), DType::c128);
  EXPECT_EQ(tl::promote_types(DType::c64, DType::i64), DType::c64);
  EXPECT_EQ(tl::promote_types(DType::bf16, DType::c64), DType::c64);
  EXPECT_EQ(tl::promote_types(DType::c128, DType::c64), DType::c128);
  tltest::expect_error<tl::DTypeError>([] { (void)tl::complex_dtype(DType::i32); }, "complex_dtype", "i32");
}

TEST(Complex, TensorsHoldAndPrintPairs) {
  const Tensor z = tl::tensor(std::vector<Cf>{{1.5f, -2.0f}, {0.0f, 1.0f}});
  EXPECT_EQ(z.dtype(), DType::c64);
  EXPECT_EQ(z.to_vector<Cf>()[0], Cf(1.5f, -2.0f));
  EXPECT_EQ(z.to_string(), "tensor([1.5-2.j, 0.+1.j], dtype=c64)");
  // A real tensor converts with a zero imaginary part; back, the imaginary part is dropped.
  const Tensor r = tl::tensor({1.0, -3.0}).astype(DType::c128);
  EXPECT_EQ(r.to_vector<Cd>()[1], Cd(-3.0, 0.0));
  EXPECT_EQ(z.astype(DType::f32).to_vector<float>(), (std::vector<float>{1.5f, 0.0f}));
  // With a real operand, arithmetic promotes to complex: (1.5 - 2i) * 2 and i * 2.
  const Tensor twice = z * tl::tensor({2.0f, 2.0f});
  EXPECT_EQ(twice.dtype(), DType::c64);
  EXPECT_EQ(twice.to_vector<Cf>()[0], Cf(3.0f, -4.0f));
  EXPECT_EQ((z * 2.0).to_vector<Cf>()[1], Cf(0.0f, 2.0f));
  EXPECT_EQ(tl::mean(z).item<Cf>(), Cf(0.75f, -0.5f));
  EXPECT_EQ(tl::sum(z).item<Cf>(), Cf(1.5f, -1.0f));
}

TEST(Complex, PartsRoundTrip) {
  const Tensor re = tl::tensor({1.0, 2.0, 3.0}), im = tl::tensor({-1.0, 0.5, 4.0});
  const Tensor z = tl::lax::complex(re, im);
  EXPECT_EQ(z.dtype(), DType::c128);
  EXPECT_EQ(tl::lax::real(z).to_vector<double>(), re.to_vector<double>());
  EXPECT_EQ(tl::lax::imag(z).to_vector<double>(), im.to_vector<double>());
  EXPECT_EQ(tl::abs(tl::lax::complex(tl::tensor({3.0f}), tl::tensor({4.0f}))).to_vector<float>()[0], 5.0f);
  tltest::expect_error<tl::DTypeError>([&] { (void)tl::lax::complex(re, im.astype(DType::f32)); }, "complex",
                                       "f64", "f32");
  tltest::expect_error<tl::ShapeError>([&] { (void)tl::lax::complex(re, tl::tensor({1.0})); }, "complex",
                                       "[3]", "[1]");
}

TEST(Complex, FftAgreesWithTheDirectSum) {
  // 8 (radix 2) and 6 (the direct path) values per row, 3 rows.
  for (std::size_t n : {std::size_t(8), std::size_t(6)}) {
    const std::vector<Cd> x = random_values(3 * n, unsigned(n));
    const Tensor t = tl::tensor(x, {3, std::int64_t(n)});
    const Tensor f = tl::lax::fft(t, "FFT", {std::int64_t(n)});
    expect_near_all(f.to_vector<Cd>(), direct_dft(x, n, false), 1e-12);
    const Tensor back = tl::lax::fft(f, "IFFT", {std::int64_t(n)});
    expect_near_all(back.to_vector<Cd>(), x, 1e-12);
  }
}

TEST(Complex, FftOverTwoAxesIsOneAxisAfterTheOther) {
  const std::vector<Cd> x = random_values(4 * 6, 7);
  const Tensor t = tl::tensor(x, {4, 6});
  const Tensor both = tl::lax::fft(t, "FFT", {4, 6});
  const Tensor rows = tl::lax::fft(t, "FFT", {6});
  const Tensor cols = tl::transpose(tl::lax::fft(tl::transpose(rows, {1, 0}), "FFT", {4}), {1, 0});
  expect_near_all(both.to_vector<Cd>(), cols.to_vector<Cd>(), 1e-12);
}

TEST(Complex, RealTransformsKeepHalfAndComeBack) {
  for (std::int64_t n : {8, 7}) {
    std::vector<double> x(std::size_t(2 * n));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.7 * double(i)) + 0.1 * double(i);
    const Tensor t = tl::tensor(x, {2, n});
    const Tensor r = tl::lax::fft(t, "RFFT", {n});
    EXPECT_EQ(r.shape(), (tl::Shape{2, n / 2 + 1}));
    const Tensor full = tl::lax::fft(t.astype(DType::c128), "FFT", {n});
    const std::vector<Cd> fv = full.to_vector<Cd>(), rv = r.to_vector<Cd>();
    for (std::int64_t row = 0; row < 2; ++row)
      for (std::int64_t k = 0; k <= n / 2; ++k)
        EXPECT_LT(std::abs(rv[std::size_t(row * (n / 2 + 1) + k)] - fv[std::size_t(row * n + k)]), 1e-12);
    const Tensor back = tl::lax::fft(r, "IRFFT", {n});
    EXPECT_EQ(back.dtype(), DType::f64);
    const std::vector<double> bv = back.to_vector<double>();
    for (std::size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(bv[i], x[i], 1e-12);
  }
}

// Traced, lowered to StableHLO text, parsed back and interpreted: the same bits as eager.
TEST(Complex, LowersToStableHlo) {
  const Tensor z = tl::tensor(std::vector<Cf>{{3.0f, 4.0f}, {-1.0f, 0.5f}, {0.0f, 0.0f}});
  const tltest::Fn fn = [](std::span<const Tensor> a) {
    const Tensor x = a[0];
    return std::vector<Tensor>{tl::abs(x),
                               tl::sign(x),
                               tl::lax::real(x),
                               tl::lax::imag(x),
                               tl::lax::complex(tl::lax::real(x), tl::lax::imag(x)),
                               tl::exp(x) * x,
                               x / (x + 1.0),
                               tl::lax::fft(x, "FFT", {3}),
                               tl::sum(x),
                               x.astype(DType::c128),
                               x == x};
  };
  tltest::expect_round_trip(fn, {z});
}

TEST(Complex, RefusesByName) {
  const Tensor z = tl::tensor(std::vector<Cf>{{1.0f, 1.0f}});
  tltest::expect_error<tl::DTypeError>([&] { (void)tl::erf(z); }, "erf", "c64");
  tltest::expect_error<tl::DTypeError>([&] { (void)tl::max(z); }, "reduce_max", "c64");
  tltest::expect_error<tl::DTypeError>([&] { (void)tl::floor(z); }, "floor", "c64");
  tltest::expect_error<tl::DTypeError>([&] { (void)tl::var(z); }, "square", "c64");
  tltest::expect_error<tl::DTypeError>([&] { (void)tl::lax::fft(tl::tensor({1.0f}), "FFT", {1}); }, "fft",
                                       "complex", "f32");
  tltest::expect_error<tl::ShapeError>([&] { (void)tl::lax::fft(z, "FFT", {4}); }, "fft", "[4]", "[1]");
  tltest::expect_error<tl::ValueError>([&] { (void)tl::lax::fft(z, "DCT", {1}); }, "fft", "DCT");
  // grad takes floating arguments only.
  tltest::expect_error_with<tl::DTypeError>(
      [&] { (void)tl::grad([](const Tensor& x) { return tl::sum(tl::abs(x)); })(z); },
      {"c64", "only floating-point tensors can be differentiated"});
}

}  // namespace
