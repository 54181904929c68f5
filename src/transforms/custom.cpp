// The public custom rules (include/tlaloc/custom.hpp): recording a call as a
// custom_rule op, the halves generated code calls, and check_custom_rule. What the
// engine does at such an op is in src/ad/custom.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "ad/custom.hpp"
#include "ir/builder.hpp"
#include "tlaloc/custom.hpp"
#include "tlaloc/ops.hpp"
#include "tlaloc/transforms.hpp"
#include "transforms/along_defined.hpp"
#include "transforms/apply.hpp"

namespace tlaloc::detail {
namespace {

// Outside a trace there is no op to name: a nonlinear JVP rule is refused by its name.
std::function<void(const std::string&)> refuse_nonlinear(const CustomRule& rule) {
  return
      [&rule](const std::string& op) { throw NotDifferentiableError(ad::nonlinear_message(rule.name, op)); };
}

}  // namespace

Values transposed_custom_jvp(const std::shared_ptr<const CustomRule>& rule, std::span<const Tensor> primals,
                             const Tensor& cotangent) {
  if (ir::owner_of(primals) != nullptr || cotangent.is_symbolic())
    throw ValueError(fmt::format("'{}': backward takes host tensors (inside a trace, call the function itself)", rule->name));
  const TensorType result = type_of(cotangent);
  return ad::transpose_jvp_rule(*rule, primals, std::span<const TensorType>(&result, 1),
                                std::span<const Tensor>(&cotangent, 1), refuse_nonlinear(*rule), transforms::apply);
}

std::pair<Values, Values> custom_forward_jvp(const std::shared_ptr<const CustomRule>& rule,
                                             std::span<const Tensor> args, std::span<const Tensor> tangents) {
  if (tangents.size() != args.size())
    throw ValueError(
        fmt::format("'{}': {} arguments but {} tangents", rule->name, args.size(), tangents.size()));
  const bool moving =
      std::any_of(tangents.begin(), tangents.end(), [](const Tensor& t) { return t.defined(); });
  if (rule->fwd)
    return transforms::along_defined(
        [&](std::span<const Tensor> a) {
          auto [values, residuals] = rule->fwd(a);
          values.insert(values.end(), residuals.begin(), residuals.end());
          return values;
        },
        args, tangents);
  if (!rule->jvp) throw Error("'" + rule->name + "' has no custom rule");
  // A custom_jvp function keeps its arguments for the backward half; the engine applies
  // the JVP rule to zeros where a tangent is absent, and the primal where all are.
  Values values{moving ? Tensor() : rule->primal(args).at(0)}, out_tangents{Tensor()};
  if (moving) {
    std::vector<Tensor> full;
    for (std::size_t i = 0; i < args.size(); ++i)
      full.push_back(tangents[i].defined() ? tangents[i] : zeros_like(args[i]));
    auto [vals, tans] = rule->jvp(args, full);
    values[0] = vals.at(0);
    out_tangents[0] = tans.at(0);
  }
  values.insert(values.end(), args.begin(), args.end());
  out_tangents.insert(out_tangents.end(), tangents.begin(), tangents.end());
  return {values, out_tangents};
}

std::pair<Values, Values> custom_backward_jvp(const std::shared_ptr<const CustomRule>& rule,
                                              std::span<const Tensor> residuals,
                                              std::span<const Tensor> residual_tangents,
                                              const Tensor& cotangent, const Tensor& cotangent_tangent) {
  const std::size_t n = residuals.size();
  std::vector<Tensor> args(residuals.begin(), residuals.end()),
      tangents(residual_tangents.begin(), residual_tangents.end());
  if (tangents.size() != n)
    throw ValueError(fmt::format("'{}': {} residuals but {} tangents", rule->name, n, tangents.size()));
  args.push_back(cotangent);
  tangents.push_back(cotangent_tangent);
  const TensorType result = type_of(cotangent);
  const auto backward = [&](std::span<const Tensor> a) -> Values {
    if (rule->bwd) return rule->bwd(a.first(n), a.subspan(n, 1));
    if (!rule->jvp) throw Error("'" + rule->name + "' has no custom rule");
    return ad::transpose_jvp_rule(*rule, a.first(n), std::span<const TensorType>(&result, 1), a.subspan(n, 1),
                                  refuse_nonlinear(*rule), transforms::apply);
  };
  return transforms::along_defined(backward, args, tangents);
}

Values call_custom(const std::shared_ptr<const CustomRule>& rule, std::span<const Tensor> args) {
  ir::Builder* b = ir::current_builder();
  if (b == nullptr) return rule->primal(args);
  std::vector<TensorType> types;
  for (const Tensor& a : args) types.push_back(type_of(a));
  Values out;
  std::vector<ir::Region> regions;
  regions.push_back(b->region(types, [&](std::span<const Tensor> a) { return out = rule->primal(a); }));
  std::vector<TensorType> out_types;
  for (const Tensor& t : out) out_types.push_back(type_of(t));
  const Attrs attrs{{"rule", ad::register_rule(rule)}, {"name", rule->name}};
  return b->record(*find_op("custom_rule"), args, attrs, out_types, std::move(regions));
}

namespace {

// Fixed directions of the given tensors' types: cos or sin of the element index.
std::vector<Tensor> directions(const std::vector<Tensor>& like, bool cosine) {
  std::vector<Tensor> out;
  for (const Tensor& t : like) {
    const Tensor i = arange(0, t.numel(), 1, t.dtype()).astype(t.dtype());
    out.push_back(reshape((cosine ? cos(i) : sin(i + 1.0)).astype(t.dtype()), t.shape()));
  }
  return out;
}

// Counts one compared value in the report: the largest errors, and where the largest
// absolute one is (`where` is asked only then).
void tally(CustomRuleReport& r, double got, double want, const std::function<std::string()>& where) {
  const double abs_err = std::abs(got - want), rel = abs_err / std::max(std::abs(want), 1e-300);
  if (abs_err > r.max_abs_error || std::isnan(abs_err)) {
    r.max_abs_error = std::isnan(abs_err) ? INFINITY : abs_err;
    r.detail = where();
  }
  r.max_rel_error = std::max(r.max_rel_error, std::isnan(rel) ? INFINITY : rel);
}

// The sum of <a[i], b[i]> over the pairs both defined.
double dot(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].defined() && b[i].defined()) s += sum(a[i] * b[i]).astype(DType::f64).item<double>();
  return s;
}

}  // namespace

