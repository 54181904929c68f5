// Special functions and top_k (include/tlaloc/special.hpp) against torch.special in
// f32 and f64, on their domains and at special values. Where XLA's edge values,
// which tlaloc follows, differ from torch's, the expression says so with a where.
#include <cmath>
#include <limits>

#include "oracle_table.hpp"

namespace oracle {
namespace {

const double nan = std::numeric_limits<double>::quiet_NaN();
const double inf = std::numeric_limits<double>::infinity();

struct Unary {
  const char* name;
  Tensor (*fn)(const Tensor&);
  const char* torch;  // "a" stands for the input
  double lo, hi;
};

const Unary unary_functions[] = {
    {"lgamma", tl::lgamma, "torch.lgamma(a)", 0.05, 12},
    {"lgamma_negative", tl::lgamma, "torch.lgamma(a)", -5.9, -0.1},
    // XLA gives NaN at every pole; torch gives -inf at 0 and -0 (its sign flipped).
    {"digamma", tl::digamma,
     "torch.where((a <= 0) & (a == torch.floor(a)), torch.full_like(a, float('nan')), torch.digamma(a))",
     0.05, 12},
    {"digamma_negative", tl::digamma,
     "torch.where((a <= 0) & (a == torch.floor(a)), torch.full_like(a, float('nan')), torch.digamma(a))",
     -5.9, -0.1},
    {"erfc", tl::erfc, "torch.erfc(a)", -4, 4},
    {"erf_inv", tl::erf_inv, "torch.erfinv(a)", -0.999, 0.999},
    {"bessel_i0e", tl::bessel_i0e, "torch.special.i0e(a)", -40, 40},
    {"bessel_i1e", tl::bessel_i1e, "torch.special.i1e(a)", -40, 40},
};

const std::vector<double> specials = {nan, inf,  -inf, 0.0,  -0.0, 0.5, -0.5,
                                      1.0, -1.0, 2.0,  -2.0, 1e-6, 3.5, 100};

void unary_cases(Table& t) {
  for (const Unary& op : unary_functions) {
    const auto fn = [f = op.fn](const Ins& in) { return f(in[0]); };
    for (DType d : {DType::f32, DType::f64}) {
      t.add1(std::string("special/") + op.name + "/" + name_of(d), op.torch, {uniform({64}, d, op.lo, op.hi)},
             fn);
      t.add1(std::string("special/") + op.name + "/" + name_of(d) + "/special", op.torch,
             {literal(specials, {14}, d)}, fn);
    }
    // Integers are taken as f32 (torch refuses some of them: converted first).
    t.add1(std::string("special/") + op.name + "/i32", std::string("(lambda a: ") + op.torch + ")(a.float())",
           {ints({8}, 1, 9, DType::i32)}, fn);
  }
}

// polygamma(n, x) for n = 0..4: torch takes n as a Python integer. torch's f64
// trigamma (n = 1) is good to about 4e-10 only: at x = 0.6199338845700563 it gives
// 3.4466360622608123, the sum to 40 digits is 3.4466360609615167 and Tlaloc
// 3.4466360609615165; n = 1 is compared in f32.
void polygamma_cases(Table& t) {
  for (int n = 0; n <= 4; ++n)
    for (DType d : {DType::f32, DType::f64}) {
      if (n == 1 && d == DType::f64) continue;
      const Tensor x = uniform({32}, d, 0.1, 8);
      t.add1("special/polygamma/n" + std::to_string(n) + "/" + name_of(d),
             "torch.polygamma(" + std::to_string(n) + ", a)", {x},
             [n](const Ins& in) { return tl::polygamma(tl::full_like(in[0], n), in[0]); });
    }
}

void binary_cases(Table& t) {
  for (DType d : {DType::f32, DType::f64}) {
    t.add1("special/zeta/" + name_of(d), "torch.special.zeta(a, b)",
           {uniform({48}, d, 1.05, 8), uniform({48}, d, 0.1, 6)},
           [](const Ins& in) { return tl::zeta(in[0], in[1]); });
    t.add1("special/nextafter/" + name_of(d), "torch.nextafter(a, b)",
           {literal({1, 1, 0, -0.0, 2.5, -2.5, inf, -inf, nan, 1, 0, 1e-30}, {12}, d),
            literal({2, 0, 1, -1, 2.5, 0, 0, inf, 1, nan, -0.0, 0}, {12}, d)},
           [](const Ins& in) { return tl::nextafter(in[0], in[1]); });
  }
  // torch's f64 incomplete gamma is accurate to about 1e-9 (igamma(30, 25) is
  // 0.18210391575658647 in torch, 0.18210391597745511 to 20 digits), below the lane's
  // f64 tolerance: compared in f32.
  const Tensor a = uniform({64}, DType::f32, 0.1, 12), x = uniform({64}, DType::f32, 0, 20);
  t.add1("special/igamma/f32", "torch.igamma(a, b)", {a, x},
         [](const Ins& in) { return tl::igamma(in[0], in[1]); });
  t.add1("special/igammac/f32", "torch.igammac(a, b)", {a, x},
         [](const Ins& in) { return tl::igammac(in[0], in[1]); });
}

void top_k_cases(Table& t) {
  for (DType d : {DType::f32, DType::f64, DType::i32}) {
    const Tensor x = d == DType::i32 ? ints({3, 7}, -1000, 1000, d) : uniform({3, 7}, d, -5, 5);
    t.add("special/top_k/" + name_of(d), "[torch.topk(a, 3).values, torch.topk(a, 3).indices.int()]", {x},
          [](const Ins& in) { return tl::top_k(in[0], 3); });
    t.add("special/top_k_smallest/" + name_of(d),
          "[torch.topk(a, 2, largest=False).values, torch.topk(a, 2, largest=False).indices.int()]", {x},
          [](const Ins& in) { return tl::top_k(in[0], 2, false); });
  }
}

}  // namespace

void add_special_cases(Table& t) {
  t.family("special");
  unary_cases(t);
  polygamma_cases(t);
  binary_cases(t);
  top_k_cases(t);
}

}  // namespace oracle
