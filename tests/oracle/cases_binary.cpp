// Binary elementwise ops: tensor pairs of one dtype, mixed dtypes (promotion),
// broadcasting, C++ numbers on either side (weak scalars), the operators, and
// where / select / clamp.
#include <limits>
#include <stdexcept>
#include <tuple>

#include "oracle_table.hpp"

namespace oracle {
namespace {

using tl::Scalar;

// How operands are drawn: inside the op's domain (no integer division by zero,
// no negative integer exponent, equal values for comparisons...).
enum class Domain { arith, div, pow, atan2, rem, cmp, logic };

struct Binary {
  const char* name;
  Tensor (*tt)(const Tensor&, const Tensor&);
  Tensor (*ts)(const Tensor&, Scalar);
  Tensor (*st)(Scalar, const Tensor&);
  const char* torch;  // "{a}" and "{b}" stand for the operands
  bool python_op;     // a Python operator: a C++ number is written as a Python number
  Domain domain;
  std::vector<DType> dtypes;
};

#define TLALOC_FNS(f)                                            \
  +[](const Tensor& x, const Tensor& y) { return tl::f(x, y); }, \
      +[](const Tensor& x, Scalar y) { return tl::f(x, y); },    \
      +[](Scalar x, const Tensor& y) { return tl::f(x, y); }

// The dtypes each op is checked in (with itself).
using D = DType;
const std::vector<D> all_numeric = {D::f32, D::f64, D::bf16, D::i8,     D::i16,
                                    D::i32, D::i64, D::u8,   D::boolean};
const std::vector<D> no_bool = {D::f32, D::f64, D::bf16, D::i8, D::i16, D::i32, D::i64, D::u8};
const std::vector<D> div_types = {D::f32, D::f64, D::bf16, D::i32, D::u8, D::boolean};
const std::vector<D> pow_types = {D::f32, D::f64, D::bf16, D::i8, D::i32, D::i64, D::u8};
const std::vector<D> floats = {D::f32, D::f64, D::bf16};  // torch.hypot takes floats only
const std::vector<D> atan2_types = {D::f32, D::f64, D::bf16, D::i32};
const std::vector<D> cmp_types = {D::f32, D::f64, D::bf16, D::i32, D::u8, D::boolean};
const std::vector<D> few_types = {D::f32, D::i32, D::boolean};
const std::vector<D> and_types = {D::f32, D::bf16, D::i32, D::boolean};

// clang-format off
const std::vector<Binary>& binary_ops() {
  static const std::vector<Binary> ops = {
      {"add", TLALOC_FNS(add), "{a} + {b}", true, Domain::arith, all_numeric},
      {"sub", TLALOC_FNS(sub), "{a} - {b}", true, Domain::arith, no_bool},
      {"mul", TLALOC_FNS(mul), "{a} * {b}", true, Domain::arith, all_numeric},
      {"div", TLALOC_FNS(div), "{a} / {b}", true, Domain::div, div_types},
      {"pow", TLALOC_FNS(pow), "{a} ** {b}", true, Domain::pow, pow_types},
      {"maximum", TLALOC_FNS(maximum), "torch.maximum({a}, {b})", false, Domain::arith, all_numeric},
      {"minimum", TLALOC_FNS(minimum), "torch.minimum({a}, {b})", false, Domain::arith, all_numeric},
      {"atan2", TLALOC_FNS(atan2), "torch.atan2({a}, {b})", false, Domain::atan2, atan2_types},
      {"hypot", TLALOC_FNS(hypot), "torch.hypot({a}, {b})", false, Domain::arith, floats},
      {"logaddexp", TLALOC_FNS(logaddexp), "torch.logaddexp({a}, {b})", false, Domain::arith, floats},
      {"remainder", TLALOC_FNS(remainder), "{a} % {b}", true, Domain::rem, no_bool},
      {"eq", TLALOC_FNS(eq), "{a} == {b}", true, Domain::cmp, cmp_types},
      {"ne", TLALOC_FNS(ne), "{a} != {b}", true, Domain::cmp, few_types},
      {"lt", TLALOC_FNS(lt), "{a} < {b}", true, Domain::cmp, cmp_types},
      {"le", TLALOC_FNS(le), "{a} <= {b}", true, Domain::cmp, few_types},
      {"gt", TLALOC_FNS(gt), "{a} > {b}", true, Domain::cmp, few_types},
      {"ge", TLALOC_FNS(ge), "{a} >= {b}", true, Domain::cmp, cmp_types},
      {"logical_and", TLALOC_FNS(logical_and), "torch.logical_and({a}, {b})", false, Domain::logic,
       and_types},
      {"logical_or", TLALOC_FNS(logical_or), "torch.logical_or({a}, {b})", false, Domain::logic, few_types},
      {"logical_xor", TLALOC_FNS(logical_xor), "torch.logical_xor({a}, {b})", false, Domain::logic,
       few_types},
  };
  return ops;
}
// clang-format on
#undef TLALOC_FNS

const Binary& op_named(const std::string& name) {
  for (const auto& op : binary_ops())
    if (op.name == name) return op;
  throw std::logic_error("no binary op " + name);
}

std::string substitute(std::string e, const std::string& a, const std::string& b) {
  e.replace(e.find("{a}"), 3, a);
  e.replace(e.find("{b}"), 3, b);
  return e;
}

// Positive magnitudes in [lo, hi) with random signs.
Tensor signed_uniform(const Shape& s, DType t, double lo, double hi) {
  const Tensor m = uniform(s, t, lo, hi);
  return tl::where(coin(s), m, tl::neg(m));
}

Tensor operand(Domain d, bool rhs, DType t, const Shape& s) {
  if (t == DType::boolean) return coin(s);
  const bool f = is_float(t);
  const std::int64_t ilo = t == DType::u8 ? 0 : -20, ihi = 20;
  switch (d) {
    case Domain::div:
      if (rhs)
        return f                ? signed_uniform(s, t, 0.5, 2)
               : t == DType::u8 ? ints(s, 1, 6, t)
                                : nonzero_ints(s, 1, 6, t);
      break;
    case Domain::rem:
      if (rhs)
        return f                ? signed_uniform(s, t, 0.5, 3)
               : t == DType::u8 ? ints(s, 1, 6, t)
                                : nonzero_ints(s, 1, 6, t);
      break;
    case Domain::pow:
      if (rhs) return f ? uniform(s, t, -2, 2) : ints(s, 0, 4, t);
      return f ? uniform(s, t, 0.1, 3) : ints(s, t == DType::u8 ? 0 : -3, 4, t);
    case Domain::atan2:
      return f ? normal(s, t) : ints(s, t == DType::u8 ? 0 : -5, 5, t);
    case Domain::logic:
      return f ? tl::where(coin(s), normal(s, t), 0.0) : ints(s, t == DType::u8 ? 0 : -1, 2, t);
    default:
      break;
  }
  return f ? normal(s, t, 3.0) : ints(s, ilo, ihi, t);
}

Ins operands(const Binary& op, DType ta, DType tb, const Shape& sa, const Shape& sb) {
  const Tensor a = operand(op.domain, false, ta, sa);
  Tensor b = operand(op.domain, true, tb, sb);
  // Comparisons need ties: about half of b copies a.
  if (op.domain == Domain::cmp && sa == sb) b = tl::where(coin(sb), a.astype(tb), b);
  return {a, b};
}

void pair_case(Table& t, const Binary& op, DType ta, DType tb, const Shape& sa, const Shape& sb) {
  std::string a = "a", b = "b";
  if (ta != tb && sa.empty() != sb.empty()) {
    // A rank-0 tensor promotes like any tensor in tlaloc (DTYPES.md); torch lets it
    // widen a dimensioned tensor only across kinds, as it does for Python numbers.
    a = "a.to(torch.promote_types(a.dtype, b.dtype))", b = "b.to(torch.promote_types(a.dtype, b.dtype))";
  }
  // torch refuses bool in a subtraction; tlaloc refuses it only when the promoted
  // dtype is bool (DTYPES.md), so bool - i32 is i32.
  if (std::string(op.name) == "sub" && ta == DType::boolean && tb != DType::boolean) a = "a.to(b.dtype)";
  if (std::string(op.name) == "sub" && tb == DType::boolean && ta != DType::boolean) b = "b.to(a.dtype)";
  const std::string name = "binary/" + std::string(op.name) + "/" + name_of(ta) + shape_str(sa) + "," +
                           name_of(tb) + shape_str(sb);
  t.add1(name, substitute(op.torch, a, b), operands(op, ta, tb, sa, sb),
         [fn = op.tt](const Ins& in) { return fn(in[0], in[1]); });
}

void same_dtype_cases(Table& t) {
  for (const auto& op : binary_ops())
    for (DType d : op.dtypes) pair_case(t, op, d, d, {3, 4}, {3, 4});
}

void mixed_dtype_cases(Table& t) {
  const std::vector<std::pair<D, D>> pairs = {
      {D::f32, D::f64},  {D::i32, D::f32}, {D::f32, D::i32},     {D::bf16, D::f32}, {D::f16, D::bf16},
      {D::i64, D::f16},  {D::u8, D::i8},   {D::boolean, D::i32}, {D::i8, D::i64},   {D::boolean, D::f64},
      {D::bf16, D::i64}, {D::u8, D::i32},  {D::i16, D::u8},      {D::i8, D::i16},   {D::i16, D::f16}};
  for (const char* name : {"add", "sub", "mul", "div", "pow", "maximum", "minimum", "remainder", "lt", "eq"})
    for (const auto& [ta, tb] : pairs) pair_case(t, op_named(name), ta, tb, {2, 3}, {2, 3});
}

void broadcast_cases(Table& t) {
  for (const auto& op : binary_ops()) pair_case(t, op, DType::f32, DType::f32, {3, 1, 4}, {2, 1});
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{4}, {3, 4}}, {{}, {3}}, {{2, 0}, {1}}, {{1}, {}}, {{}, {}}};
  for (const char* name : {"add", "mul", "pow", "maximum", "remainder", "lt", "logical_xor"})
    for (const auto& [sa, sb] : shapes) {
      pair_case(t, op_named(name), DType::f32, DType::f32, sa, sb);
      pair_case(t, op_named(name), DType::i32, DType::i64, sa, sb);
    }
}

