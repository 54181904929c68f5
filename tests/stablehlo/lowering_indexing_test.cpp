// take, take_along_axis, index_add and scatter_add traced, lowered to
// stablehlo.gather / stablehlo.scatter, emitted, parsed back and interpreted: the
// results must equal eager calls bit for bit (negative indices, duplicates,
// integer wrap-around, NaN and 16-bit floats included).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "support/lowering.hpp"
#include "tlaloc/tlaloc.hpp"

namespace tl = tlaloc;
using tl::DType;

namespace {

using tltest::Fn;

void expect_lowered(const Fn& fn, const std::vector<tl::Tensor>& args, const std::string& expect_op) {
  tltest::expect_round_trip(fn, args, expect_op);
}

using Binary = std::function<tl::Tensor(const tl::Tensor&, const tl::Tensor&)>;
using Ternary = std::function<tl::Tensor(const tl::Tensor&, const tl::Tensor&, const tl::Tensor&)>;
Fn fn2(Binary f) {
  return [f](std::span<const tl::Tensor> a) { return std::vector<tl::Tensor>{f(a[0], a[1])}; };
}
Fn fn3(Ternary f) {
  return [f](std::span<const tl::Tensor> a) { return std::vector<tl::Tensor>{f(a[0], a[1], a[2])}; };
}

// Small varied values in the given shape; floats also get NaN, -0 and a huge value.
tl::Tensor data(const tl::Shape& shape, DType t = DType::f32) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  std::vector<std::int64_t> iv(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < iv.size(); ++i) iv[i] = (std::int64_t(i) * 5) % 13 - 6;
  if (!tl::is_floating(t)) return tl::tensor(iv, shape).astype(t);
  std::vector<float> v(iv.begin(), iv.end());
  if (n > 1) v[1] = std::nanf("");
  if (n > 2) v[2] = -0.0f;
  if (n > 3) v[3] = 1e30f;
  return tl::tensor(v, shape).astype(t);
}

tl::Tensor ints(const std::vector<std::int64_t>& v, const tl::Shape& shape, DType t = DType::i64) {
  return tl::tensor(v, shape).astype(t);
}

}  // namespace

TEST(LoweringIndexing, Take) {
  const tl::Tensor x = data({3, 4});
  for (DType t : {DType::f32, DType::i32, DType::f16}) {
    expect_lowered(fn2([](auto& a, auto& i) { return tl::take(a, i, 0); }),
                   {data({3, 4}, t), ints({2, -1, 0, -3}, {4}, DType::i32)}, "stablehlo.gather");
  }
  expect_lowered(fn2([](auto& a, auto& i) { return tl::take(a, i, 1); }),
                 {x, ints({0, -4, 3, 1, 1, -1}, {2, 3})}, "stablehlo.gather");
  expect_lowered(fn2([](auto& a, auto& i) { return tl::take(a, i, -1); }),
                 {data({2, 3, 2}, DType::i8), ints({1}, {}, DType::u8)}, "stablehlo.gather");
  expect_lowered(fn2([](auto& a, auto& i) { return tl::take(a, i, 1); }),
                 {data({2, 3, 2}, DType::bf16), ints({-3, 2}, {2, 1}, DType::i8)}, "stablehlo.gather");
}

TEST(LoweringIndexing, TakeEmpty) {
  // No index: nothing is read, the result is empty.
  const Fn f = fn2([](auto& a, auto& i) { return tl::take(a, i, 0); });
  const std::vector<tl::Tensor> args = {data({3, 2}), ints({}, {0})};
  tltest::expect_round_trip(f, args);
}

TEST(LoweringIndexing, TakeAlongAxis) {
  for (DType t : {DType::f32, DType::i64, DType::bf16}) {
    expect_lowered(fn2([](auto& a, auto& i) { return tl::take_along_axis(a, i, 1); }),
                   {data({3, 4}, t), ints({0, -1, 3, 3, -4, 2}, {3, 2})}, "stablehlo.gather");
  }
  expect_lowered(fn2([](auto& a, auto& i) { return tl::take_along_axis(a, i, 0); }),
                 {data({3, 4}), ints({2, -3, 1, 0, -1, -1, 0, 2}, {2, 4}, DType::i16)}, "stablehlo.gather");
  expect_lowered(fn2([](auto& a, auto& i) { return tl::take_along_axis(a, i, -2); }),
                 {data({2, 3, 2}, DType::u16), ints({2, 0, 1, 1, 0, 2, 2, 2}, {2, 2, 2}, DType::u32)},
                 "stablehlo.gather");
}

TEST(LoweringIndexing, ScatterAdd) {
  // Duplicates add up in index order: the float sums round as the eager kernel's.
  const tl::Tensor idx = ints({1, 1, -3, 0, 3, -1}, {3, 2});
  for (DType t : {DType::f32, DType::f64, DType::f16, DType::bf16, DType::i32}) {
    expect_lowered(fn3([](auto& a, auto& i, auto& u) { return tl::scatter_add(a, i, u, 1); }),
                   {data({3, 4}, t), idx, data({3, 2}, t)}, "stablehlo.scatter");
  }
  // i8 wraps: 100 + 100 + 100 at one place.
  expect_lowered(fn3([](auto& a, auto& i, auto& u) { return tl::scatter_add(a, i, u, 0); }),
                 {ints({100, 0}, {1, 2}, DType::i8), ints({0, 0, 0, -1, 0, 0}, {3, 2}, DType::i32),
                  ints({100, 1, 100, 2, 100, 3}, {3, 2}, DType::i8)},
                 "stablehlo.scatter");
  expect_lowered(fn3([](auto& a, auto& i, auto& u) { return tl::scatter_add(a, i, u, 0); }),
                 {tl::tensor(std::vector<bool>{false, false, true}, {1, 3}), ints({0, 0, 0}, {1, 3}),
                  tl::tensor(std::vector<bool>{true, false, false}, {1, 3})},
                 "stablehlo.scatter");
}

TEST(LoweringIndexing, IndexAdd) {
  const tl::Tensor idx = ints({1, -1, 1, 0}, {4});
  for (DType t : {DType::f32, DType::f16, DType::u8, DType::i64}) {
    expect_lowered(fn3([](auto& a, auto& i, auto& u) { return tl::index_add(a, i, u, 0); }),
                   {data({5, 3}, t), idx, data({4, 3}, t)}, "stablehlo.scatter");
  }
  expect_lowered(fn3([](auto& a, auto& i, auto& u) { return tl::index_add(a, i, u, 1); }),
                 {data({2, 3, 2}), ints({2, -3, 2, 0}, {2, 2}, DType::i8), data({2, 2, 2, 2})},
                 "stablehlo.scatter");
  expect_lowered(fn3([](auto& a, auto& i, auto& u) { return tl::index_add(a, i, u, -1); }),
                 {data({2, 3}, DType::i16), ints({2}, {}, DType::u64), data({2}, DType::i16)},
                 "stablehlo.scatter");
}
