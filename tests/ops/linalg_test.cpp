// Tests for matmul, dot_general and outer. Expected values are hand-written
// literals or come from naive loops over doubles written here.
#include <gtest/gtest.h>

#include "support/expect_error.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tlaloc/derivatives.hpp"
#include "tlaloc/ops.hpp"
#include "tlaloc/transforms.hpp"

namespace tl = tlaloc;

namespace {

using tltest::expect_error;

// Host values with their shape: the reference side of every comparison.
struct Ref {
  tl::Shape shape;
  std::vector<double> v;
};

std::int64_t count(const tl::Shape& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

// Small multiples of 1/8: every product and sum below is exact in f32 and f64.
Ref pattern(const tl::Shape& s, int seed) {
  Ref r{s, std::vector<double>(std::size_t(count(s)))};
  for (std::size_t i = 0; i < r.v.size(); ++i)
    r.v[i] = double(std::int64_t((i * 37 + std::size_t(seed) * 11) % 17) - 8) / 8.0;
  return r;
}
// Small integers in [-8, 8].
Ref int_pattern(const tl::Shape& s, int seed) {
  Ref r = pattern(s, seed);
  for (auto& x : r.v) x *= 8;
  return r;
}

tl::Tensor make(const Ref& r, tl::DType t = tl::DType::f32) { return tl::tensor(r.v, r.shape).astype(t); }

std::vector<std::int64_t> unravel(std::int64_t flat, const tl::Shape& s) {
  std::vector<std::int64_t> idx(s.size());
  for (std::size_t d = s.size(); d-- > 0;) {
    idx[d] = flat % s[d];
    flat /= s[d];
  }
  return idx;
}
std::int64_t ravel(const std::vector<std::int64_t>& idx, const tl::Shape& s) {
  std::int64_t flat = 0;
  for (std::size_t d = 0; d < s.size(); ++d) flat = flat * s[d] + idx[d];
  return flat;
}

// NumPy matmul for operands of rank >= 2: batch dims broadcast right-aligned.
Ref ref_matmul(const Ref& a, const Ref& b) {
  const std::size_t ra = a.shape.size(), rb = b.shape.size(), r = std::max(ra, rb);
  const std::int64_t m = a.shape[ra - 2], k = a.shape[ra - 1], n = b.shape[rb - 1];
  auto dim = [&](const tl::Shape& s, std::size_t d) {  // batch dim d of the result, in s
    const std::size_t lead = r - s.size();
    return d < lead ? std::int64_t(1) : s[d - lead];
  };
  tl::Shape batch(r - 2);
  for (std::size_t d = 0; d + 2 < r; ++d) batch[d] = std::max(dim(a.shape, d), dim(b.shape, d));
  Ref out{batch, {}};
  out.shape.push_back(m);
  out.shape.push_back(n);
  out.v.assign(std::size_t(count(out.shape)), 0.0);
  for (std::int64_t bi = 0; bi < count(batch); ++bi) {
    const auto idx = unravel(bi, batch);
    std::vector<std::int64_t> ia, ib;
    tl::Shape sa, sb;
    for (std::size_t d = 0; d < idx.size(); ++d) {
      if (d >= r - ra) {
        ia.push_back(dim(a.shape, d) == 1 ? 0 : idx[d]);
        sa.push_back(dim(a.shape, d));
      }
      if (d >= r - rb) {
        ib.push_back(dim(b.shape, d) == 1 ? 0 : idx[d]);
        sb.push_back(dim(b.shape, d));
      }
    }
    const std::int64_t ao = ravel(ia, sa) * m * k, bo = ravel(ib, sb) * k * n;
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (std::int64_t p = 0; p < k; ++p)
          s += a.v[std::size_t(ao + i * k + p)] * b.v[std::size_t(bo + p * n + j)];
        out.v[std::size_t((bi * m + i) * n + j)] = s;
      }
  }
  return out;
}

// StableHLO dot_general by definition: every result element is a sum over the
// contracting index space.
Ref ref_dot(const Ref& a, const Ref& b, const tl::DotDims& d) {
  auto free_of = [](std::size_t rank, const std::vector<std::int64_t>& x,
                    const std::vector<std::int64_t>& y) {
    std::vector<std::int64_t> f;
    for (std::int64_t i = 0; i < std::int64_t(rank); ++i)
      if (std::count(x.begin(), x.end(), i) == 0 && std::count(y.begin(), y.end(), i) == 0) f.push_back(i);
    return f;
  };
  const auto lf = free_of(a.shape.size(), d.lhs_batch, d.lhs_contract);
  const auto rf = free_of(b.shape.size(), d.rhs_batch, d.rhs_contract);
  Ref out;
  for (auto x : d.lhs_batch) out.shape.push_back(a.shape[std::size_t(x)]);
  for (auto x : lf) out.shape.push_back(a.shape[std::size_t(x)]);
  for (auto x : rf) out.shape.push_back(b.shape[std::size_t(x)]);
  tl::Shape cs;
  for (auto x : d.lhs_contract) cs.push_back(a.shape[std::size_t(x)]);
  out.v.assign(std::size_t(count(out.shape)), 0.0);
  for (std::int64_t o = 0; o < count(out.shape); ++o) {
    const auto oi = unravel(o, out.shape);
    std::vector<std::int64_t> ia(a.shape.size()), ib(b.shape.size());
    std::size_t q = 0;
    for (std::size_t i = 0; i < d.lhs_batch.size(); ++i, ++q) {
      ia[std::size_t(d.lhs_batch[i])] = oi[q];
      ib[std::size_t(d.rhs_batch[i])] = oi[q];
    }
    for (auto x : lf) ia[std::size_t(x)] = oi[q++];
    for (auto x : rf) ib[std::size_t(x)] = oi[q++];
    double s = 0;
    for (std::int64_t c = 0; c < count(cs); ++c) {
      const auto ci = unravel(c, cs);
      for (std::size_t i = 0; i < ci.size(); ++i) {
        ia[std::size_t(d.lhs_contract[i])] = ci[i];
        ib[std::size_t(d.rhs_contract[i])] = ci[i];
      }
      s += a.v[std::size_t(ravel(ia, a.shape))] * b.v[std::size_t(ravel(ib, b.shape))];
    }
    out.v[std::size_t(o)] = s;
  }
  return out;
}

void expect_close(const tl::Tensor& y, const tl::Shape& shape, const std::vector<double>& want,
                  double tol = 1e-6) {
  ASSERT_EQ(y.shape(), shape);
  const auto got = y.to_vector<double>();
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << "at " << i;
}
void expect_ref(const tl::Tensor& y, const Ref& r, double tol = 1e-6) { expect_close(y, r.shape, r.v, tol); }


// ---- matmul -----------------------------------------------------------------------

TEST(LinalgMatmul, TwoByTwoLiteral) {
  const auto y =
      tl::matmul(tl::tensor({1.f, 2.f, 3.f, 4.f}, {2, 2}), tl::tensor({5.f, 6.f, 7.f, 8.f}, {2, 2}));
  EXPECT_EQ(y.dtype(), tl::DType::f32);
  expect_close(y, {2, 2}, {19, 22, 43, 50});
}

TEST(LinalgMatmul, TwoDMatchesNaive) {
  const Ref a = pattern({5, 7}, 1), b = pattern({7, 3}, 2);
  expect_ref(tl::matmul(make(a), make(b)), ref_matmul(a, b));
}

TEST(LinalgMatmul, VectorTimesVectorIsRankZero) {
  const auto y = tl::matmul(tl::tensor({1.f, 2.f, 3.f}, {3}), tl::tensor({4.f, 5.f, 6.f}, {3}));
  EXPECT_EQ(y.rank(), 0);
  EXPECT_FLOAT_EQ(y.item<float>(), 32.f);
}

TEST(LinalgMatmul, VectorTimesMatrix) {
  const Ref a = pattern({1, 4}, 3), b = pattern({4, 5}, 4);
  const Ref r = ref_matmul(a, b);
  expect_close(tl::matmul(make({{4}, a.v}), make(b)), {5}, r.v);
}

TEST(LinalgMatmul, MatrixTimesVector) {
  const Ref a = pattern({3, 4}, 5), b = pattern({4, 1}, 6);
  const Ref r = ref_matmul(a, b);
  expect_close(tl::matmul(make(a), make({{4}, b.v})), {3}, r.v);
}

TEST(LinalgMatmul, BatchedTimesMatrix) {
  const Ref a = pattern({4, 3, 5}, 7), b = pattern({5, 2}, 8);
  expect_ref(tl::matmul(make(a), make(b)), ref_matmul(a, b));
}

TEST(LinalgMatmul, BatchedTimesBatched) {
  const Ref a = pattern({4, 3, 5}, 9), b = pattern({4, 5, 2}, 10);
  expect_ref(tl::matmul(make(a), make(b)), ref_matmul(a, b));
}

TEST(LinalgMatmul, BroadcastsBatchDims) {
  const Ref a = pattern({2, 1, 3, 4}, 11), b = pattern({3, 4, 5}, 12);
  const Ref r = ref_matmul(a, b);
  ASSERT_EQ(r.shape, (tl::Shape{2, 3, 3, 5}));
  expect_ref(tl::matmul(make(a), make(b)), r);
}

TEST(LinalgMatmul, MatrixTimesBatched) {
  const Ref a = pattern({3, 4}, 13), b = pattern({2, 4, 5}, 14);
  expect_ref(tl::matmul(make(a), make(b)), ref_matmul(a, b));
  const Ref a1 = pattern({1, 3, 4}, 15);
  expect_ref(tl::matmul(make(a1), make(b)), ref_matmul(a1, b));
}

TEST(LinalgMatmul, RhsBatchOfOnesAddsLeadingDims) {
  const Ref a = pattern({2, 3, 4}, 16), b = pattern({1, 1, 4, 5}, 17);
  const Ref r = ref_matmul(a, b);
  ASSERT_EQ(r.shape, (tl::Shape{1, 2, 3, 5}));
  expect_ref(tl::matmul(make(a), make(b)), r);
}

TEST(LinalgMatmul, VectorWithBatched) {
  const Ref v = pattern({1, 4}, 18), b = pattern({3, 4, 2}, 19);
  const Ref r1 = ref_matmul(v, b);  // [3, 1, 2]
  expect_close(tl::matmul(make({{4}, v.v}), make(b)), {3, 2}, r1.v);
  const Ref a = pattern({3, 2, 4}, 20), w = pattern({4, 1}, 21);
  const Ref r2 = ref_matmul(a, w);  // [3, 2, 1]
  expect_close(tl::matmul(make(a), make({{4}, w.v})), {3, 2}, r2.v);
}

TEST(LinalgMatmul, LargerWithOneAndTwoThreads) {
  const int saved = tl::num_threads();
  const Ref a = pattern({3, 65, 70}, 22), b = pattern({70, 67}, 23);
  const Ref r = ref_matmul(a, b);
  for (int t : {1, 2}) {
    tl::set_num_threads(t);
    expect_ref(tl::matmul(make(a), make(b)), r);
  }
  tl::set_num_threads(saved);
}

// ---- dtypes -------------------------------------------------------------------------

TEST(LinalgDType, F64) {
  Ref a = pattern({3, 4}, 24), b = pattern({4, 2}, 25);
  a.v[0] = 1 + 1e-12;  // visible only in double precision
  const auto y = tl::matmul(make(a, tl::DType::f64), make(b, tl::DType::f64));
  EXPECT_EQ(y.dtype(), tl::DType::f64);
  expect_ref(y, ref_matmul(a, b), 1e-15);
}

TEST(LinalgDType, HalfFloatsComputeInF32) {
  const Ref a = pattern({2, 3, 6}, 26), b = pattern({2, 6, 4}, 27);
  const Ref r = ref_matmul(a, b);
  for (auto t : {tl::DType::bf16, tl::DType::f16}) {
    const auto y = tl::matmul(make(a, t), make(b, t));
    EXPECT_EQ(y.dtype(), t);
    expect_ref(y, r, 1e-2);
  }
}

TEST(LinalgDType, Integers) {
  const Ref a = int_pattern({2, 3, 5}, 28), b = int_pattern({5, 4}, 29);
  const Ref r = ref_matmul(a, b);
  for (auto t : {tl::DType::i16, tl::DType::i32, tl::DType::i64}) {
    const auto y = tl::matmul(make(a, t), make(b, t));
    EXPECT_EQ(y.dtype(), t);
    expect_ref(y, r, 0);
  }
  // Unsigned types on the magnitudes.
  Ref ua = a, ub = b;
  for (auto& x : ua.v) x = std::fabs(x);
  for (auto& x : ub.v) x = std::fabs(x);
  const Ref ur = ref_matmul(ua, ub);
  for (auto t : {tl::DType::u8, tl::DType::u16, tl::DType::u32, tl::DType::u64}) {
    const auto y = tl::matmul(make(ua, t), make(ub, t));
    EXPECT_EQ(y.dtype(), t);
    expect_ref(y, ur, 0);
  }
}

// Products and sums wrap modulo 2^N in the operands' type.
TEST(LinalgDType, NewIntegerTypesWrapInTheirType) {
  // u32: 65536 * 65536 + 3 * 5 = 2^32 + 15 wraps to 15.
  const auto u32 = tl::matmul(tl::tensor(std::vector<std::uint32_t>{65536, 3}, {1, 2}),
                              tl::tensor(std::vector<std::uint32_t>{65536, 5}, {2, 1}));
  EXPECT_EQ(u32.dtype(), tl::DType::u32);
  EXPECT_EQ(u32.to_vector<std::uint32_t>(), std::vector<std::uint32_t>{15});
  // u64: 2^32 * 2^32 + 1 * 7 = 2^64 + 7 wraps to 7.
  const auto u64 = tl::matmul(tl::tensor(std::vector<std::uint64_t>{1ull << 32, 1}, {1, 2}),
                              tl::tensor(std::vector<std::uint64_t>{1ull << 32, 7}, {2, 1}));
  EXPECT_EQ(u64.to_vector<std::uint64_t>(), std::vector<std::uint64_t>{7});
  // i16: 200 * 200 + 100 * 1 = 40100 wraps to 40100 - 65536.
  const auto i16 = tl::matmul(tl::tensor(std::vector<std::int16_t>{200, 100}, {1, 2}),
                              tl::tensor(std::vector<std::int16_t>{200, 1}, {2, 1}));
  EXPECT_EQ(i16.to_vector<std::int16_t>(), std::vector<std::int16_t>{-25436});
  // u16: 300 * 300 + 2 * 3 = 90006 wraps to 24470.
  const auto u16 = tl::matmul(tl::tensor(std::vector<std::uint16_t>{300, 2}, {1, 2}),
                              tl::tensor(std::vector<std::uint16_t>{300, 3}, {2, 1}));
  EXPECT_EQ(u16.to_vector<std::uint16_t>(), std::vector<std::uint16_t>{24470});
  // u16 x i16 promotes to i32, which holds 300 * -200.
  const auto mixed = tl::matmul(tl::tensor(std::vector<std::uint16_t>{300}, {1, 1}),
                                tl::tensor(std::vector<std::int16_t>{-200}, {1, 1}));
  EXPECT_EQ(mixed.dtype(), tl::DType::i32);
  EXPECT_EQ(mixed.to_vector<std::int32_t>(), std::vector<std::int32_t>{-60000});
}

// Large u64 values against a naive loop that wraps in std::uint64_t.
TEST(LinalgDType, U64MatchesNaiveWrappingLoop) {
  const std::int64_t m = 3, k = 4, n = 5;
  std::vector<std::uint64_t> a(std::size_t(m * k)), b(std::size_t(k * n));
  std::uint64_t s = 0x9E3779B97F4A7C15ull;
  for (auto* v : {&a, &b})
    for (auto& x : *v) x = (s = s * 6364136223846793005ull + 1442695040888963407ull);
  std::vector<std::uint64_t> want(std::size_t(m * n), 0);
  for (std::size_t i = 0; i < std::size_t(m); ++i)
    for (std::size_t j = 0; j < std::size_t(n); ++j)
      for (std::size_t p = 0; p < std::size_t(k); ++p)
        want[i * std::size_t(n) + j] += a[i * std::size_t(k) + p] * b[p * std::size_t(n) + j];
  const auto y = tl::matmul(tl::tensor(a, {m, k}), tl::tensor(b, {k, n}));
  EXPECT_EQ(y.to_vector<std::uint64_t>(), want);
  // B stored as [n, k] is read transposed: the same products.
  const auto yt =
      tl::dot_general(tl::tensor(a, {m, k}), tl::transpose(tl::tensor(b, {k, n})), {{}, {}, {1}, {1}});
  EXPECT_EQ(yt.to_vector<std::uint64_t>(), want);
}

TEST(LinalgErrors, U64WithSignedRefused) {
  const auto u = tl::ones({2, 2}, tl::DType::u64);
  expect_error<tl::DTypeError>(
      [&] {
        tl::matmul(u, tl::ones({2, 2}, tl::DType::i64));
      },
      "matmul", "u64", "i64");
  expect_error<tl::DTypeError>(
      [&] {
        tl::dot_general(tl::ones({2}, tl::DType::i16), u, {{}, {}, {0}, {0}});
      },
      "dot_general", "i16", "u64");
}

TEST(LinalgDType, EightBitIntegersWrapInTheirType) {
  // i8: 100*2 + 100*1 = 300 wraps to 44; u8: 200*2 + 100*1 = 500 wraps to 244.
  const auto y = tl::matmul(tl::tensor(std::vector<std::int8_t>{100, 100}, {1, 2}),
                            tl::tensor(std::vector<std::int8_t>{2, 1}, {2, 1}));
  EXPECT_EQ(y.dtype(), tl::DType::i8);
  EXPECT_EQ(y.to_vector<int>(), std::vector<int>{44});
  const auto z = tl::matmul(tl::tensor(std::vector<std::uint8_t>{200, 100}, {1, 2}),
                            tl::tensor(std::vector<std::uint8_t>{2, 1}, {2, 1}));
  EXPECT_EQ(z.dtype(), tl::DType::u8);
  EXPECT_EQ(z.to_vector<int>(), std::vector<int>{244});
  // i8 x u8 promotes to i16, which holds 100*200 - 100*1 = 19900: no wrap.
  const auto w = tl::matmul(tl::tensor(std::vector<std::int8_t>{100, -100}, {1, 2}),
                            tl::tensor(std::vector<std::uint8_t>{200, 1}, {2, 1}));
  EXPECT_EQ(w.dtype(), tl::DType::i16);
  EXPECT_EQ(w.to_vector<int>(), std::vector<int>{19900});
}

TEST(LinalgDType, Int32WrapsWithoutUndefinedBehaviour) {
  // 2^30 * 4 = 2^32 wraps to 0 in i32; plus 1 * 5.
  const auto y = tl::matmul(tl::tensor(std::vector<std::int32_t>{1 << 30, 1}, {1, 2}),
                            tl::tensor(std::vector<std::int32_t>{4, 5}, {2, 1}));
  EXPECT_EQ(y.to_vector<std::int32_t>(), std::vector<std::int32_t>{5});
}

TEST(LinalgDType, MixedPromote) {
  const Ref a = int_pattern({2, 3}, 30), b = pattern({3, 2}, 31);
  const Ref r = ref_matmul(a, b);
  const auto y = tl::matmul(make(a, tl::DType::i32), make(b, tl::DType::f32));
  EXPECT_EQ(y.dtype(), tl::DType::f32);
  expect_ref(y, r);
  const auto z = tl::matmul(make(a, tl::DType::f32), make(b, tl::DType::f64));
  EXPECT_EQ(z.dtype(), tl::DType::f64);
  expect_ref(z, r);
  const auto h = tl::matmul(make(a, tl::DType::bf16), make(b, tl::DType::f16));
  EXPECT_EQ(h.dtype(), tl::DType::f32);
  expect_ref(h, r);
}

// ---- dot_general --------------------------------------------------------------------

TEST(LinalgDotGeneral, TransposedOperands) {
  // lhs [K, M] contracting its first dim, rhs [N, K] contracting its last.
  const Ref a = pattern({4, 3}, 32), b = pattern({5, 4}, 33);
  const tl::DotDims d{{}, {}, {0}, {1}};
  const auto y = tl::dot_general(make(a), make(b), d);
  expect_ref(y, ref_dot(a, b, d));
  EXPECT_EQ(y.shape(), (tl::Shape{3, 5}));
}

TEST(LinalgDotGeneral, BatchNotLeading) {
  // lhs [K, B, M], rhs [N, B, K]: batch is the middle dim of both.
  const Ref a = pattern({4, 2, 3}, 34), b = pattern({5, 2, 4}, 35);
  const tl::DotDims d{{1}, {1}, {0}, {2}};
  const auto y = tl::dot_general(make(a), make(b), d);
  EXPECT_EQ(y.shape(), (tl::Shape{2, 3, 5}));
  expect_ref(y, ref_dot(a, b, d));
}

TEST(LinalgDotGeneral, BatchedTransposes) {
  const Ref a = pattern({2, 4, 3}, 36), b = pattern({2, 5, 4}, 37);  // [B, K, M] x [B, N, K]
  const tl::DotDims d{{0}, {0}, {1}, {2}};
  expect_ref(tl::dot_general(make(a), make(b), d), ref_dot(a, b, d));
}

TEST(LinalgDotGeneral, SeveralContractingDimsInAnyOrder) {
  const Ref a = pattern({2, 3, 4}, 38), b = pattern({4, 5, 2}, 39);
  const tl::DotDims d{{}, {}, {2, 0}, {0, 2}};
  const auto y = tl::dot_general(make(a), make(b), d);
  EXPECT_EQ(y.shape(), (tl::Shape{3, 5}));
  expect_ref(y, ref_dot(a, b, d));
}

TEST(LinalgDotGeneral, SeveralBatchAndFreeDims) {
  const Ref a = pattern({3, 2, 4, 2}, 40), b = pattern({2, 4, 3, 3}, 41);
  const tl::DotDims d{{3, 0}, {0, 2}, {2}, {1}};  // batch sizes (2, 3), contracting 4
  const auto y = tl::dot_general(make(a), make(b), d);
  EXPECT_EQ(y.shape(), (tl::Shape{2, 3, 2, 3}));
  expect_ref(y, ref_dot(a, b, d));
}

TEST(LinalgDotGeneral, NoContractionIsAnOuterProduct) {
  const Ref a = pattern({2, 3}, 42), b = pattern({4}, 43);
  const tl::DotDims d{};
  const auto y = tl::dot_general(make(a), make(b), d);
  EXPECT_EQ(y.shape(), (tl::Shape{2, 3, 4}));
  expect_ref(y, ref_dot(a, b, d));
}

TEST(LinalgDotGeneral, NegativeDimsCountFromTheEnd) {
  const Ref a = pattern({2, 3, 4}, 44), b = pattern({2, 4, 5}, 45);
  const auto y = tl::dot_general(make(a), make(b), {{-3}, {0}, {-1}, {-2}});
  expect_ref(y, ref_dot(a, b, {{0}, {0}, {2}, {1}}));
}

TEST(LinalgDotGeneral, IntegerWithUnusualOrder) {
  const Ref a = int_pattern({4, 2, 3}, 46), b = int_pattern({5, 2, 4}, 47);
  const tl::DotDims d{{1}, {1}, {0}, {2}};
  const auto y = tl::dot_general(make(a, tl::DType::i32), make(b, tl::DType::i32), d);
  EXPECT_EQ(y.dtype(), tl::DType::i32);
  expect_ref(y, ref_dot(a, b, d), 0);
  const Ref c = int_pattern({4, 3}, 48), e = int_pattern({5, 4}, 49);  // transposed reads
  expect_ref(tl::dot_general(make(c, tl::DType::i64), make(e, tl::DType::i64), {{}, {}, {0}, {1}}),
             ref_dot(c, e, {{}, {}, {0}, {1}}), 0);
}

// ---- empty --------------------------------------------------------------------------

TEST(LinalgEmpty, ZeroContractionGivesZeros) {
  for (auto t : {tl::DType::f32, tl::DType::f64, tl::DType::bf16, tl::DType::i32}) {
    const auto y = tl::matmul(tl::zeros({3, 0}, t), tl::zeros({0, 4}, t));
    expect_close(y, {3, 4}, std::vector<double>(12, 0.0), 0);
  }
  const auto v = tl::matmul(tl::zeros({0}), tl::zeros({0}));
  EXPECT_EQ(v.rank(), 0);
  EXPECT_EQ(v.item<float>(), 0.f);
}

TEST(LinalgEmpty, ZeroRowsColumnsOrBatch) {
  EXPECT_EQ(tl::matmul(tl::zeros({0, 3}), tl::ones({3, 4})).shape(), (tl::Shape{0, 4}));
  EXPECT_EQ(tl::matmul(tl::ones({2, 3}), tl::ones({3, 0})).shape(), (tl::Shape{2, 0}));
  EXPECT_EQ(tl::matmul(tl::ones({0, 2, 3}), tl::ones({3, 4})).shape(), (tl::Shape{0, 2, 4}));
  EXPECT_EQ(tl::matmul(tl::ones({0, 2, 3}), tl::ones({1, 3, 4})).shape(), (tl::Shape{0, 2, 4}));
  EXPECT_EQ(tl::matmul(tl::ones({1, 2, 3}), tl::ones({0, 3, 4})).shape(), (tl::Shape{0, 2, 4}));
  EXPECT_EQ(tl::matmul(tl::ones({2, 3}, tl::DType::i64), tl::ones({3, 0}, tl::DType::i64)).shape(),
            (tl::Shape{2, 0}));
}

// ---- outer --------------------------------------------------------------------------

TEST(LinalgOuter, VectorsAndFlattening) {
  expect_close(tl::outer(tl::tensor({1.f, 2.f}, {2}), tl::tensor({3.f, 4.f, 5.f}, {3})), {2, 3},
               {3, 4, 5, 6, 8, 10});
  expect_close(tl::outer(tl::tensor({1.f, 2.f, 3.f, 4.f}, {2, 2}), tl::tensor({-1.f}, {1})), {4, 1},
               {-1, -2, -3, -4});
  EXPECT_EQ(tl::outer(tl::zeros({0}), tl::ones({3})).shape(), (tl::Shape{0, 3}));
}

// ---- errors -------------------------------------------------------------------------

TEST(LinalgErrors, MatmulShapes) {
  expect_error<tl::ShapeError>([] { tl::matmul(tl::ones({}), tl::ones({2})); }, "matmul");
  expect_error<tl::ShapeError>([] { tl::matmul(tl::ones({2, 3}), tl::ones({4, 2})); }, "matmul");
  expect_error<tl::ShapeError>([] { tl::matmul(tl::ones({3}), tl::ones({4})); }, "matmul");
  expect_error<tl::ShapeError>([] { tl::matmul(tl::ones({2, 2, 3}), tl::ones({3, 3, 4})); }, "matmul");
}

TEST(LinalgErrors, MatmulMessageNamesShapes) {
  try {
    tl::matmul(tl::ones({2, 3}), tl::ones({4, 2}));
    FAIL();
  } catch (const tl::ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("[2, 3]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[4, 2]"), std::string::npos) << e.what();
  }
}