// ---- C++ numbers next to tensors (weak scalars, DTYPES.md) ----------------------

struct Number {
  Scalar value;
  const char* python;  // as a Python number; torch treats it as weakly typed too
};
const Number numbers[] = {{Scalar(3), "3"}, {Scalar(2.5), "2.5"}, {Scalar(true), "True"}};

// A function (not an operator) takes the number as a rank-0 tensor, which torch
// promotes like a Python number: it never widens a dimensioned tensor of its kind.
std::string scalar_text(const Binary& op, const Number& n) {
  return op.python_op ? std::string(n.python) : "torch.tensor(" + std::string(n.python) + ")";
}

void scalar_case(Table& t, const Binary& op, DType d, const Number& n, bool scalar_left) {
  const bool bool_only = d == DType::boolean && n.value.kind() == Scalar::Kind::boolean;
  const std::string name = op.name;
  if (bool_only && (name == "sub" || name == "pow" || name == "remainder")) return;  // bool refused
  // x % 0 is x for integers in tlaloc and an error in torch: no bool divisors.
  if (name == "remainder" && scalar_left && d == DType::boolean) return;
  const Tensor x = operand(op.domain, scalar_left, d, {2, 3});
  std::string s = scalar_text(op, n), a = "a";
  if (name == "sub") {
    // torch refuses bool in a subtraction. In tlaloc a bool number takes the
    // tensor's dtype (true is 1) and a bool tensor promotes to the number's
    // dtype (i64 or f32, DTYPES.md), so the oracle spells those conversions out.
    if (n.value.kind() == Scalar::Kind::boolean) s = "1";
    if (d == DType::boolean) a = n.value.kind() == Scalar::Kind::integer ? "a.long()" : "a.float()";
  }
  const std::string expr = scalar_left ? substitute(op.torch, s, a) : substitute(op.torch, a, s);
  const std::string case_name =
      "scalar/" + name + "/" +
      (scalar_left ? std::string(n.python) + "," + name_of(d) : name_of(d) + "," + n.python);
  const Scalar v = n.value;
  if (scalar_left)
    t.add1(case_name, expr, {x}, [fn = op.st, v](const Ins& in) { return fn(v, in[0]); });
  else
    t.add1(case_name, expr, {x}, [fn = op.ts, v](const Ins& in) { return fn(in[0], v); });
}

