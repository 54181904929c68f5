// Reduction loops. A reduction sees its input as [outer, R, inner] (reduced axes in
// the middle) and combines with a fixed tree, so the result depends only on the
// shape and the thread count.
#pragma once

#include <algorithm>
#include <cstring>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "core/parallel.hpp"
#include "core/wrapping.hpp"

namespace tlaloc::detail {

template <class A> struct SumOp {
  static A init() { return A(0); }
  static A combine(A a, A b) {
    return wrapping_add(a, b);
  }
};
template <class A> struct ProdOp {
  static A init() { return A(1); }
  static A combine(A a, A b) {
    return wrapping_mul(a, b);
  }
};
// NaN wins, as in JAX: (a != a) is true only for NaN.
// NaN wins from either side; otherwise the larger (smaller), b on ties. Written as
// a select after the comparison (a maxss / minss), not a branch on it: a branch on
// data mispredicts half the time.
template <class A> struct MaxOp {
  static A init();
  static A combine(A a, A b) {
    const A m = a > b ? a : b;
    return a != a ? a : m;
  }
};
template <class A> struct MinOp {
  static A init();
  static A combine(A a, A b) {
    const A m = a < b ? a : b;
    return a != a ? a : m;
  }
};

template <class A> A MaxOp<A>::init() {
  if constexpr (std::numeric_limits<A>::has_infinity) return -std::numeric_limits<A>::infinity();
  else return std::numeric_limits<A>::lowest();
}
template <class A> A MinOp<A>::init() {
  if constexpr (std::numeric_limits<A>::has_infinity) return std::numeric_limits<A>::infinity();
  else return std::numeric_limits<A>::max();
}

// Sums a block with vector accumulators (GCC/Clang vector extensions): the
// compilers do not vectorize a float sum on their own without -ffast-math.
template <class A> A sum_block_vectorized(const A* x, std::int64_t n) {
  typedef A V __attribute__((vector_size(32)));
  constexpr std::int64_t w = 32 / sizeof(A);
  V acc[4] = {};
  std::int64_t i = 0;
  for (; i + 4 * w <= n; i += 4 * w) {
    for (int k = 0; k < 4; ++k) {
      V v;
      std::memcpy(&v, x + i + k * w, sizeof v);
      acc[k] += v;
    }
  }
  const V total = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  A s = A(0);
  for (std::int64_t j = 0; j < w; ++j) s += total[j];
  for (; i < n; ++i) s += x[i];
  return s;
}

// Reduces one block of at most 4096 values: 16 interleaved lanes, then a tree.
template <class Op, class A, class In> A reduce_block(const In* x, std::int64_t n) {
  if constexpr (std::is_same_v<Op, SumOp<A>> && std::is_same_v<A, In> &&
                (std::is_same_v<A, float> || std::is_same_v<A, double>)) {
    return sum_block_vectorized(x, n);
  } else {
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
}

// Reduces n contiguous values: blocks, combined pairwise, so rounding error grows
// with log(n) rather than n.
template <class Op, class A, class In> A reduce_contiguous(const In* x, std::int64_t n) {
  constexpr std::int64_t block = 4096;
  if (n <= block) return reduce_block<Op, A>(x, n);
  const std::int64_t half = (n / 2 + block - 1) / block * block;
  // Left first: memory is read in ascending order, which the prefetchers follow best.
  const A left = reduce_contiguous<Op, A>(x, half);
  return Op::combine(left, reduce_contiguous<Op, A>(x + half, n - half));
}

// Column sums of a [r, inner] slab starting at x, for columns [c0, c0 + nc): rows
// accumulate in blocks, and block results combine like a binary counter
// (cascade summation), so the error grows with log(r) rather than r.
template <class Op, class A, class In>
void reduce_columns(const In* x, std::int64_t r, std::int64_t inner, std::int64_t nc, A* out,
                    std::vector<std::unique_ptr<A[]>>& levels, std::vector<bool>& full) {
  constexpr std::int64_t rows_per_block = 64;
  auto block = std::make_unique<A[]>(std::size_t(nc));
  levels.clear();
  full.clear();
  for (std::int64_t k0 = 0; k0 < r; k0 += rows_per_block) {
    std::fill(block.get(), block.get() + nc, Op::init());
    for (std::int64_t k = k0; k < std::min(r, k0 + rows_per_block); ++k) {
      const In* row = x + k * inner;
      for (std::int64_t j = 0; j < nc; ++j) block[std::size_t(j)] = Op::combine(block[std::size_t(j)], A(row[j]));
    }
    std::size_t level = 0;
    for (; level < full.size() && full[level]; ++level) {  // carry
      for (std::int64_t j = 0; j < nc; ++j) block[std::size_t(j)] = Op::combine(levels[level][std::size_t(j)], block[std::size_t(j)]);
      full[level] = false;
    }
    if (level == full.size()) {
      levels.push_back(std::make_unique<A[]>(std::size_t(nc)));
      full.push_back(false);
    }
    std::copy(block.get(), block.get() + nc, levels[level].get());
    full[level] = true;
  }
  std::fill(out, out + nc, Op::init());
  for (std::size_t level = 0; level < full.size(); ++level)
    if (full[level])
      for (std::int64_t j = 0; j < nc; ++j) out[j] = Op::combine(levels[level][std::size_t(j)], out[j]);
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
    auto partial = std::make_unique<A[]>(std::size_t(parts));  // not vector<bool>
    for (std::int64_t o = 0; o < outer; ++o) {
      const In* row = x + o * r;
      parallel_for_parts(r, kElementwiseGrain, [&](std::int64_t p, std::int64_t b, std::int64_t e) {
        partial[std::size_t(p)] = reduce_contiguous<Op, A>(row + b, e - b);
      });
      A acc = partial[0];
      for (std::int64_t p = 1; p < parts; ++p) acc = Op::combine(acc, partial[std::size_t(p)]);
      out[o] = finish(acc);
    }
    return;
  }
  // Columns: work splits by (outer, block of columns); each column sums in order.
  constexpr std::int64_t cols = 512;
  const std::int64_t col_blocks = (inner + cols - 1) / cols;
  parallel_for(outer * col_blocks, std::max<std::int64_t>(1, kElementwiseGrain / (r * cols + 1)),
               [&](std::int64_t b, std::int64_t e) {
                 auto acc = std::make_unique<A[]>(std::size_t(cols));  // not vector<bool>
                 std::vector<std::unique_ptr<A[]>> levels;
                 std::vector<bool> full;
                 for (std::int64_t u = b; u < e; ++u) {
                   const std::int64_t o = u / col_blocks;
                   const std::int64_t c0 = (u % col_blocks) * cols;
                   const std::int64_t nc = std::min(cols, inner - c0);
                   reduce_columns<Op, A>(x + o * r * inner + c0, r, inner, nc, acc.get(), levels, full);
                   Out* dst = out + o * inner + c0;
                   for (std::int64_t j = 0; j < nc; ++j) dst[j] = finish(acc[std::size_t(j)]);
                 }
               });
}

}  // namespace tlaloc::detail
