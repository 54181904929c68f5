// where / select and clamp: broadcasting, dtype promotion of the two branches,
// C++ numbers as branches or bounds, NaN inputs.
#include <limits>

#include "oracle_table.hpp"

namespace oracle {
namespace {

using tl::Scalar;

// Integers in [-20, 20).
Tensor values(DType t, const Shape& s) { return sample(t, s, 20); }

void where_tensor_cases(Table& t) {
  struct W {
    Shape c;
    DType ta;
    Shape sa;
    DType tb;
    Shape sb;
  };
  using D = DType;
  const std::vector<W> ws = {
      {{3, 4}, D::f32, {3, 4}, D::f32, {3, 4}},
      {{3, 1}, D::f64, {1, 4}, D::f64, {}},
      {{3, 4}, D::i32, {3, 4}, D::f32, {3, 4}},
      {{3, 4}, D::i64, {3, 4}, D::i8, {4}},
      {{3, 4}, D::boolean, {3, 4}, D::boolean, {3, 4}},
      {{3, 4}, D::bf16, {3, 4}, D::f32, {3, 4}},
      {{3, 4}, D::f16, {3, 4}, D::bf16, {3, 4}},
      {{0, 3}, D::f32, {3}, D::f32, {0, 1}},
      {{}, D::i32, {2}, D::i32, {}},
  };
  for (const auto& w : ws) {
    const std::string name = "where/" + name_of(w.ta) + shape_str(w.sa) + "," + name_of(w.tb) +
                             shape_str(w.sb) + "/c" + shape_str(w.c);
    t.add1(name, "torch.where(a, b, c)", {coin(w.c), values(w.ta, w.sa), values(w.tb, w.sb)},
           [](const Ins& in) { return tl::where(in[0], in[1], in[2]); });
  }
  // u8 with i8 is i16, in tlaloc as in torch.
  t.add1("where/u8,i8", "torch.where(a, b, c)", {coin({3, 4}), values(D::u8, {3, 4}), values(D::i8, {3, 4})},
         [](const Ins& in) { return tl::where(in[0], in[1], in[2]); });
  t.add1("select/f32", "torch.where(a, b, c)", {coin({2, 5}), values(D::f32, {2, 5}), values(D::f32, {2, 5})},
         [](const Ins& in) { return tl::select(in[0], in[1], in[2]); });
}

void where_scalar_cases(Table& t) {
  struct WS {
    DType d;
    Scalar s;
    const char* py;
    bool scalar_first;
  };
  using D = DType;
  const std::vector<WS> ws = {
      {D::i32, Scalar(0.5), "0.5", false},   {D::f32, Scalar(2), "2", true},
      {D::i8, Scalar(3), "3", false},        {D::boolean, Scalar(2), "2", false},
      {D::bf16, Scalar(1.5), "1.5", true},   {D::u8, Scalar(true), "True", false},
      {D::f64, Scalar(-1.5), "-1.5", false}, {D::boolean, Scalar(false), "False", true}};
  for (const auto& w : ws) {
    const Ins in = {coin({3, 4}), values(w.d, {3, 4})};
    const Scalar s = w.s;
    if (w.scalar_first)
      t.add1("where/" + std::string(w.py) + "," + name_of(w.d),
             "torch.where(a, " + std::string(w.py) + ", b)", in,
             [s](const Ins& v) { return tl::where(v[0], s, v[1]); });
    else
      t.add1("where/" + name_of(w.d) + "," + w.py, "torch.where(a, b, " + std::string(w.py) + ")", in,
             [s](const Ins& v) { return tl::where(v[0], v[1], s); });
  }
}

void clamp_tensor_cases(Table& t) {
  using D = DType;
  const auto clamp3 = [](const Ins& in) { return tl::clamp(in[0], in[1], in[2]); };
  t.add1("clamp/f32,lo[4],hi[3,1]", "torch.clamp(a, b, c)",
         {normal({3, 4}, D::f32), uniform({4}, D::f32, -1, 0), uniform({3, 1}, D::f32, 0, 1)}, clamp3);
  // Some lo above hi: the result is hi, as min(max(x, lo), hi) in both libraries.
  t.add1("clamp/f64,crossed", "torch.clamp(a, b, c)",
         {normal({3, 4}, D::f64), uniform({3, 4}, D::f64, -1, 1), uniform({3, 4}, D::f64, -1, 1)}, clamp3);
  t.add1("clamp/i32", "torch.clamp(a, b, c)",
         {ints({3, 4}, -20, 20, D::i32), ints({4}, -10, 0, D::i32), ints({3, 1}, 0, 10, D::i32)}, clamp3);
  t.add1("clamp/i32,f32,f32", "torch.clamp(a, b, c)",
         {ints({3, 4}, -5, 5, D::i32), uniform({4}, D::f32, -3, 0), uniform({4}, D::f32, 0, 3)}, clamp3);
  t.add1("clamp/bf16", "torch.clamp(a, b, c)",
         {normal({3, 4}, D::bf16), uniform({4}, D::bf16, -1, 0), uniform({3, 1}, D::bf16, 0, 1)}, clamp3);
}

void clamp_scalar_cases(Table& t) {
  struct CS {
    Tensor x;
    Scalar lo, hi;
    const char* py;
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  using D = DType;
  const std::vector<CS> cs = {
      {normal({3, 4}, D::f32), Scalar(-0.5), Scalar(0.5), "-0.5, 0.5"},
      {normal({3, 4}, D::f64), Scalar(-1), Scalar(1), "-1, 1"},
      {ints({3, 4}, -9, 9, D::i32), Scalar(-3), Scalar(3), "-3, 3"},
      {ints({3, 4}, -9, 9, D::i32), Scalar(-2.5), Scalar(2.5), "-2.5, 2.5"},
      {ints({3, 4}, 0, 20, D::u8), Scalar(2), Scalar(10), "2, 10"},
      {normal({3, 4}, D::bf16), Scalar(-0.5), Scalar(0.5), "-0.5, 0.5"},
      {literal({nan, 1.5, -1.5, 0.25, std::numeric_limits<double>::infinity()}, {5}, D::f32), Scalar(-1.0),
       Scalar(1.0), "-1.0, 1.0"},
  };
  for (const auto& c : cs) {
    const Scalar lo = c.lo, hi = c.hi;
    t.add1("clamp/" + name_of(c.x.dtype()) + "," + c.py, "torch.clamp(a, " + std::string(c.py) + ")", {c.x},
           [lo, hi](const Ins& in) { return tl::clamp(in[0], lo, hi); });
  }
}

}  // namespace

void add_select_cases(Table& t) {
  t.family("where/clamp");
  where_tensor_cases(t);
  where_scalar_cases(t);
  clamp_tensor_cases(t);
  clamp_scalar_cases(t);
}

}  // namespace oracle
