// Custom derivative rules (JAX's custom_vjp and custom_jvp): a function computed by
// `primal` whose derivative inside every transform comes from the rule given here
// instead of from differentiating `primal`. Use them to make a numerically unstable
// derivative stable, or to give an op the engine cannot see through a derivative.
//
//   auto f = tl::custom_vjp(primal, fwd, bwd);
//     primal(x...)          -> Tensor
//     fwd(x...)             -> std::pair<Tensor, std::vector<Tensor>>   (value, residuals)
//     bwd(residuals, ct)    -> std::vector<Tensor>   (one cotangent per argument)
//   auto g = tl::custom_jvp(primal, jvp);
//     jvp(primals, tangents) -> std::pair<Tensor, Tensor>   (value, tangent); both
//                              arguments are std::vector<Tensor>
//
// Forward mode through a custom_vjp function is refused by name, as is reverse mode
// through a custom_jvp function whose rule is not linear in the tangents.
// tl::check_custom_rule compares a rule with the engine's own derivative of primal.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tlaloc/control.hpp"
#include "tlaloc/error.hpp"
#include "tlaloc/export.hpp"
#include "tlaloc/kernel.hpp"
#include "tlaloc/tensor.hpp"

TLALOC_PUBLIC_BEGIN
namespace tlaloc {

namespace detail {
struct CustomRule {
  std::string name;
  std::function<Values(std::span<const Tensor>)> primal;
  // custom_vjp: (value, residuals) = fwd(args); cotangents = bwd(residuals, value cotangents)
  std::function<std::pair<Values, Values>(std::span<const Tensor>)> fwd;
  std::function<Values(std::span<const Tensor>, std::span<const Tensor>)> bwd;
  // custom_jvp: (values, tangents) = jvp(primals, tangents)
  std::function<std::pair<Values, Values>(std::span<const Tensor>, std::span<const Tensor>)> jvp;
};
Values call_custom(const std::shared_ptr<const CustomRule>& rule, std::span<const Tensor> args);
// A custom_jvp rule's tangent map at `primals`, transposed: each argument's cotangent
// for the result's (reverse mode, as the engine does inside a trace).
Values transposed_custom_jvp(const std::shared_ptr<const CustomRule>& rule, std::span<const Tensor> primals,
                             const Tensor& cotangent);
// Forward mode over the halves (CustomFunction::forward_jvp, backward_jvp): each
// half's outputs, then their tangents.
std::pair<Values, Values> custom_forward_jvp(const std::shared_ptr<const CustomRule>& rule,
                                             std::span<const Tensor> args, std::span<const Tensor> tangents);
std::pair<Values, Values> custom_backward_jvp(const std::shared_ptr<const CustomRule>& rule,
                                              std::span<const Tensor> residuals,
                                              std::span<const Tensor> residual_tangents,
                                              const Tensor& cotangent, const Tensor& cotangent_tangent);

struct CustomRuleReport {
  double max_abs_error = 0;  // largest |custom - engine| over the compared derivatives
  double max_rel_error = 0;
  bool ok = false;           // within the tolerance given
  std::string detail;        // which derivative differs most, and where
};
CustomRuleReport check_custom(const std::shared_ptr<const CustomRule>& rule, std::span<const Tensor> args,
                              double rtol);
CustomRuleReport check_kernel(const tlaloc::Kernel& k, std::span<const Tensor> args, double rtol);

template <class... A>
std::vector<Tensor> tensors_of(const A&... a) {
  return {a...};
}
template <class F, std::size_t... I>
auto call_with(const F& f, std::span<const Tensor> a, std::index_sequence<I...>) {
  return f(a[I]...);
}

// The number of parameters of a function or lambda.
template <class F>
struct arity : arity<decltype(&F::operator())> {};
template <class C, class R, class... A>
struct arity<R (C::*)(A...) const> : std::integral_constant<std::size_t, sizeof...(A)> {};
template <class C, class R, class... A>
struct arity<R (C::*)(A...)> : std::integral_constant<std::size_t, sizeof...(A)> {};
template <class R, class... A>
struct arity<R (*)(A...)> : std::integral_constant<std::size_t, sizeof...(A)> {};
template <class R, class... A>
struct arity<R(A...)> : std::integral_constant<std::size_t, sizeof...(A)> {};
}  // namespace detail

template <std::size_t N>
class CustomFunction {
 public:
  explicit CustomFunction(std::shared_ptr<const detail::CustomRule> r) : rule_(std::move(r)) {}
  template <class... A>
  Tensor operator()(const A&... args) const {
    static_assert(sizeof...(A) == N, "the function was declared with another number of arguments");
    const std::vector<Tensor> a = detail::tensors_of(args...);
    return detail::call_custom(rule_, a).at(0);
  }
  const std::shared_ptr<const detail::CustomRule>& rule() const { return rule_; }

