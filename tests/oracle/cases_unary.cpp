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
      {"gelu", +[](const Tensor& x) { return tl::gelu(x); }, "F.gelu({x})", -5, 5},
      {"gelu_tanh", +[](const Tensor& x) { return tl::gelu(x, true); }, "F.gelu({x}, approximate='tanh')", -5,
       5},
      {"silu", tl::silu, "F.silu({x})", -10, 10},
      {"softplus", tl::softplus, "F.softplus({x})", -20, 20},
      {"erf", tl::erf, "torch.erf({x})", -3, 3},
  };
  return ops;
}

// Functions that keep the input dtype (bool is refused).
const std::vector<Unary>& same_type_functions() {
  static const std::vector<Unary> ops = {
      {"neg", tl::neg, "torch.neg({x})", -10, 10},       {"abs", tl::abs, "torch.abs({x})", -10, 10},
      {"sign", tl::sign, "torch.sign({x})", -10, 10},    {"square", tl::square, "torch.square({x})", -10, 10},
      {"relu", tl::relu, "torch.relu({x})", -10, 10},    {"floor", tl::floor, "torch.floor({x})", -10, 10},
      {"ceil", tl::ceil, "torch.ceil({x})", -10, 10},    {"round", tl::round, "torch.round({x})", -10, 10},
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
  e.replace(e.find("{x}"), 3, x);
  return e;
}

// torch.nn.functional refuses integer inputs; tlaloc computes them in f32, so
// the oracle converts first (documented in DTYPES.md: "else f32").
std::string float_input(const Unary& op, DType t) {
  const bool functional = std::string(op.torch).starts_with("F.");
  return functional && !is_float(t) ? "a.float()" : "a";
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

const std::vector<double> specials = {nan, inf, -inf, 0.0, -0.0, 0.5, -0.5, 1.5,
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

void same_type_cases(Table& t) {
  for (const auto& op : same_type_functions()) {
    for (DType d : {DType::f32, DType::f64, DType::bf16})
      add_case(t, op, "[3,5]", uniform({3, 5}, d, op.lo, op.hi), "a");
    for (DType d : {DType::i8, DType::i32, DType::i64, DType::u8}) add_case(t, op, "[3,5]", int_domain(op, d), "a");
    for (DType d : {DType::f32, DType::f64, DType::bf16}) add_case(t, op, "/special", literal(specials, {16}, d), "a");
    add_case(t, op, "/large", literal(large, {12}, DType::f32), "a");
  }
}

void predicate_cases(Table& t) {
  for (const auto& op : predicates()) {
    for (DType d : tl::all_dtypes) add_case(t, op, "[3,5]", uniform({3, 5}, d, op.lo, op.hi), "a");
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
  same_type_cases(t);
  predicate_cases(t);
  shape_edge_cases(t);
}

}  // namespace oracle