CustomRuleReport check_custom(const std::shared_ptr<const CustomRule>& rule, std::span<const Tensor> args,
                              double rtol) {
  CustomRuleReport r;
  const auto compare = [&](std::string_view what, const Tensor& got, const Tensor& want) {
    if (!got.defined() || !want.defined()) return;
    const auto a = got.to_vector<double>(), b = want.to_vector<double>();
    for (std::size_t i = 0; i < a.size(); ++i)
      tally(r, a[i], b[i], [&] {
        return fmt::format("{}: element {} is {} by the rule and {} by the engine", what, i, a[i], b[i]);
      });
  };
  const FlatFn custom = [&](std::span<const Tensor> a) { return call_custom(rule, a); };
  const FlatFn engine = [&](std::span<const Tensor> a) { return rule->primal(a); };
  const std::vector<Tensor> x(args.begin(), args.end()), u = directions(rule->primal(args), true);
  if (rule->bwd || rule->jvp) {
    auto [yc, pc] = run_vjp(custom, args);
    auto [ye, pe] = run_vjp(engine, args);
    const std::vector<Tensor> gc = run_pullback(*pc, u), ge = run_pullback(*pe, u);
    for (std::size_t i = 0; i < gc.size(); ++i) compare(fmt::format("vjp of argument {}", i), gc[i], ge[i]);
  }
  if (rule->jvp) {
    const std::vector<Tensor> v = directions(x, false);
    const std::vector<Tensor> jc = run_jvp(custom, args, v), je = run_jvp(engine, args, v);
    for (std::size_t i = jc.size() / 2; i < jc.size(); ++i) compare(fmt::format("jvp of result {}", i - jc.size() / 2), jc[i], je[i]);
  }
  r.ok = r.max_rel_error <= rtol || r.max_abs_error <= rtol;
  return r;
}

CustomRuleReport check_kernel(const tlaloc::Kernel& k, std::span<const Tensor> args, double rtol) {
  CustomRuleReport r;
  const std::vector<Tensor> x(args.begin(), args.end());
  const FlatFn f = [&k](std::span<const Tensor> a) { return k.call(a); };
  const std::vector<Tensor> y = k.call(x), u = directions(y, true), v = directions(x, false);
  // J v by central differences, with a step scaled to the arguments.
  double scale = 1;
  for (const Tensor& a : x) scale = std::max(scale, max(abs(a)).astype(DType::f64).item<double>());
  const double h = 1e-5 * scale;
  std::vector<Tensor> up, down;
  for (std::size_t i = 0; i < x.size(); ++i) {
    up.push_back(x[i] + v[i] * h);
    down.push_back(x[i] - v[i] * h);
  }
  const std::vector<Tensor> yu = k.call(up), yd = k.call(down);
  std::vector<Tensor> jv;
  for (std::size_t j = 0; j < y.size(); ++j) jv.push_back((yu[j] - yd[j]) / (2 * h));
  const auto note = [&](const std::function<std::string()>& what, double got, double want) {
    tally(r, got, want,
          [&] { return fmt::format("{}: {} by the rule and {} by central differences", what(), got, want); });
  };
  bool checked = false;
  try {
    auto [yv, pullback] = run_vjp(f, x);
    note([] { return std::string("<vjp(u), v>"); }, dot(run_pullback(*pullback, u), v), dot(u, jv));
    checked = true;
  } catch (const NotDifferentiableError&) {  // no vjp rule: skipped
  }
  try {
    const std::vector<Tensor> out = run_jvp(f, x, v);
    for (std::size_t j = 0; j < y.size(); ++j) {
      const auto got = out[y.size() + j].to_vector<double>(), want = jv[j].to_vector<double>();
      for (std::size_t e = 0; e < got.size(); ++e)
        note([&] { return fmt::format("jvp of result {}, element {}", j, e); }, got[e], want[e]);
    }
    checked = true;
  } catch (const NotDifferentiableError&) {  // no jvp rule: skipped
  }
  if (!checked) r.detail = fmt::format("tl::kernel('{}') has no vjp and no jvp rule to check", k.name());
  r.ok = checked && (r.max_rel_error <= rtol || r.max_abs_error <= rtol);
  return r;
}

}  // namespace tlaloc::detail