  // The rule's own halves, for code that applies them itself (the gradients
  // tlaloc-grad writes): forward, {value, residuals}, and backward, one cotangent per
  // argument, which for a custom_jvp function are the primal with its arguments as
  // residuals and the transposed JVP rule (as the engine does); custom_jvp's rule,
  // {value, tangent}.
  template <class... A>
  std::pair<Tensor, std::vector<Tensor>> forward(const A&... args) const {
    const std::vector<Tensor> a = detail::tensors_of(args...);
    if (!rule_->fwd && rule_->jvp) return {rule_->primal(a).at(0), a};
    if (!rule_->fwd) throw Error("'" + rule_->name + "' has no custom_vjp rule");
    auto [values, residuals] = rule_->fwd(a);
    return {values.at(0), std::vector<Tensor>(residuals.begin(), residuals.end())};
  }
  std::vector<Tensor> backward(const std::vector<Tensor>& residuals, const Tensor& cotangent) const {
    const detail::Values r = rule_->bwd   ? rule_->bwd(residuals, std::span<const Tensor>(&cotangent, 1))
                             : rule_->jvp ? detail::transposed_custom_jvp(rule_, residuals, cotangent)
                                          : throw Error("'" + rule_->name + "' has no custom_vjp rule");
    return std::vector<Tensor>(r.begin(), r.end());
  }
  std::pair<Tensor, Tensor> jvp(const std::vector<Tensor>& primals, const std::vector<Tensor>& tangents) const {
    if (!rule_->jvp)
      throw NotDifferentiableError(
          "the custom_vjp function '" + rule_->name +
          "' has no JVP rule; forward mode through it is refused (give it a custom_jvp "
          "rule, or differentiate it in reverse mode)");
    auto [values, t] = rule_->jvp(primals, tangents);
    return {values.at(0), t.at(0)};
  }

  // Forward mode over the halves, for the Hessians tlaloc-grad writes: {outputs,
  // their tangents} along the tangents given (undefined: zero), computed as the engine
  // computes them when it differentiates a gradient through this function.
  using ForwardHalf = std::pair<Tensor, std::vector<Tensor>>;
  std::pair<ForwardHalf, ForwardHalf> forward_jvp(const std::vector<Tensor>& args,
                                                  const std::vector<Tensor>& tangents) const {
    auto [values, t] = detail::custom_forward_jvp(rule_, args, tangents);
    const auto half = [](detail::Values& v) {
      return ForwardHalf{v.at(0), std::vector<Tensor>(v.begin() + 1, v.end())};
    };
    return {half(values), half(t)};
  }
  std::pair<std::vector<Tensor>, std::vector<Tensor>> backward_jvp(
      const std::vector<Tensor>& residuals, const std::vector<Tensor>& residual_tangents,
      const Tensor& cotangent, const Tensor& cotangent_tangent) const {
    return detail::custom_backward_jvp(rule_, residuals, residual_tangents, cotangent, cotangent_tangent);
  }

 private:
  std::shared_ptr<const detail::CustomRule> rule_;
};

template <class P, class Fwd, class Bwd, std::size_t N = detail::arity<std::remove_pointer_t<std::decay_t<P>>>::value>
CustomFunction<N> custom_vjp(P primal, Fwd fwd, Bwd bwd, std::string name = "custom_vjp") {
  auto r = std::make_shared<detail::CustomRule>();
  r->name = std::move(name);
  using Seq = std::make_index_sequence<N>;
  r->primal = [primal](std::span<const Tensor> a) { return detail::Values{detail::call_with(primal, a, Seq{})}; };
  r->fwd = [fwd](std::span<const Tensor> a) {
    auto [y, res] = detail::call_with(fwd, a, Seq{});
    return std::pair{detail::Values{y}, detail::Values(res)};
  };
  r->bwd = [bwd](std::span<const Tensor> res, std::span<const Tensor> ct) {
    return detail::Values(bwd(detail::Values(res.begin(), res.end()), ct[0]));
  };
  return CustomFunction<N>(std::move(r));
}

template <class P, class J, std::size_t N = detail::arity<std::remove_pointer_t<std::decay_t<P>>>::value>
CustomFunction<N> custom_jvp(P primal, J jvp, std::string name = "custom_jvp") {
  auto r = std::make_shared<detail::CustomRule>();
  r->name = std::move(name);
  using Seq = std::make_index_sequence<N>;
  r->primal = [primal](std::span<const Tensor> a) { return detail::Values{detail::call_with(primal, a, Seq{})}; };
  r->jvp = [jvp](std::span<const Tensor> p, std::span<const Tensor> t) {
    auto [y, ty] = jvp(detail::Values(p.begin(), p.end()), detail::Values(t.begin(), t.end()));
    return std::pair{detail::Values{y}, detail::Values{ty}};
  };
  return CustomFunction<N>(std::move(r));
}

// Compares the rule's derivatives (its VJP, and its JVP when it has one) at args with
// the engine's derivatives of the primal function, along fixed random directions.
template <std::size_t N, class... A>
detail::CustomRuleReport check_custom_rule(const CustomFunction<N>& f, const A&... args) {
  const std::vector<Tensor> a = detail::tensors_of(args...);
  return detail::check_custom(f.rule(), a, 1e-6);
}

// Compares a kernel's rules at args with central differences of the kernel itself
// (its implementation is opaque to the engine), along fixed directions v of the
// arguments and u of the results: its jvp as J v element by element, its vjp as
// <vjp(u), v> against <u, J v>. A missing rule is skipped; neither is a failure.
// Differences need f64 arguments for the default tolerance 1e-6.
template <class... A>
detail::CustomRuleReport check_custom_rule(const Kernel& k, const A&... args) {
  const std::vector<Tensor> a = detail::tensors_of(args...);
  return detail::check_kernel(k, a, 1e-6);
}

}  // namespace tlaloc
TLALOC_PUBLIC_END
