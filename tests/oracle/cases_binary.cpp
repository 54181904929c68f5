// Binary elementwise ops: tensor pairs of one dtype, mixed dtypes (promotion),
// broadcasting, C++ numbers on either side (weak scalars), the operators, and
// where / select / clamp.
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

#define TLALOC_FNS(f)                                                  \
  +[](const Tensor& x, const Tensor& y) { return tl::f(x, y); },       \
      +[](const Tensor& x, Scalar y) { return tl::f(x, y); },          \
      +[](Scalar x, const Tensor& y) { return tl::f(x, y); }

const std::vector<DType> all_numeric = {DType::f32, DType::f64, DType::bf16, DType::i8,
                                        DType::i32, DType::i64, DType::u8,   DType::boolean};
const std::vector<DType> no_bool = {DType::f32, DType::f64, DType::bf16, DType::i8, DType::i32, DType::i64, DType::u8};

const std::vector<Binary>& binary_ops() {
  using D = DType;
  static const std::vector<Binary> ops = {
      {"add", TLALOC_FNS(add), "{a} + {b}", true, Domain::arith, all_numeric},
      {"sub", TLALOC_FNS(sub), "{a} - {b}", true, Domain::arith, no_bool},
      {"mul", TLALOC_FNS(mul), "{a} * {b}", true, Domain::arith, all_numeric},
      {"div", TLALOC_FNS(div), "{a} / {b}", true, Domain::div, {D::f32, D::f64, D::bf16, D::i32, D::u8, D::boolean}},
      {"pow", TLALOC_FNS(pow), "{a} ** {b}", true, Domain::pow, {D::f32, D::f64, D::bf16, D::i8, D::i32, D::i64, D::u8}},
      {"maximum", TLALOC_FNS(maximum), "torch.maximum({a}, {b})", false, Domain::arith, all_numeric},
      {"minimum", TLALOC_FNS(minimum), "torch.minimum({a}, {b})", false, Domain::arith, all_numeric},
      {"atan2", TLALOC_FNS(atan2), "torch.atan2({a}, {b})", false, Domain::atan2, {D::f32, D::f64, D::bf16, D::i32}},
      {"remainder", TLALOC_FNS(remainder), "{a} % {b}", true, Domain::rem, no_bool},
      {"eq", TLALOC_FNS(eq), "{a} == {b}", true, Domain::cmp, {D::f32, D::f64, D::bf16, D::i32, D::u8, D::boolean}},
      {"ne", TLALOC_FNS(ne), "{a} != {b}", true, Domain::cmp, {D::f32, D::i32, D::boolean}},
      {"lt", TLALOC_FNS(lt), "{a} < {b}", true, Domain::cmp, {D::f32, D::f64, D::bf16, D::i32, D::u8, D::boolean}},
      {"le", TLALOC_FNS(le), "{a} <= {b}", true, Domain::cmp, {D::f32, D::i32, D::boolean}},
      {"gt", TLALOC_FNS(gt), "{a} > {b}", true, Domain::cmp, {D::f32, D::i32, D::boolean}},
      {"ge", TLALOC_FNS(ge), "{a} >= {b}", true, Domain::cmp, {D::f32, D::f64, D::bf16, D::i32, D::u8, D::boolean}},
      {"logical_and", TLALOC_FNS(logical_and), "torch.logical_and({a}, {b})", false, Domain::logic,
       {D::f32, D::bf16, D::i32, D::boolean}},
      {"logical_or", TLALOC_FNS(logical_or), "torch.logical_or({a}, {b})", false, Domain::logic,
       {D::f32, D::i32, D::boolean}},
      {"logical_xor", TLALOC_FNS(logical_xor), "torch.logical_xor({a}, {b})", false, Domain::logic,
       {D::f32, D::i32, D::boolean}},
  };
  return ops;
}
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
      if (rhs) return f ? signed_uniform(s, t, 0.5, 2) : t == DType::u8 ? ints(s, 1, 6, t) : nonzero_ints(s, 1, 6, t);
      break;
    case Domain::rem:
      if (rhs) return f ? signed_uniform(s, t, 0.5, 3) : t == DType::u8 ? ints(s, 1, 6, t) : nonzero_ints(s, 1, 6, t);
      break;
    case Domain::pow:
      if (rhs) return f ? uniform(s, t, -2, 2) : ints(s, 0, 4, t);
      return f ? uniform(s, t, 0.1, 3) : ints(s, t == DType::u8 ? 0 : -3, 4, t);
    case Domain::atan2: return f ? normal(s, t) : ints(s, t == DType::u8 ? 0 : -5, 5, t);
    case Domain::logic: return f ? tl::where(coin(s), normal(s, t), 0.0) : ints(s, t == DType::u8 ? 0 : -1, 2, t);
    default: break;
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
  // u8 with i8 promotes to i32 in tlaloc (there is no i16, DTYPES.md); torch gives i16.
  if ((ta == DType::u8 && tb == DType::i8) || (ta == DType::i8 && tb == DType::u8))
    a = "a.to(torch.int32)", b = "b.to(torch.int32)";
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
  using D = DType;
  const std::vector<std::pair<D, D>> pairs = {
      {D::f32, D::f64}, {D::i32, D::f32}, {D::f32, D::i32}, {D::bf16, D::f32}, {D::f16, D::bf16},
      {D::i64, D::f16}, {D::u8, D::i8},   {D::boolean, D::i32}, {D::i8, D::i64}, {D::boolean, D::f64},
      {D::bf16, D::i64}, {D::u8, D::i32}};
  for (const char* name : {"add", "sub", "mul", "div", "pow", "maximum", "minimum", "remainder", "lt", "eq"})
    for (const auto& [ta, tb] : pairs) pair_case(t, op_named(name), ta, tb, {2, 3}, {2, 3});
}

void broadcast_cases(Table& t) {
  for (const auto& op : binary_ops()) pair_case(t, op, DType::f32, DType::f32, {3, 1, 4}, {2, 1});
  const std::vector<std::pair<Shape, Shape>> shapes = {{{4}, {3, 4}}, {{}, {3}}, {{2, 0}, {1}}, {{1}, {}}, {{}, {}}};
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
  const std::string s = scalar_text(op, n);
  const std::string expr = scalar_left ? substitute(op.torch, s, "a") : substitute(op.torch, "a", s);
  const std::string case_name = "scalar/" + name + "/" + (scalar_left ? std::string(n.python) + "," + name_of(d)
                                                                       : name_of(d) + "," + n.python);
  const Scalar v = n.value;
  if (scalar_left)
    t.add1(case_name, expr, {x}, [fn = op.st, v](const Ins& in) { return fn(v, in[0]); });
  else
    t.add1(case_name, expr, {x}, [fn = op.ts, v](const Ins& in) { return fn(in[0], v); });
}

void scalar_cases(Table& t) {
  for (const char* name : {"add", "sub", "mul", "div", "pow", "maximum", "minimum", "atan2", "remainder", "eq",
                           "lt", "ge", "logical_and", "logical_xor"})
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
      t.add1("operator/a" + std::string(sym) + "b/" + name_of(d), expr, in, [f = fn](const Ins& v) { return f(v[0], v[1]); });
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

}  // namespace

void add_binary_cases(Table& t) {
  t.family("binary");
  same_dtype_cases(t);
  mixed_dtype_cases(t);
  broadcast_cases(t);
  t.family("scalar");
  scalar_cases(t);
  t.family("operator");
  operator_cases(t);
}

}  // namespace oracle