TEST(LinalgErrors, BoolRefused) {
  const auto t = tl::ones({2, 2}, tl::DType::boolean);
  expect_error<tl::DTypeError>([&] { tl::matmul(t, t); }, "matmul");
  expect_error<tl::DTypeError>([&] { tl::dot_general(t, t, {{}, {}, {1}, {0}}); }, "dot_general");
}

TEST(LinalgErrors, DotGeneralDimOutOfRange) {
  expect_error<tl::AxisError>(
      [] {
        tl::dot_general(tl::ones({2, 3}), tl::ones({3, 2}), {{}, {}, {2}, {0}});
      },
      "dot_general");
  expect_error<tl::AxisError>(
      [] {
        tl::dot_general(tl::ones({2, 3}), tl::ones({3, 2}), {{}, {}, {1}, {-3}});
      },
      "dot_general");
}

TEST(LinalgErrors, DotGeneralDimRepeated) {
  expect_error<tl::AxisError>(
      [] {
        tl::dot_general(tl::ones({3, 3}), tl::ones({3, 3}), {{0}, {0}, {0}, {1}});
      },
      "dot_general");
  expect_error<tl::AxisError>(
      [] {
        tl::dot_general(tl::ones({3, 3}), tl::ones({3, 3}), {{}, {}, {1, 1}, {0, 1}});
      },
      "dot_general");
}

