// Structured control flow. Called on host tensors they simply run; inside a trace
// (grad, jit, ...) a data-dependent branch or loop is recorded as one IR op with
// regions (if, while, scan) that every transform and back end understands. Plain C++
// `if` and `for` in a traced function are unrolled by the trace instead, which is
// right when the condition or the trip count is known while tracing.
//
// The carried state is a Tensor or a std::vector<Tensor>; functions may capture
// anything (captured tensors become inputs of the recorded regions).
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "tlaloc/export.hpp"
#include "tlaloc/tensor.hpp"

TLALOC_PUBLIC_BEGIN
namespace tlaloc {

namespace detail {
using Values = std::vector<Tensor>;
Values cond_values(const Tensor& pred, const std::function<Values()>& on_true, const std::function<Values()>& on_false);
Values while_values(const std::function<Tensor(const Values&)>& cond, const std::function<Values(const Values&)>& body,
                    Values init);
Values fori_values(std::int64_t lo, std::int64_t hi, const std::function<Values(const Tensor&, const Values&)>& body,
                   Values init);
// f maps (carry, x slices) to (carry, y slices); returns the carry, then the ys.
Values scan_values(const std::function<std::pair<Values, Values>(const Values&, const Values&)>& f, Values init,
                   Values xs, bool reverse);

// What a branch returns and a loop carries.
template <class S>
inline constexpr bool is_carry_v = std::is_same_v<S, Tensor> || std::is_same_v<S, std::vector<Tensor>>;

inline Values as_values(const Tensor& t) { return {t}; }
inline Values as_values(Values v) { return v; }
template <class T>
T from_values(Values v) {
  if constexpr (std::is_same_v<T, Tensor>)
    return v.at(0);
  else
    return v;
}
}  // namespace detail

// on_true() if pred (a bool scalar) holds, else on_false(). Both return the same
// types: a Tensor or a std::vector<Tensor>.
template <class T, class F>
auto cond(const Tensor& pred, T on_true, F on_false) {
  // Each refusal returns a value of the true branch's type, so that the call site
  // adds no error of its own to the one that names the mistake.
  if constexpr (!std::is_invocable_v<T&> || !std::is_invocable_v<F&>) {
    static_assert(detail::dependent_false<T, F>, "tl::cond: each branch is a callable taking no arguments");
    return Tensor{};
  } else if constexpr (!std::is_same_v<std::decay_t<std::invoke_result_t<T&>>,
                                       std::decay_t<std::invoke_result_t<F&>>>) {
    static_assert(detail::dependent_false<T, F>, "tl::cond: both branches must return the same type");
    return std::decay_t<std::invoke_result_t<T&>>{};
  } else if constexpr (!detail::is_carry_v<std::decay_t<std::invoke_result_t<T&>>>) {
    static_assert(
        detail::dependent_false<T, F>,
        "tl::cond: the branches must return a tl::Tensor or a std::vector<tl::Tensor>, not a C++ value");
    return std::decay_t<std::invoke_result_t<T&>>{};
  } else {
    using R = std::decay_t<std::invoke_result_t<T&>>;
    return detail::from_values<R>(detail::cond_values(
        pred, [&] { return detail::as_values(on_true()); }, [&] { return detail::as_values(on_false()); }));
  }
}

// carry = body(carry) while cond(carry) (a bool scalar). Reverse mode saves every
// iteration's carry on the host; StableHLO cannot express that (docs/HOW_IT_WORKS.md).
template <class S, class C, class B>
S while_loop(C cond_fn, B body_fn, S init) {
  if constexpr (!detail::is_carry_v<S>) {
    static_assert(detail::dependent_false<S>,
                  "tl::while_loop: the carry must be a tl::Tensor or a std::vector<tl::Tensor>");
    return init;
  } else if constexpr (!std::is_invocable_r_v<Tensor, C&, const S&>) {
    static_assert(detail::dependent_false<S>,
                  "tl::while_loop: the condition takes the carry and returns a tl::Tensor (a bool scalar)");
    return init;
  } else if constexpr (!std::is_invocable_r_v<S, B&, const S&>) {
    static_assert(detail::dependent_false<S>,
                  "tl::while_loop: the body takes the carry and returns the carry's type");
    return init;
  } else {
    return detail::from_values<S>(detail::while_values(
        [&](const detail::Values& v) { return cond_fn(detail::from_values<S>(v)); },
        [&](const detail::Values& v) { return detail::as_values(body_fn(detail::from_values<S>(v))); },
        detail::as_values(std::move(init))));
  }
}
// A brace list of tensors carries as a std::vector<Tensor>.
template <class C, class B>
std::vector<Tensor> while_loop(C cond_fn, B body_fn, std::initializer_list<Tensor> init) {
  return while_loop(std::move(cond_fn), std::move(body_fn), std::vector<Tensor>(init));
}

// carry = body(i, carry) for i in [lo, hi); i is an i64 scalar tensor. The bounds are
// known while tracing, so this is a scan and reverse mode works through it.
template <class S, class B>
S fori_loop(std::int64_t lo, std::int64_t hi, B body_fn, S init) {
  if constexpr (!detail::is_carry_v<S>) {
    static_assert(detail::dependent_false<S>,
                  "tl::fori_loop: the carry must be a tl::Tensor or a std::vector<tl::Tensor>");
    return init;
  } else if constexpr (!std::is_invocable_r_v<S, B&, const Tensor&, const S&>) {
    static_assert(
        detail::dependent_false<S>,
        "tl::fori_loop: the body is called as body(i, carry), i a tl::Tensor (an i64 scalar, not an int, "
        "so that the loop can be traced), and returns the carry's type");
    return init;
  } else {
    return detail::from_values<S>(detail::fori_values(
        lo, hi,
        [&](const Tensor& i, const detail::Values& v) {
          return detail::as_values(body_fn(i, detail::from_values<S>(v)));
        },
        detail::as_values(std::move(init))));
  }
}
// A brace list of tensors carries as a std::vector<Tensor>.
template <class B>
std::vector<Tensor> fori_loop(std::int64_t lo, std::int64_t hi, B body_fn,
                              std::initializer_list<Tensor> init) {
  return fori_loop(lo, hi, std::move(body_fn), std::vector<Tensor>(init));
}

// JAX's lax.scan: for each slice x of xs along axis 0 (last to first if reverse),
// (carry, y) = f(carry, x); returns the final carry and the ys stacked along axis 0.
template <class S, class X, class F>
auto scan(F f, S init, X xs, bool reverse = false) {
  using Y = std::decay_t<decltype(std::declval<F&>()(init, xs).second)>;
  std::size_t n = detail::as_values(init).size();
  detail::Values out = detail::scan_values(
      [&](const detail::Values& c, const detail::Values& x) {
        auto [c2, y] = f(detail::from_values<S>(c), detail::from_values<X>(x));
        return std::pair{detail::as_values(std::move(c2)), detail::as_values(std::move(y))};
      },
      detail::as_values(std::move(init)), detail::as_values(std::move(xs)), reverse);
  detail::Values carry(out.begin(), out.begin() + std::ptrdiff_t(n)), ys(out.begin() + std::ptrdiff_t(n), out.end());
  return std::pair<S, Y>{detail::from_values<S>(std::move(carry)), detail::from_values<Y>(std::move(ys))};
}

}  // namespace tlaloc
TLALOC_PUBLIC_END
