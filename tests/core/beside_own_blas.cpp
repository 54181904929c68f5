// A program that calls OpenBLAS itself and links Tlaloc: Tlaloc's matrix products
// leave its BLAS as they found it (the thread count it set, and the bits it computes).
#include <cblas.h>

#include <cmath>
#include <cstdio>
#include <tlaloc/tlaloc.hpp>
#include <vector>

namespace tl = tlaloc;

namespace {

constexpr int kN = 192;

std::vector<float> own_product(const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<float> c(a.size());
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, kN, kN, kN, 1.0f, a.data(), kN, b.data(), kN, 0.0f,
              c.data(), kN);
  return c;
}

}  // namespace

int main() {
  openblas_set_num_threads(2);
  const int before = openblas_get_num_threads();
  std::vector<float> a(kN * kN), b(kN * kN);
  for (int i = 0; i < kN * kN; ++i) {
    a[std::size_t(i)] = std::sin(float(i));
    b[std::size_t(i)] = std::cos(float(i) * 0.5f);
  }
  const std::vector<float> first = own_product(a, b);

  // Products cut across Tlaloc's threads, one batched, in both float types.
  tl::set_num_threads(2);
  const tl::Tensor ta = tl::tensor(a, {kN, kN}), tb = tl::tensor(b, {kN, kN});
  const tl::Tensor ours = tl::matmul(ta, tb);
  const tl::Tensor batched = tl::matmul(tl::reshape(ta, {3, 64, kN}), tl::transpose(tb));
  const tl::Tensor wide = tl::matmul(ta.astype(tl::DType::f64), tb.astype(tl::DType::f64));

  const int after = openblas_get_num_threads();
  const std::vector<float> second = own_product(a, b);
  std::printf("openblas_get_num_threads(): %d before tl::matmul, %d after\n", before, after);

  double worst = 0;
  const float* mine = ours.data<float>();
  for (std::size_t i = 0; i < first.size(); ++i)
    worst = std::max(worst, double(std::fabs(mine[i] - first[i])));
  std::printf("largest difference from OpenBLAS's product: %.3g; batched %lld elements, f64 %lld\n", worst,
              static_cast<long long>(batched.numel()), static_cast<long long>(wide.numel()));
  if (before != after) return std::puts("FAIL: the thread count changed"), 1;
  if (first != second) return std::puts("FAIL: OpenBLAS's own product changed"), 1;
  if (worst > 1e-3) return std::puts("FAIL: Tlaloc's product differs from OpenBLAS's"), 1;
  return 0;
}