TEST(LinalgErrors, DotGeneralSizesDiffer) {
  expect_error<tl::ShapeError>(
      [] {
        tl::dot_general(tl::ones({2, 3}), tl::ones({4, 2}), {{}, {}, {1}, {0}});
      },
      "dot_general");
  expect_error<tl::ShapeError>(
      [] {
        tl::dot_general(tl::ones({2, 3, 4}), tl::ones({3, 4, 5}), {{0}, {0}, {2}, {1}});
      },
      "dot_general");
}

TEST(LinalgErrors, DotGeneralCountsDiffer) {
  expect_error<tl::ShapeError>(
      [] {
        tl::dot_general(tl::ones({2, 3}), tl::ones({2, 3}), {{0}, {}, {1}, {1}});
      },
      "dot_general");
  expect_error<tl::ShapeError>(
      [] {
        tl::dot_general(tl::ones({2, 3}), tl::ones({2, 3}), {{}, {}, {0, 1}, {0}});
      },
      "dot_general");
}

// ---- matmul_backward ----------------------------------------------------------------

// Values whose products and sums round (unlike pattern's), so that equal bits show
// that the additions happened in the same order.
tl::Tensor rough(const tl::Shape& s, double phase, tl::DType t = tl::DType::f32) {
  return tl::sin(tl::reshape(tl::arange(count(s)).astype(tl::DType::f64), s) * 0.731 + phase).astype(t);
}

