#include "core/gemm.hpp"

#include <blis.h>

#include <algorithm>
#include <type_traits>
#include <vector>

#include "core/parallel.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::detail {
namespace {

// Multiply-adds below which a part is not worth a thread, and the row or column
// block a product is cut in (a multiple of the BLAS kernels' register tiles).
constexpr std::int64_t kMinWork = std::int64_t(1) << 18;
constexpr std::int64_t kCutBlock = 32;

// Empty products: nothing to do, or zeros when only k is 0.
template <class T>
bool trivial(const GemmShape& s, T* c) {
  if (s.batch == 0 || s.m == 0 || s.n == 0) return true;
  if (s.k != 0) return false;
  std::fill(c, c + s.batch * s.m * s.n, T(0));
  return true;
}

static_assert(sizeof(dim_t) == sizeof(std::int64_t), "BLIS sizes are 64-bit here");

// Each BLIS call runs on the calling thread: the runtime object asks for one thread
// per call, and nothing global is set, so a program's own BLAS (OpenBLAS or BLIS)
// keeps its settings. tlaloc's threads share the work out (docs/PERFORMANCE.md: two
// thread pools on the same cores fight).
template <class T>
void blis_call(trans_t ta, trans_t tb, std::int64_t m, std::int64_t n, std::int64_t k, const T* a,
               std::int64_t lda, const T* b, std::int64_t ldb, T* c, std::int64_t ldc) {
  rntm_t one_thread = BLIS_RNTM_INITIALIZER;
  bli_rntm_set_num_threads(1, &one_thread);
  T alpha = 1, beta = 0;
  // BLIS takes non-const pointers to inputs it only reads.
  auto* ma = const_cast<T*>(a);
  auto* mb = const_cast<T*>(b);
  if constexpr (std::is_same_v<T, float>)
    bli_sgemm_ex(ta, tb, m, n, k, &alpha, ma, lda, 1, mb, ldb, 1, &beta, c, ldc, 1, nullptr, &one_thread);
  else
    bli_dgemm_ex(ta, tb, m, n, k, &alpha, ma, lda, 1, mb, ldb, 1, &beta, c, ldc, 1, nullptr, &one_thread);
}

// Products on tlaloc's threads: batch entries split between them when there are
// enough, otherwise each product cut along the longer of m and n. The cuts depend
// only on the shape and the thread count.
template <class T>
void blas_gemm(const GemmShape& s, const T* a, const T* b, T* c) {
  if (trivial(s, c)) return;
  const std::int64_t lda = s.trans_a ? s.m : s.k, ldb = s.trans_b ? s.k : s.n;
  const trans_t ta = s.trans_a ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE;
  const trans_t tb = s.trans_b ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE;
  // Rows [r0, r1) and columns [c0, c1) of C[i].
  const auto block = [&](std::int64_t i, std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1) {
    blis_call(ta, tb, r1 - r0, c1 - c0, s.k, a + i * s.m * s.k + r0 * (s.trans_a ? 1 : lda), lda,
              b + i * s.k * s.n + c0 * (s.trans_b ? ldb : 1), ldb, c + i * s.m * s.n + r0 * s.n + c0, s.n);
  };
  const std::int64_t work = s.m * s.n * s.k;
  if (s.batch >= num_threads()) {
    parallel_for(s.batch, std::max<std::int64_t>(1, kMinWork / work), [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t i = lo; i < hi; ++i) block(i, 0, s.m, 0, s.n);
    });
    return;
  }
  const bool by_rows = s.m >= s.n;
  const std::int64_t len = by_rows ? s.m : s.n, blocks = (len + kCutBlock - 1) / kCutBlock;
  const std::int64_t grain = std::max<std::int64_t>(1, kMinWork / (work / len * kCutBlock));
  for (std::int64_t i = 0; i < s.batch; ++i)
    parallel_for(blocks, grain, [&](std::int64_t lo, std::int64_t hi) {
      const std::int64_t from = lo * kCutBlock, to = std::min(len, hi * kCutBlock);
      if (by_rows)
        block(i, from, to, 0, s.n);
      else
        block(i, 0, s.m, from, to);
    });
}

// Integer products accumulate in a wide unsigned type: it wraps where the signed
// type would overflow (undefined), and its low bits are the wrapped result.
// Signed elements are sign-extended, unsigned ones zero-extended, on the way in.
template <class T>
void int_gemm(const GemmShape& s, const T* a, const T* b, T* c) {
  if (trivial(s, c)) return;
  using W = std::conditional_t<(sizeof(T) > 4), std::uint64_t, std::uint32_t>;
  const std::int64_t m = s.m, n = s.n, k = s.k;
  // Element (i, p) of A is at i * a_i + p * a_p; element (p, j) of B at p * b_p + j * b_j.
  const std::int64_t a_i = s.trans_a ? 1 : k, a_p = s.trans_a ? m : 1;
  const std::int64_t b_p = s.trans_b ? 1 : n, b_j = s.trans_b ? k : 1;
  const std::int64_t grain = std::max<std::int64_t>(1, kElementwiseGrain / (n * k));
  parallel_for(s.batch * m, grain, [&](std::int64_t lo, std::int64_t hi) {
    std::vector<W> acc(static_cast<std::size_t>(n));
    for (std::int64_t r = lo; r < hi; ++r) {
      const T* ar = a + (r / m) * m * k + (r % m) * a_i;
      const T* bm = b + (r / m) * k * n;
      std::fill(acc.begin(), acc.end(), W(0));
      for (std::int64_t p = 0; p < k; ++p) {
        const W av = W(std::int64_t(ar[p * a_p]));
        const T* br = bm + p * b_p;
        for (std::int64_t j = 0; j < n; ++j) acc[std::size_t(j)] += av * W(std::int64_t(br[j * b_j]));
      }
      for (std::int64_t j = 0; j < n; ++j) c[r * n + j] = T(acc[std::size_t(j)]);
    }
  });
}

}  // namespace

void gemm(const GemmShape& s, const float* a, const float* b, float* c) { blas_gemm(s, a, b, c); }
void gemm(const GemmShape& s, const double* a, const double* b, double* c) { blas_gemm(s, a, b, c); }
#define TLALOC_INT_GEMM(T) \
  void gemm(const GemmShape& s, const T* a, const T* b, T* c) { int_gemm(s, a, b, c); }
TLALOC_INT_GEMM(std::int8_t)
TLALOC_INT_GEMM(std::int16_t)
TLALOC_INT_GEMM(std::int32_t)
TLALOC_INT_GEMM(std::int64_t)
TLALOC_INT_GEMM(std::uint8_t)
TLALOC_INT_GEMM(std::uint16_t)
TLALOC_INT_GEMM(std::uint32_t)
TLALOC_INT_GEMM(std::uint64_t)
#undef TLALOC_INT_GEMM

}  // namespace tlaloc::detail