void scalar_cases(Table& t) {
  for (const char* name : {"add", "sub", "mul", "div", "pow", "maximum", "minimum", "atan2", "remainder",
                           "eq", "lt", "ge", "logical_and", "logical_xor"})
    for (DType d : {DType::f32, DType::f64, DType::bf16, DType::i32, DType::u8, DType::boolean})
      for (const Number& n : numbers)
        for (bool left : {false, true}) scalar_case(t, op_named(name), d, n, left);
}

// ---- operators ------------------------------------------------------------------

using Fn2 = Tensor (*)(const Tensor&, const Tensor&);

void operator_cases(Table& t) {
  const std::vector<std::tuple<const char*, Fn2, const char*, Domain>> ops = {
      {"+", [](const Tensor& x, const Tensor& y) { return x + y; }, "a + b", Domain::arith},
      {"-", [](const Tensor& x, const Tensor& y) { return x - y; }, "a - b", Domain::arith},
      {"*", [](const Tensor& x, const Tensor& y) { return x * y; }, "a * b", Domain::arith},
      {"/", [](const Tensor& x, const Tensor& y) { return x / y; }, "a / b", Domain::div},
      {"%", [](const Tensor& x, const Tensor& y) { return x % y; }, "torch.remainder(a, b)", Domain::rem},
      {"<", [](const Tensor& x, const Tensor& y) { return x < y; }, "a < b", Domain::cmp},
      {"<=", [](const Tensor& x, const Tensor& y) { return x <= y; }, "a <= b", Domain::cmp},
      {">", [](const Tensor& x, const Tensor& y) { return x > y; }, "a > b", Domain::cmp},
      {">=", [](const Tensor& x, const Tensor& y) { return x >= y; }, "a >= b", Domain::cmp},
      {"==", [](const Tensor& x, const Tensor& y) { return x == y; }, "a == b", Domain::cmp},
      {"!=", [](const Tensor& x, const Tensor& y) { return x != y; }, "a != b", Domain::cmp},
      // & | ^ are the logical ops for every dtype (ops.hpp), not bitwise as in torch.
      {"&", [](const Tensor& x, const Tensor& y) { return x & y; }, "torch.logical_and(a, b)", Domain::logic},
      {"|", [](const Tensor& x, const Tensor& y) { return x | y; }, "torch.logical_or(a, b)", Domain::logic},
      {"^", [](const Tensor& x, const Tensor& y) { return x ^ y; }, "torch.logical_xor(a, b)", Domain::logic},
  };
  for (const auto& [sym, fn, expr, dom] : ops)
    for (DType d : {DType::f32, DType::i32}) {
      const Ins in = {operand(dom, false, d, {3, 4}), operand(dom, true, d, {3, 4})};
      t.add1("operator/a" + std::string(sym) + "b/" + name_of(d), expr, in,
             [f = fn](const Ins& v) { return f(v[0], v[1]); });
    }
  const Ins x = {normal({3, 4}, DType::f32)}, k = {ints({3, 4}, -2, 3, DType::i32)};
  t.add1("operator/-a/f32", "-a", x, [](const Ins& v) { return -v[0]; });
  t.add1("operator/!a/i32", "torch.logical_not(a)", k, [](const Ins& v) { return !v[0]; });
  t.add1("operator/a+1/i32", "a + 1", k, [](const Ins& v) { return v[0] + 1; });
  t.add1("operator/2.0*a/i32", "2.0 * a", k, [](const Ins& v) { return 2.0 * v[0]; });
  t.add1("operator/1-a/f32", "1 - a", x, [](const Ins& v) { return 1 - v[0]; });
  t.add1("operator/a/2/i32", "a / 2", k, [](const Ins& v) { return v[0] / 2; });
  t.add1("operator/a%3/i32", "a % 3", k, [](const Ins& v) { return v[0] % 3; });
  t.add1("operator/a<0.5/i32", "a < 0.5", k, [](const Ins& v) { return v[0] < 0.5; });
}