// Every rank matmul takes, batches that broadcast each way, and mixed dtypes.
TEST(LinalgMatmulBackward, SameBitsAsTheEnginesPullback) {
  struct Case {
    tl::Shape a, b;
    tl::DType bt = tl::DType::f32;
  };
  const std::vector<Case> cases{{{3, 4}, {4, 5}},
                                {{4}, {4, 5}},
                                {{3, 4}, {4}},
                                {{4}, {4}},
                                {{2, 3, 4}, {4, 5}},
                                {{3, 4}, {2, 4, 5}},
                                {{2, 3, 4}, {2, 4, 5}},
                                {{2, 1, 3, 4}, {1, 5, 4, 2}},
                                {{1, 3, 4}, {2, 4, 5}},
                                {{2, 3, 4}, {1, 4, 5}},
                                {{2, 3, 4}, {4}},
                                {{4}, {2, 4, 5}},
                                {{6, 2, 3, 4}, {2, 4, 5}},
                                {{2, 3, 4}, {2, 4, 5}, tl::DType::f64}};
  for (const Case& c : cases) {
    const tl::Tensor a = rough(c.a, 0.1), b = rough(c.b, 0.7, c.bt);
    auto [y, pullback] =
        tl::vjp([](const tl::Tensor& p, const tl::Tensor& q) { return tl::matmul(p, q); }, a, b);
    const tl::Tensor g = rough(y.shape(), 1.3, y.dtype());
    const std::vector<tl::Tensor> shares = pullback(g);
    for (int i = 0; i < 2; ++i) {
      const tl::Tensor mine = tl::derivatives::matmul_backward(g, a, b, i);
      SCOPED_TRACE(tl::shape_string(c.a) + " x " + tl::shape_string(c.b) + ", operand " + std::to_string(i));
      EXPECT_EQ(mine.shape(), shares.at(std::size_t(i)).shape());
      EXPECT_EQ(mine.dtype(), shares.at(std::size_t(i)).dtype());
      EXPECT_EQ(mine.to_vector<double>(), shares.at(std::size_t(i)).to_vector<double>());
    }
  }
}

