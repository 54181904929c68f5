// Unary elementwise ops: each op in the dtypes it claims on inputs inside its
// domain, then the special values (NaN, infinities, signed zeros, halves) and
// large arguments, rank 0 and empty tensors.
#include <cmath>
#include <limits>

#include "oracle_table.hpp"

namespace oracle {
namespace {

using Fn = Tensor (*)(const Tensor&);

struct Unary {
  const char* name;
  Fn fn;
  const char* torch;  // "{x}" stands for the input
  double lo, hi;      // the domain inputs are drawn from
  // torch refuses integer inputs here; tlaloc computes them in f32, so the oracle
  // converts first (DTYPES.md: float functions of integers give f32).
  bool float_input = false;
};

// A wider range for the 256-element cases, which also run the vectorized loops.
struct Wide {
  const char* name;
  double lo, hi;
  bool log_scale;  // lo and hi are exponents: the values are e^uniform(lo, hi)
};
const Wide wide_ranges[] = {
    {"exp", -87, 88, false},
    {"expm1", -87, 88, false},
    {"log", -69, 69, true},
    {"log1p", -0.999, 50, false},
    {"sqrt", -69, 69, true},
    {"rsqrt", -69, 69, true},
    {"reciprocal", -1e3, 1e3, false},
    {"sin", -1e4, 1e4, false},
    {"cos", -1e4, 1e4, false},
    {"tan", -1e3, 1e3, false},
    {"tanh", -20, 20, false},
    {"sinh", -88, 88, false},
    {"cosh", -88, 88, false},
    {"asin", -1, 1, false},
    {"acos", -1, 1, false},
    {"atan", -1e4, 1e4, false},
    {"asinh", -1e4, 1e4, false},
    {"acosh", 1, 1e4, false},
    {"atanh", -1, 1, false},
    {"sigmoid", -100, 100, false},
    {"gelu", -20, 20, false},
    {"gelu_tanh", -20, 20, false},
    {"silu", -100, 100, false},
    {"softplus", -100, 100, false},
    {"erf", -6, 6, false},
};

const double nan = std::numeric_limits<double>::quiet_NaN();
const double inf = std::numeric_limits<double>::infinity();

// Float-valued functions: integer and bool inputs compute in f32 (ops.hpp).
const std::vector<Unary>& float_functions() {
  static const std::vector<Unary> ops = {
      {"exp", tl::exp, "torch.exp({x})", -5, 5},
      {"expm1", tl::expm1, "torch.expm1({x})", -3, 3},
      {"log", tl::log, "torch.log({x})", 0.01, 20},
      {"log1p", tl::log1p, "torch.log1p({x})", -0.9, 10},
      {"sqrt", tl::sqrt, "torch.sqrt({x})", 0, 20},
      {"rsqrt", tl::rsqrt, "torch.rsqrt({x})", 0.01, 20},
      {"reciprocal", tl::reciprocal, "torch.reciprocal({x})", -4, 4},
      {"sin", tl::sin, "torch.sin({x})", -10, 10},
      {"cos", tl::cos, "torch.cos({x})", -10, 10},
      {"tan", tl::tan, "torch.tan({x})", -1.5, 1.5},
      {"tanh", tl::tanh, "torch.tanh({x})", -5, 5},
      {"sinh", tl::sinh, "torch.sinh({x})", -5, 5},
      {"cosh", tl::cosh, "torch.cosh({x})", -5, 5},
      {"asin", tl::asin, "torch.asin({x})", -0.99, 0.99},
      {"acos", tl::acos, "torch.acos({x})", -0.99, 0.99},
      {"atan", tl::atan, "torch.atan({x})", -10, 10},
      {"asinh", tl::asinh, "torch.asinh({x})", -10, 10},
      {"acosh", tl::acosh, "torch.acosh({x})", 1, 10},
      {"atanh", tl::atanh, "torch.atanh({x})", -0.99, 0.99},
      {"sigmoid", tl::sigmoid, "torch.sigmoid({x})", -10, 10},
      // gelu and silu at -inf give their limit, 0, in tlaloc (docs/DTYPES.md); torch
      // computes -inf * 0 = NaN.
      {"gelu", +[](const Tensor& x) { return tl::gelu(x); },
       "torch.where(torch.isneginf({x}), torch.zeros_like({x}), F.gelu({x}))", -5, 5, true},
      {"gelu_tanh", +[](const Tensor& x) { return tl::gelu(x, true); },
       "torch.where(torch.isneginf({x}), torch.zeros_like({x}), F.gelu({x}, approximate='tanh'))", -5, 5, true},
      {"silu", tl::silu, "torch.where(torch.isneginf({x}), torch.zeros_like({x}), F.silu({x}))", -10, 10, true},
      // F.softplus returns x itself above x = 20 (its `threshold`), an approximation
      // visible in f64; log(1 + e^x) computed stably is logaddexp(x, 0).
      {"softplus", tl::softplus, "torch.logaddexp({x}, torch.zeros_like({x}))", -20, 20, true},
      {"erf", tl::erf, "torch.erf({x})", -3, 3},
  };
  return ops;
}

// Functions that keep the input dtype (bool is refused).
const std::vector<Unary>& same_type_functions() {
  static const std::vector<Unary> ops = {
      {"neg", tl::neg, "torch.neg({x})", -10, 10},
      {"abs", tl::abs, "torch.abs({x})", -10, 10},
      // sign(NaN) is NaN in tlaloc, as in JAX (src/ops/unary.cpp); torch.sign gives 0.
      {"sign", tl::sign, "torch.where(torch.isnan({x}), {x}, torch.sign({x}))", -10, 10},
      {"square", tl::square, "torch.square({x})", -10, 10},
      {"relu", tl::relu, "torch.relu({x})", -10, 10},
      {"floor", tl::floor, "torch.floor({x})", -10, 10},
      {"ceil", tl::ceil, "torch.ceil({x})", -10, 10},
      {"round", tl::round, "torch.round({x})", -10, 10},
  };
  return ops;
}

const std::vector<Unary>& predicates() {
  static const std::vector<Unary> ops = {
      {"logical_not", tl::logical_not, "torch.logical_not({x})", -2, 2},
      {"isfinite", tl::isfinite, "torch.isfinite({x})", -2, 2},
      {"isnan", tl::isnan, "torch.isnan({x})", -2, 2},
  };
  return ops;
}

std::string expr_for(const Unary& op, const std::string& x) {
  std::string e = op.torch;
  for (auto p = e.find("{x}"); p != std::string::npos; p = e.find("{x}")) e.replace(p, 3, x);
  return e;
}

std::string float_input(const Unary& op, DType t) {
  return op.float_input && !is_float(t) ? "a.float()" : "a";
}

void add_case(Table& t, const Unary& op, const std::string& what, const Tensor& x, const std::string& input) {
  t.add1("unary/" + std::string(op.name) + "/" + name_of(x.dtype()) + what, expr_for(op, input), {x},
         [fn = op.fn](const Ins& in) { return fn(in[0]); });
}

// Integers inside [lo, hi), at most 6 away from 0 so that no case overflows.
Tensor int_domain(const Unary& op, DType t) {
  const auto lo = std::int64_t(std::max(std::ceil(op.lo), t == DType::u8 ? 0.0 : -6.0));
  const auto hi = std::int64_t(std::min(std::floor(op.hi), 6.0)) + 1;
  return ints({3, 5}, lo, hi, t);
}

const std::vector<double> specials = {nan,  inf, -inf, 0.0, -0.0, 0.5,  -0.5,  1.5,
                                      -1.5, 2.5, -2.5, 1.0, -1.0, 1e-6, -1e-6, 3.0};
const std::vector<double> large = {30, -30, 90, -90, 100, -100, 700, -700, 1e4, -1e4, 1e10, -1e10};

void float_function_cases(Table& t) {
  for (const auto& op : float_functions()) {
    for (DType d : {DType::f32, DType::f64, DType::bf16})
      add_case(t, op, "[3,5]", uniform({3, 5}, d, op.lo, op.hi), "a");
    for (DType d : {DType::i32, DType::u8}) add_case(t, op, "[3,5]", int_domain(op, d), float_input(op, d));
    add_case(t, op, "[2,3]", coin({2, 3}), float_input(op, DType::boolean));
    for (DType d : {DType::f32, DType::f64}) {
      add_case(t, op, "/special", literal(specials, {16}, d), "a");
      add_case(t, op, "/large", literal(large, {12}, d), "a");
    }
    add_case(t, op, "/special", literal(specials, {16}, DType::bf16), "a");
  }
}

void wide_cases(Table& t) {
  for (const auto& op : float_functions())
    for (const Wide& w : wide_ranges) {
      if (std::string(w.name) != op.name) continue;
      for (DType d : {DType::f32, DType::f64}) {
        const Tensor u = uniform({256}, DType::f64, w.lo, w.hi);
        add_case(t, op, "/wide[256]", (w.log_scale ? tl::exp(u) : u).astype(d), "a");
      }
    }
}

void same_type_cases(Table& t) {
  for (const auto& op : same_type_functions()) {
    for (DType d : {DType::f32, DType::f64, DType::bf16})
      add_case(t, op, "[3,5]", uniform({3, 5}, d, op.lo, op.hi), "a");
    for (DType d : {DType::i8, DType::i32, DType::i64, DType::u8})
      add_case(t, op, "[3,5]", int_domain(op, d), "a");
    for (DType d : {DType::f32, DType::f64, DType::bf16})
      add_case(t, op, "/special", literal(specials, {16}, d), "a");
    add_case(t, op, "/large", literal(large, {12}, DType::f32), "a");
  }
  // Two's complement edges: abs and neg of the minimum wrap to it, square wraps.
  for (const auto& op : same_type_functions()) {
    add_case(t, op, "/edges", literal({-128, 127, 0, -1, 1, -127, 12, -12}, {8}, DType::i8), "a");
    add_case(t, op, "/edges",
             literal({-2147483648.0, 2147483647.0, 0, -1, 1, 46341, -46341}, {7}, DType::i32), "a");
  }
}

void predicate_cases(Table& t) {
  for (const auto& op : predicates()) {
    for (DType d : torch_dtypes) add_case(t, op, "[3,5]", uniform({3, 5}, d, op.lo, op.hi), "a");
    for (DType d : {DType::f32, DType::f64, DType::bf16, DType::f16})
      add_case(t, op, "/special", literal(specials, {16}, d), "a");
  }
}

// Rank 0 and empty tensors go through the same entry points.
void shape_edge_cases(Table& t) {
  const Unary& exp_op = float_functions()[0];
  add_case(t, exp_op, "[]", uniform({}, DType::f32, -1, 1), "a");
  add_case(t, exp_op, "[0,3]", uniform({0, 3}, DType::f64, -1, 1), "a");
  const Unary& neg_op = same_type_functions()[0];
  add_case(t, neg_op, "[]", ints({}, -5, 5, DType::i32), "a");
  add_case(t, neg_op, "[2,0]", uniform({2, 0}, DType::f32, -1, 1), "a");
  const Unary& isnan_op = predicates()[2];
  add_case(t, isnan_op, "[]", literal({nan}, {}, DType::f32), "a");
}

}  // namespace

void add_unary_cases(Table& t) {
  t.family("unary");
  float_function_cases(t);
  wide_cases(t);
  same_type_cases(t);
  predicate_cases(t);
  shape_edge_cases(t);
}

}  // namespace oracle
