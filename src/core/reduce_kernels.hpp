// Reduction loops. A reduction sees its input as [outer, R, inner] (reduced axes in
// the middle) and combines with a fixed tree, so the result depends only on the
// shape and the thread count.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "core/parallel.hpp"

namespace tlaloc::detail {

template <class A> struct SumOp {
  static A init() { return A(0); }
  static A combine(A a, A b) {
    if constexpr (std::is_same_v<A, bool>) return a || b;
    else return a + b;
  }
};
template <class A> struct ProdOp {
  static A init() { return A(1); }
  static A combine(A a, A b) {
    if constexpr (std::is_same_v<A, bool>) return a && b;
    else return a * b;
  }
};
// NaN wins, as in JAX: (a != a) is true only for NaN.
template <class A> struct MaxOp {
  static A init();
  static A combine(A a, A b) { return (a != a || a > b) ? a : b; }
};
template <class A> struct MinOp {
  static A init();
  static A combine(A a, A b) { return (a != a || a < b) ? a : b; }
};

template <class A> A MaxOp<A>::init() {
  if constexpr (std::numeric_limits<A>::has_infinity) return -std::numeric_limits<A>::infinity();
  else return std::numeric_limits<A>::lowest();
}
template <class A> A MinOp<A>::init() {
  if constexpr (std::numeric_limits<A>::has_infinity) return std::numeric_limits<A>::infinity();
  else return std::numeric_limits<A>::max();
}

// Reduces n contiguous values: lanes of 16 within blocks, blocks pairwise.
template <class Op, class A, class In> A reduce_contiguous(const In* x, std::int64_t n) {
  constexpr std::int64_t block = 4096;
  if (n > block) {
    const std::int64_t half = (n / 2 + block - 1) / block * block;
    return Op::combine(reduce_contiguous<Op, A>(x, half), reduce_contiguous<Op, A>(x + half, n - half));
  }
  constexpr int lanes = 16;
  A acc[lanes];
  for (auto& a : acc) a = Op::init();
  std::int64_t i = 0;
  for (; i + lanes <= n; i += lanes)
    for (int j = 0; j < lanes; ++j) acc[j] = Op::combine(acc[j], A(x[i + j]));
  for (; i < n; ++i) acc[0] = Op::combine(acc[0], A(x[i]));
  for (int w = lanes / 2; w > 0; w /= 2)
    for (int j = 0; j < w; ++j) acc[j] = Op::combine(acc[j], acc[j + w]);
  return acc[0];
}

// out[o, j] = combine over r of x[o, r, j], accumulated in A, written as Out.
template <class Op, class A, class In, class Out>
void reduce_3d(const In* x, Out* out, std::int64_t outer, std::int64_t r, std::int64_t inner,
               Out (*finish)(A)) {
  if (inner == 1) {
    if (outer >= 2 * parallel_parts(outer * r, kElementwiseGrain) || r < kElementwiseGrain) {
      parallel_for(outer, std::max<std::int64_t>(1, kElementwiseGrain / std::max<std::int64_t>(r, 1)),
                   [&](std::int64_t b, std::int64_t e) {
                     for (std::int64_t o = b; o < e; ++o) out[o] = finish(reduce_contiguous<Op, A>(x + o * r, r));
                   });
      return;
    }
    // Few long rows: split each row into parts, combine the parts in order.
    const std::int64_t parts = parallel_parts(r, kElementwiseGrain);
    auto partial = std::make_unique<A[]>(std::size_t(parts));
    for (std::int64_t o = 0; o < outer; ++o) {
      const In* row = x + o * r;
      parallel_for(r, kElementwiseGrain, [&](std::int64_t b, std::int64_t e) {
        partial[std::size_t(b * parts / r)] = reduce_contiguous<Op, A>(row + b, e - b);
      });
      A acc = partial[0];
      for (std::int64_t p = 1; p < parts; ++p) acc = Op::combine(acc, partial[std::size_t(p)]);
      out[o] = finish(acc);
    }
    return;
  }
  // Columns of `inner` values accumulate row by row; work splits by (outer, column block).
  constexpr std::int64_t cols = 512;
  const std::int64_t col_blocks = (inner + cols - 1) / cols;
  parallel_for(outer * col_blocks, std::max<std::int64_t>(1, kElementwiseGrain / (r * cols + 1)),
               [&](std::int64_t b, std::int64_t e) {
                 auto acc = std::make_unique<A[]>(std::size_t(cols));  // not vector<bool>
                 for (std::int64_t u = b; u < e; ++u) {
                   const std::int64_t o = u / col_blocks;
                   const std::int64_t c0 = (u % col_blocks) * cols;
                   const std::int64_t nc = std::min(cols, inner - c0);
                   std::fill(acc.get(), acc.get() + nc, Op::init());
                   for (std::int64_t k = 0; k < r; ++k) {
                     const In* row = x + (o * r + k) * inner + c0;
                     for (std::int64_t j = 0; j < nc; ++j) acc[std::size_t(j)] = Op::combine(acc[std::size_t(j)], A(row[j]));
                   }
                   Out* dst = out + o * inner + c0;
                   for (std::int64_t j = 0; j < nc; ++j) dst[j] = finish(acc[std::size_t(j)]);
                 }
               });
}

}  // namespace tlaloc::detail