// Every pair of special values: NaN, infinities, signed zeros, integers and halves.
void special_cases(Table& t) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const std::vector<double> s = {nan, inf, -inf, 0.0, -0.0, 1, -1, 2.5, -2.5, 0.5, 3, -3};
  std::vector<double> a, b;
  for (double x : s)
    for (double y : s) a.push_back(x), b.push_back(y);
  const Shape n = {std::int64_t(a.size())};
  for (const char* name : {"add", "sub", "mul", "div", "pow", "maximum", "minimum", "atan2", "hypot",
                           "logaddexp", "remainder", "eq", "lt", "ge", "logical_and", "logical_xor"})
    for (DType d : {DType::f32, DType::f64}) {
      const Binary& op = op_named(name);
      t.add1("binary/" + std::string(name) + "/" + name_of(d) + "/special", substitute(op.torch, "a", "b"),
             {literal(a, n, d), literal(b, n, d)}, [fn = op.tt](const Ins& in) { return fn(in[0], in[1]); });
    }
}

// Integer edges: wrapping at the extremes, as two's complement in both libraries.
// No divisor is 0 (x % 0 differs, DTYPES.md) and no minimum meets -1 (hardware traps).
void integer_edge_cases(Table& t) {
  const double lo32 = -2147483648.0, hi32 = 2147483647.0;
  struct Edge {
    DType d;
    std::vector<double> a, b;
    std::vector<const char*> ops;
  };
  const std::vector<Edge> edges = {
      {DType::i32,
       {lo32, hi32, 0, -1, 1, 7, -7, 65536},
       {lo32, hi32, 0, -1, 1, 7, -7, 65536},
       {"add", "sub", "mul", "maximum", "minimum", "eq", "lt"}},
      {DType::i32,
       {lo32, hi32, 0, -1, 1, 7, -7, 65536},
       {lo32, hi32, 1, 7, -7, 65536, 3, -2},
       {"remainder", "div"}},
      {DType::i32, {lo32, hi32, 0, -1, 1, 7, -7, 65536}, {0, 1, 2, 3, 5, 31, 2, 1}, {"pow"}},
      {DType::i8,
       {-128, 127, 0, -1, 1, 100, -100, 64},
       {-128, 127, 0, -1, 1, 100, -100, 64},
       {"add", "sub", "mul", "maximum", "lt"}},
      {DType::i8, {-128, 127, 0, -1, 1, 100, -100, 64}, {-128, 127, 1, 3, -3, 100, -100, 64}, {"remainder"}},
      {DType::u8,
       {0, 255, 1, 128, 200, 2, 17, 100},
       {0, 255, 1, 128, 200, 2, 17, 100},
       {"add", "sub", "mul", "lt"}},
      {DType::u8, {0, 255, 1, 128, 200, 2, 17, 100}, {255, 1, 128, 200, 2, 17, 100, 3}, {"remainder", "div"}},
  };
  for (const auto& e : edges) {
    std::vector<double> a, b;
    for (double x : e.a)
      for (double y : e.b) a.push_back(x), b.push_back(y);
    const Shape n = {std::int64_t(a.size())};
    for (const char* name : e.ops) {
      const Binary& op = op_named(name);
      t.add1("binary/" + std::string(name) + "/" + name_of(e.d) + "/edges", substitute(op.torch, "a", "b"),
             {literal(a, n, e.d), literal(b, n, e.d)},
             [fn = op.tt](const Ins& in) { return fn(in[0], in[1]); });
    }
  }
}

