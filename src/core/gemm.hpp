// Batched matrix products on contiguous row-major operands: f32/f64 go to BLIS,
// integer types to a plain loop that wraps around like the integer type does.
#pragma once

#include <cstdint>

namespace tlaloc::detail {

// C[b] = op(A[b]) * op(B[b]) for b in [0, batch). A is [batch, m, k] ([batch, k, m]
// when trans_a), B is [batch, k, n] ([batch, n, k] when trans_b), C is [batch, m, n];
// all contiguous. C is overwritten; k == 0 gives zeros.
struct GemmShape {
  std::int64_t batch = 1, m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false;
};

void gemm(const GemmShape& s, const float* a, const float* b, float* c);
void gemm(const GemmShape& s, const double* a, const double* b, double* c);
void gemm(const GemmShape& s, const std::int8_t* a, const std::int8_t* b, std::int8_t* c);
void gemm(const GemmShape& s, const std::int16_t* a, const std::int16_t* b, std::int16_t* c);
void gemm(const GemmShape& s, const std::int32_t* a, const std::int32_t* b, std::int32_t* c);
void gemm(const GemmShape& s, const std::int64_t* a, const std::int64_t* b, std::int64_t* c);
void gemm(const GemmShape& s, const std::uint8_t* a, const std::uint8_t* b, std::uint8_t* c);
void gemm(const GemmShape& s, const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* c);
void gemm(const GemmShape& s, const std::uint32_t* a, const std::uint32_t* b, std::uint32_t* c);
void gemm(const GemmShape& s, const std::uint64_t* a, const std::uint64_t* b, std::uint64_t* c);

}  // namespace tlaloc::detail
