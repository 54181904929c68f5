// Reductions over sets of axes (with and without keepdims), var/std with ddof,
// argmax/argmin, cumsum/cumprod; NaN/inf rows, empty and rank-0 tensors.
#include <limits>

#include "oracle_table.hpp"

namespace oracle {
namespace {

using RedFn = Tensor (*)(const Tensor&, tl::Axes, bool);

struct Reduction {
  const char* name;
  RedFn fn;
  const char* torch;  // {x} the input, {dims} a tuple of axes, {k} keepdim
  bool float_only;    // torch needs a floating input; tlaloc computes integers in f32 (DTYPES.md)
};

// over(fn, x, dims, keepdim) (check_torch.py) applies a one-axis torch reduction
// to the given axes flattened together.
const std::vector<Reduction>& reductions() {
  static const std::vector<Reduction> ops = {
      {"sum", tl::sum, "torch.sum({x}, dim={dims}, keepdim={k})", false},
      {"mean", tl::mean, "torch.mean({x}, dim={dims}, keepdim={k})", true},
      {"prod", tl::prod, "over(torch.prod, {x}, {dims}, {k})", false},
      {"max", tl::max, "torch.amax({x}, dim={dims}, keepdim={k})", false},
      {"min", tl::min, "torch.amin({x}, dim={dims}, keepdim={k})", false},
      {"logsumexp", tl::logsumexp, "torch.logsumexp({x}, dim={dims}, keepdim={k})", true},
      {"any", tl::any, "over(torch.any, {x} != 0, {dims}, {k})", false},
      {"all", tl::all, "over(torch.all, {x} != 0, {dims}, {k})", false},
  };
  return ops;
}

std::string subst(std::string e, const std::string& key, const std::string& v) {
  for (auto p = e.find(key); p != std::string::npos; p = e.find(key)) e.replace(p, key.size(), v);
  return e;
}

struct AxesCase {
  tl::Axes axes;
  Ints dims;  // as torch gets them
};

std::vector<AxesCase> axes_cases(std::int64_t rank) {
  Ints all;
  for (std::int64_t d = 0; d < rank; ++d) all.push_back(d);
  return {{tl::Axes{}, all},
          {tl::Axes(0), {0}},
          {tl::Axes(1), {1}},
          {tl::Axes(-1), {-1}},
          {tl::Axes{0, 2}, {0, 2}},
          {tl::Axes{-2, -1}, {-2, -1}},
          {tl::Axes{2, 0, 1}, {2, 0, 1}}};
}

std::int64_t count(const Shape& s, const Ints& dims) {
  std::int64_t n = 1;
  for (auto d : dims) n *= s[std::size_t(d < 0 ? d + std::int64_t(s.size()) : d)];
  return n;
}

Tensor input_for(const Reduction& r, DType t, const Shape& s) {
  const std::string name = r.name;
  if (name == "prod") return is_float(t) ? uniform(s, t, 0.5, 1.6) : ints(s, t == DType::u8 ? 0 : -2, 3, t);
  if (name == "any" || name == "all")
    return t == DType::boolean ? coin(s) : tl::where(coin(s), uniform(s, t, 1, 4), 0);
  if (!is_float(t) && t != DType::boolean) return ints(s, t == DType::u8 ? 0 : -5, 6, t);
  return uniform(s, t, -3, 3);
}

void reduction_case(Table& t, const Reduction& r, const Tensor& x, const AxesCase& ax, bool keep) {
  std::string in = r.float_only && !is_float(x.dtype()) ? "a.float()" : "a", out;
  // torch 1.13 has no CPU prod for bf16; tlaloc accumulates bf16 in f32 and rounds
  // once (DTYPES.md), which the oracle does too.
  if (std::string(r.name) == "prod" && x.dtype() == DType::bf16) in = "a.float()", out = ".bfloat16()";
  const std::string expr =
      subst(subst(subst(r.torch, "{x}", in), "{dims}", py_tuple(ax.dims)), "{k}", py_bool(keep)) + out;
  const std::string name = "reduce/" + std::string(r.name) + "/" + name_of(x.dtype()) + shape_str(x.shape()) +
                           "/axes" + py_list(ax.dims) + (keep ? "/keep" : "");
  t.add1(
      name, expr, {x}, [fn = r.fn, axes = ax.axes, keep](const Ins& v) { return fn(v[0], axes, keep); },
      count(x.shape(), ax.dims));
}

void reduction_cases(Table& t) {
  const Shape s = {2, 3, 4};
  for (const auto& r : reductions()) {
    for (DType d : {DType::f32, DType::f64})
      for (const auto& ax : axes_cases(3))
        for (bool keep : {false, true}) reduction_case(t, r, input_for(r, d, s), ax, keep);
    const auto few = axes_cases(3);
    for (DType d : {DType::bf16, DType::i32, DType::i8, DType::u8, DType::boolean}) {
      const std::string name = r.name;
      if (d == DType::boolean && (name == "mean" || name == "logsumexp")) continue;
      reduction_case(t, r, input_for(r, d, s), few[0], false);
      reduction_case(t, r, input_for(r, d, s), few[2], true);
      reduction_case(t, r, input_for(r, d, s), few[4], false);
    }
  }
}

void moment_cases(Table& t) {
  const Shape s = {2, 3, 4};
  for (const bool is_std : {false, true}) {
    const char* name = is_std ? "std" : "var";
    for (DType d : {DType::f32, DType::f64, DType::bf16, DType::i32}) {
      const auto axes = axes_cases(3);
      for (std::size_t i = 0; i < axes.size(); ++i)
        for (std::int64_t ddof : {0, 1, 2}) {
          if (d != DType::f32 && i % 2 == 1) continue;
          const bool keep = (i + std::size_t(ddof)) % 2 == 1;
          const Tensor x = is_float(d) ? uniform(s, d, -3, 3) : ints(s, -5, 6, d);
          const std::string in = is_float(d) ? "a" : "a.float()";
          const std::string expr =
              std::string("torch.") + name + "(" + in + ", dim=" + py_tuple(axes[i].dims) +
              ", correction=" + std::to_string(ddof) + ", keepdim=" + py_bool(keep) + ")";
          const std::string cname = std::string("reduce/") + name + "/" + name_of(d) + "/axes" +
                                    py_list(axes[i].dims) + "/ddof" + std::to_string(ddof) +
                                    (keep ? "/keep" : "");
          t.add1(
              cname, expr, {x},
              [is_std, axes = axes[i].axes, keep, ddof](const Ins& v) {
                return is_std ? tl::std(v[0], axes, keep, ddof) : tl::var(v[0], axes, keep, ddof);
              },
              count(s, axes[i].dims));
        }
    }
  }
}

void arg_cases(Table& t) {
  using D = DType;
  for (D d : {D::f32, D::f64, D::bf16, D::i32, D::i8, D::u8, D::boolean}) {
    // Small integer ranges make ties: both libraries return the first extreme.
    const Tensor x = d == D::boolean ? coin({3, 4, 5})
                     : is_float(d)   ? normal({3, 4, 5}, d)
                                     : ints({3, 4, 5}, 0, 4, d);
    // torch has no argmax for bool; as u8 the order is the same.
    const std::string in = d == D::boolean ? "a.to(torch.uint8)" : "a";
    for (const bool is_max : {true, false}) {
      const std::string fn = is_max ? "argmax" : "argmin";
      for (std::int64_t axis : {0, 1, -1})
        for (bool keep : {false, true})
          t.add1(
              "reduce/" + fn + "/" + name_of(d) + "/axis" + std::to_string(axis) + (keep ? "/keep" : ""),
              "torch." + fn + "(" + in + ", dim=" + std::to_string(axis) + ", keepdim=" + py_bool(keep) + ")",
              {x}, [is_max, axis, keep](const Ins& v) {
                return is_max ? tl::argmax(v[0], axis, keep) : tl::argmin(v[0], axis, keep);
              });
      t.add1("reduce/" + fn + "/" + name_of(d) + "/flat", "torch." + fn + "(" + in + ")", {x},
             [is_max](const Ins& v) { return is_max ? tl::argmax(v[0]) : tl::argmin(v[0]); });
    }
  }
}

void scan_cases(Table& t) {
  using D = DType;
  for (D d : {D::f32, D::f64, D::bf16, D::i32, D::i8, D::u8, D::boolean})
    for (const bool is_sum : {true, false}) {
      const Tensor x = d == D::boolean ? coin({3, 4, 5})
                       : is_float(d)
                           ? (is_sum ? uniform({3, 4, 5}, d, -3, 3) : uniform({3, 4, 5}, d, 0.5, 1.6))
                           : ints({3, 4, 5}, d == D::u8 ? 0 : -3, 4, d);
      const std::string fn = is_sum ? "cumsum" : "cumprod";
      for (std::int64_t axis : {0, 1, -1})
        t.add1(
            "reduce/" + fn + "/" + name_of(d) + "/axis" + std::to_string(axis),
            "torch." + fn + "(a, dim=" + std::to_string(axis) + ")", {x},
            [is_sum, axis](const Ins& v) {
              return is_sum ? tl::cumsum(v[0], axis) : tl::cumprod(v[0], axis);
            },
            x.size(axis));
    }
}

// Rows of NaN and infinities: NaN propagates through max/min and wins argmax/argmin
// (PyTorch and tlaloc agree on the first NaN); a row of -inf has logsumexp -inf.
void special_cases(Table& t) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const std::vector<double> v = {1, nan, 3, 2, -inf, -inf, -inf, -inf, inf, 1,   2, -inf,
                                 5, 5,   1, 5, nan,  0,    nan,  7,    inf, inf, 3, inf};
  for (DType d : {DType::f32, DType::f64}) {
    const Tensor x = literal(v, {6, 4}, d);
    for (const auto& r : reductions()) reduction_case(t, r, x, {tl::Axes(1), {1}}, false);
    for (const char* fn : {"argmax", "argmin"}) {
      const bool is_max = std::string(fn) == "argmax";
      t.add1(std::string("reduce/") + fn + "/" + name_of(d) + "/special",
             std::string("torch.") + fn + "(a, dim=1)", {x},
             [is_max](const Ins& in) { return is_max ? tl::argmax(in[0], 1) : tl::argmin(in[0], 1); });
    }
    t.add1(
        "reduce/cumsum/" + name_of(d) + "/special", "torch.cumsum(a, dim=1)", {x},
        [](const Ins& in) { return tl::cumsum(in[0], 1); }, 4);
    t.add1(
        "reduce/var/" + name_of(d) + "/special", "torch.var(a, dim=1, correction=1)", {x},
        [](const Ins& in) { return tl::var(in[0], 1, false, 1); }, 4);
  }
}

void shape_edge_cases(Table& t) {
  const Tensor empty = uniform({0, 3}, DType::f32, -1, 1);
  for (const char* name : {"sum", "prod", "mean", "any", "all", "logsumexp"})
    for (const auto& r : reductions())
      if (std::string(r.name) == name) {
        reduction_case(t, r, empty, {tl::Axes(0), {0}}, false);
        reduction_case(t, r, uniform({2, 0}, DType::i32, -3, 3), {tl::Axes(1), {1}}, true);
      }
  const Tensor scalar = uniform({}, DType::f32, -1, 1);
  t.add1("reduce/sum/f32[]", "torch.sum(a)", {scalar}, [](const Ins& in) { return tl::sum(in[0]); });
  t.add1("reduce/mean/f32[]", "torch.mean(a)", {scalar}, [](const Ins& in) { return tl::mean(in[0]); });
  t.add1("reduce/max/f32[]", "torch.amax(a)", {scalar}, [](const Ins& in) { return tl::max(in[0]); });
  t.add1("reduce/argmax/f32[]", "torch.argmax(a)", {scalar}, [](const Ins& in) { return tl::argmax(in[0]); });
  t.add1("reduce/cumsum/f32[0,3]", "torch.cumsum(a, dim=0)", {empty},
         [](const Ins& in) { return tl::cumsum(in[0], 0); });
  // One long reduction: the tolerance grows with the 1000 terms.
  t.add1(
      "reduce/sum/f32[20,1000]", "torch.sum(a, dim=1)", {uniform({20, 1000}, DType::f32, -1, 1)},
      [](const Ins& in) { return tl::sum(in[0], 1); }, 1000);
  t.add1(
      "reduce/logsumexp/f32[4,500]", "torch.logsumexp(a, dim=1)", {normal({4, 500}, DType::f32, 10)},
      [](const Ins& in) { return tl::logsumexp(in[0], 1); }, 500);
}

// Larger inputs, for the blocked and strided reduction loops.
void large_cases(Table& t) {
  for (const auto& r : reductions()) {
    const std::string name = r.name;
    if (name == "any" || name == "all") continue;
    reduction_case(t, r, input_for(r, DType::f32, {129, 37}), {tl::Axes(0), {0}}, false);
    reduction_case(t, r, input_for(r, DType::f64, {7, 300, 5}), {tl::Axes{0, 2}, {0, 2}}, true);
  }
  const Tensor x = uniform({50, 70}, DType::f32, -2, 5);
  for (std::int64_t ddof : {0, 1})
    t.add1(
        "reduce/var/f32[50,70]/axes[0]/ddof" + std::to_string(ddof),
        "torch.var(a, dim=0, correction=" + std::to_string(ddof) + ")", {x},
        [ddof](const Ins& in) { return tl::var(in[0], 0, false, ddof); }, 50);
  t.add1("reduce/argmax/f32[129,37]/axis0", "torch.argmax(a, dim=0)", {normal({129, 37}, DType::f32)},
         [](const Ins& in) { return tl::argmax(in[0], 0); });
  t.add1(
      "reduce/cumsum/f32[300,3]/axis0", "torch.cumsum(a, dim=0)", {uniform({300, 3}, DType::f32, -1, 1)},
      [](const Ins& in) { return tl::cumsum(in[0], 0); }, 300);
}

}  // namespace

void add_reduce_cases(Table& t) {
  t.family("reduce");
  reduction_cases(t);
  moment_cases(t);
  arg_cases(t);
  scan_cases(t);
  special_cases(t);
  shape_edge_cases(t);
  large_cases(t);
}

}  // namespace oracle