// Integer division by zero: true division gives ±inf or NaN in both libraries;
// x % 0 is x in tlaloc (as XLA, src/ops/binary.cpp) and an error in torch, which
// the oracle therefore only asks about nonzero divisors.
void division_by_zero_cases(Table& t) {
  for (DType d : {DType::i32, DType::u8, DType::i64}) {
    const Tensor a = ints({4, 5}, d == DType::u8 ? 0 : -9, 10, d);
    const Tensor b = tl::where(coin({4, 5}), ints({4, 5}, d == DType::u8 ? 1 : -3, 4, d), 0);
    t.add1("binary/div/" + name_of(d) + "/by zero", "a / b", {a, b},
           [](const Ins& in) { return tl::div(in[0], in[1]); });
    t.add1("binary/remainder/" + name_of(d) + "/by zero",
           "torch.where(b == 0, a, torch.remainder(a, torch.where(b == 0, torch.ones_like(b), b)))", {a, b},
           [](const Ins& in) { return tl::remainder(in[0], in[1]); });
  }
}

// Wide ranges on 256 elements (the vectorized loops).
void wide_cases(Table& t) {
  for (DType d : {DType::f32, DType::f64}) {
    const auto two = [&](const char* name, const Tensor& a, const Tensor& b) {
      const Binary& op = op_named(name);
      t.add1("binary/" + std::string(name) + "/" + name_of(d) + "/wide[256]", substitute(op.torch, "a", "b"),
             {a.astype(d), b.astype(d)}, [fn = op.tt](const Ins& in) { return fn(in[0], in[1]); });
    };
    two("pow", tl::exp(uniform({256}, DType::f64, -7, 7)), uniform({256}, DType::f64, -10, 10));
    two("atan2", normal({256}, DType::f64, 1e3), normal({256}, DType::f64, 1e-2));
    two("hypot", normal({256}, DType::f64, 1e30), normal({256}, DType::f64, 1e-30));
    two("remainder", uniform({256}, DType::f64, -1e6, 1e6), signed_uniform({256}, DType::f64, 0.1, 100));
    two("div", normal({256}, DType::f64, 1e10), signed_uniform({256}, DType::f64, 1e-10, 1e3));
    two("mul", normal({256}, DType::f64, 1e15), normal({256}, DType::f64, 1e15));
  }
}

}  // namespace

void add_binary_cases(Table& t) {
  t.family("binary");
  same_dtype_cases(t);
  mixed_dtype_cases(t);
  broadcast_cases(t);
  special_cases(t);
  integer_edge_cases(t);
  division_by_zero_cases(t);
  wide_cases(t);
  t.family("scalar");
  scalar_cases(t);
  t.family("operator");
  operator_cases(t);
}

}  // namespace oracle