// Against the definition: a's share of [2, 3] x [3] is g (as a column) times b as a row.
TEST(LinalgMatmulBackward, MatrixTimesVectorByHand) {
  const tl::Tensor a = tl::ones({2, 3}), b = tl::tensor({1.f, 2.f, 3.f}, {3}),
                   g = tl::tensor({10.f, 20.f}, {2});
  EXPECT_EQ(tl::derivatives::matmul_backward(g, a, b, 0).to_vector<float>(), (std::vector<float>{10, 20, 30, 20, 40, 60}));
  EXPECT_EQ(tl::derivatives::matmul_backward(g, a, b, 1).to_vector<float>(), (std::vector<float>{30, 30, 30}));
}

TEST(LinalgMatmulBackward, ChecksItsArguments) {
  const tl::Tensor a = tl::ones({2, 3}), b = tl::ones({3, 4});
  expect_error<tl::ShapeError>([&] { tl::derivatives::matmul_backward(tl::ones({2, 5}), a, b, 0); }, "matmul_backward");
  expect_error<tl::ValueError>([&] { tl::derivatives::matmul_backward(tl::ones({2, 4}), a, b, 2); }, "matmul_backward");
  expect_error<tl::ShapeError>([&] { tl::derivatives::matmul_backward(tl::ones({2, 4}), a, a, 0); }, "matmul");
}

// ---- dot_general_backward -------------------------------------------------------

// x @ w^T (a Linear layer's product): x's share is g @ w, w's is g^T @ x.
TEST(LinalgDotGeneralBackward, ContractingTheLastAxesIsAProductWithATranspose) {
  const tl::Tensor x = rough({3, 4}, 0.1, tl::DType::f64), w = rough({5, 4}, 0.7, tl::DType::f64);
  const tl::Tensor g = rough({3, 5}, 1.3, tl::DType::f64);
  const tl::DotDims dims{{}, {}, {1}, {1}};
  const auto near = [](const tl::Tensor& mine, const tl::Tensor& expected) {
    ASSERT_EQ(mine.shape(), expected.shape());
    const std::vector<double> m = mine.to_vector<double>(), e = expected.to_vector<double>();
    for (std::size_t i = 0; i < m.size(); ++i) EXPECT_NEAR(m[i], e[i], 1e-13) << "element " << i;
  };
  near(tl::derivatives::dot_general_backward(g, x, w, dims, 0), tl::matmul(g, w));
  near(tl::derivatives::dot_general_backward(g, x, w, dims, 1), tl::matmul(tl::transpose(g), x));
}

// A batched product as dot_general is matmul's: the same shares as matmul_backward.
TEST(LinalgDotGeneralBackward, BatchedProductIsMatmuls) {
  const tl::Tensor a = rough({2, 3, 4}, 0.1), b = rough({2, 4, 5}, 0.7), g = rough({2, 3, 5}, 1.3);
  const tl::DotDims dims{{0}, {0}, {2}, {1}};
  for (int i = 0; i < 2; ++i)
    EXPECT_EQ(tl::derivatives::dot_general_backward(g, a, b, dims, i).to_vector<float>(),
              tl::derivatives::matmul_backward(g, a, b, i).to_vector<float>())
        << "operand " << i;
}

TEST(LinalgDotGeneralBackward, ChecksItsArguments) {
  const tl::Tensor a = tl::ones({2, 3}), b = tl::ones({4, 3});
  const tl::DotDims dims{{}, {}, {1}, {1}};
  expect_error<tl::ShapeError>([&] { tl::derivatives::dot_general_backward(tl::ones({2}), a, b, dims, 0); },
                               "dot_general_backward", "[2]");
  expect_error<tl::ValueError>(
      [&] {
        tl::derivatives::dot_general_backward(tl::ones({2, 4}), a, b, dims, 2);
      },
      "dot_general_backward");
}

}  // namespace
