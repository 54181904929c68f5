// Function transforms: grad, value_and_grad, vjp, jvp, jacobians, hessian, jit.
//
// A transform traces the function once per input signature (the dtypes and shapes
// of its tensor arguments and the values of its other arguments), differentiates
// and optimizes the traced program, caches it, and runs it on the interpreter. Inside
// another transform it records into the enclosing trace instead, so transforms nest
// freely: grad(grad(f)), jvp of grad, jacobian of jacobian. docs/HOW_IT_WORKS.md
// explains the engine; docs/GETTING_STARTED.md the forms below.
//
// What a function captures: host tensors and C++ numbers it reads become constants
// of the program when it is traced, and the cached program keeps them; pass what
// changes between calls as an argument. Symbolic tensors of an enclosing trace
// become inputs of the program, bound at each call.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "tlaloc/export.hpp"
#include "tlaloc/nn/params.hpp"
#include "tlaloc/tensor.hpp"

TLALOC_PUBLIC_BEGIN
namespace tlaloc {

// Which arguments grad and value_and_grad differentiate: `tl::argnums{0, 2}`.
struct argnums {
  std::vector<std::size_t> list;
  argnums(std::initializer_list<std::size_t> l) : list(l) {}
};

namespace detail {

using FlatFn = std::function<std::vector<Tensor>(std::span<const Tensor>)>;

// The cache of one transformed function (src/ad/api.cpp).
class TransformCache;
// `origin` names the transformed callable's type (typeid): transforms made anew for
// every call of one callable are noticed and warned about once.
std::shared_ptr<TransformCache> make_cache(std::string name, std::string origin = {});
std::size_t cache_traces(const TransformCache& c);

// How flat results group back into the function's result type: the sizes of its
// vectors and Params, and the Params' names.
struct ResultLayout {
  std::vector<std::size_t> sizes;
  std::vector<std::string> names;
};

// One call: the flattened function, its tensor arguments, and a key for the
// arguments that are not tensors.
struct FlatCall {
  FlatFn fn;
  std::vector<Tensor> args;
  std::string static_key;
  // Filled by fn: how to regroup the flat results.
  std::shared_ptr<ResultLayout> result_layout = std::make_shared<ResultLayout>();
};

// grad/value_and_grad: [value if with_value, then the cotangent of each wrt argument].
std::vector<Tensor> run_grad(TransformCache& c, const FlatCall& call, const std::vector<bool>& wrt,
                             bool with_value);
// jit: the results, and how they group, through `layout`.
std::vector<Tensor> run_jit(TransformCache& c, const FlatCall& call, ResultLayout& layout);
// jvp of a function of flat tensors: results, then their tangents.
std::vector<Tensor> run_jvp(const FlatFn& fn, std::span<const Tensor> primals, std::span<const Tensor> tangents);
// The pullback of a vjp: keeps the program and its arguments.
class PullbackState;
std::pair<std::vector<Tensor>, std::shared_ptr<PullbackState>> run_vjp(const FlatFn& fn,
                                                                      std::span<const Tensor> primals);
std::vector<Tensor> run_pullback(const PullbackState& s, std::span<const Tensor> cotangents);
// Jacobians of a one-tensor function: out.shape + x.shape.
Tensor run_jacobian(const FlatFn& fn, const Tensor& x, bool forward);
// The derivative program of a call printed as C++ (src/cppgen).
enum class SourceForm { gradient, jvp, hessian_vector_product };
std::string derivative_source(const FlatCall& call, const std::vector<bool>& wrt, SourceForm form);

// ---- flattening arguments and results ----------------------------------------
template <class T>
inline constexpr bool is_static_arg_v =
    std::is_arithmetic_v<T> || std::is_enum_v<T> || std::is_same_v<T, std::string>;

void append_static_key(std::string& key, double v);
void append_static_key(std::string& key, long long v);
void append_static_key(std::string& key, const std::string& v);

inline void flatten_arg(const Tensor& t, FlatCall& c) { c.args.push_back(t); }
inline void flatten_arg(const std::vector<Tensor>& v, FlatCall& c) {
  c.args.insert(c.args.end(), v.begin(), v.end());
  append_static_key(c.static_key, static_cast<long long>(v.size()));
}
// Parameters: their tensors in order; the names are part of the signature.
inline void flatten_arg(const nn::Params& p, FlatCall& c) {
  for (const auto& [name, t] : p) {
    c.args.push_back(t);
    append_static_key(c.static_key, name);
  }
}
template <class S>
  requires is_static_arg_v<S>
void flatten_arg(const S& s, FlatCall& c) {
  if constexpr (std::is_same_v<S, std::string>)
    append_static_key(c.static_key, s);
  else if constexpr (std::is_enum_v<S>)
    append_static_key(c.static_key, static_cast<long long>(s));
  else if constexpr (std::is_floating_point_v<S>)
    append_static_key(c.static_key, static_cast<double>(s));
  else
    append_static_key(c.static_key, static_cast<long long>(s));
}

inline Tensor rebuild_arg(const Tensor&, std::span<const Tensor> syms, std::size_t& pos) { return syms[pos++]; }
inline std::vector<Tensor> rebuild_arg(const std::vector<Tensor>& v, std::span<const Tensor> syms,
                                       std::size_t& pos) {
  std::vector<Tensor> out(syms.begin() + std::ptrdiff_t(pos), syms.begin() + std::ptrdiff_t(pos + v.size()));
  pos += v.size();
  return out;
}
inline nn::Params rebuild_arg(const nn::Params& p, std::span<const Tensor> syms, std::size_t& pos) {
  std::vector<Tensor> t(syms.begin() + std::ptrdiff_t(pos), syms.begin() + std::ptrdiff_t(pos + p.size()));
  pos += p.size();
  return p.with_tensors(t);
}
template <class S>
  requires is_static_arg_v<S>
const S& rebuild_arg(const S& s, std::span<const Tensor>, std::size_t&) {
  return s;
}

inline std::size_t tensor_count(const Tensor&) { return 1; }
inline std::size_t tensor_count(const std::vector<Tensor>& v) { return v.size(); }
inline std::size_t tensor_count(const nn::Params& p) { return p.size(); }
template <class S>
  requires is_static_arg_v<S>
std::size_t tensor_count(const S&) {
  return 0;
}

inline void flatten_result(const Tensor& t, std::vector<Tensor>& out, ResultLayout&) { out.push_back(t); }
inline void flatten_result(const std::vector<Tensor>& v, std::vector<Tensor>& out, ResultLayout& l) {
  out.insert(out.end(), v.begin(), v.end());
  l.sizes.push_back(v.size());
}
inline void flatten_result(const nn::Params& p, std::vector<Tensor>& out, ResultLayout& l) {
  for (const auto& [name, t] : p) {
    out.push_back(t);
    l.names.push_back(name);
  }
  l.sizes.push_back(p.size());
}
template <class... T>
void flatten_result(const std::tuple<T...>& t, std::vector<Tensor>& out, ResultLayout& l) {
  std::apply([&](const auto&... e) { (flatten_result(e, out, l), ...); }, t);
}
template <class A, class B>
void flatten_result(const std::pair<A, B>& p, std::vector<Tensor>& out, ResultLayout& l) {
  flatten_result(p.first, out, l);
  flatten_result(p.second, out, l);
}

// Reading flat results back: where the next tensor, size and name are.
struct Cursor {
  std::span<const Tensor> flat;
  const ResultLayout& layout;
  std::size_t tensor = 0, size = 0, name = 0;
  std::vector<Tensor> take(std::size_t n) {
    std::vector<Tensor> v(flat.begin() + std::ptrdiff_t(tensor), flat.begin() + std::ptrdiff_t(tensor + n));
    tensor += n;
    return v;
  }
};

template <class R>
struct Unflatten;
template <>
struct Unflatten<Tensor> {
  static Tensor get(Cursor& c) { return c.flat[c.tensor++]; }
};
template <>
struct Unflatten<std::vector<Tensor>> {
  static std::vector<Tensor> get(Cursor& c) { return c.take(c.layout.sizes[c.size++]); }
};
template <>
struct Unflatten<nn::Params> {
  static nn::Params get(Cursor& c) {
    const std::size_t n = c.layout.sizes[c.size++];
    const std::vector<std::string> names(c.layout.names.begin() + std::ptrdiff_t(c.name),
                                         c.layout.names.begin() + std::ptrdiff_t(c.name + n));
    c.name += n;
    return nn::Params::from(names, c.take(n));
  }
};
template <class A, class B>
struct Unflatten<std::pair<A, B>> {
  static std::pair<A, B> get(Cursor& c) {
    A a = Unflatten<A>::get(c);
    B b = Unflatten<B>::get(c);
    return {std::move(a), std::move(b)};
  }
};
template <class... T>
struct Unflatten<std::tuple<T...>> {
  static std::tuple<T...> get(Cursor& c) { return std::tuple<T...>{Unflatten<T>::get(c)...}; }
};

// The flat call of f on args: tensors replaced by the trace's symbols, the rest kept.
template <class F, class... A>
FlatCall make_call(const F& f, const A&... args) {
  FlatCall c;
  (flatten_arg(args, c), ...);
  c.fn = [&f, &args..., layout = c.result_layout](std::span<const Tensor> syms) {
    std::size_t pos = 0;
    // Braced initialization evaluates the rebuilt arguments left to right.
    auto rebuilt = std::tuple<decltype(rebuild_arg(args, syms, pos))...>{rebuild_arg(args, syms, pos)...};
    std::vector<Tensor> out;
    *layout = {};
    flatten_result(std::apply(f, rebuilt), out, *layout);
    return out;
  };
  return c;
}

// The wrt mask over the flattened tensors for the listed arguments.
template <class... A>
std::vector<bool> wrt_mask(const std::vector<std::size_t>& which, const A&... args) {
  const std::size_t counts[] = {tensor_count(args)...};
  std::vector<bool> mask;
  for (std::size_t i = 0; i < sizeof...(A); ++i) {
    bool on = false;
    for (std::size_t w : which) on = on || w == i;
    mask.insert(mask.end(), counts[i], on);
  }
  return mask;
}
void check_argnums(const std::vector<std::size_t>& which, std::span<const std::size_t> counts,
                   std::span<const bool> is_tensor);

template <class F, bool WithValue, bool Listed>
class GradFn {
 public:
  GradFn(F f, std::vector<std::size_t> which)
      : f_(std::move(f)),
        which_(std::move(which)),
        cache_(make_cache(WithValue ? "value_and_grad" : "grad", typeid(F).name())) {}

  template <class... A>
  auto operator()(const A&... args) const {
    static_assert(sizeof...(A) > 0, "tl::grad: the function needs an argument to differentiate");
    using R = std::invoke_result_t<const F&, decltype(rebuild_arg(args, std::span<const Tensor>{},
                                                                  std::declval<std::size_t&>()))...>;
    if constexpr (!std::is_same_v<std::decay_t<R>, Tensor>) {
      static_assert(
          WithValue || dependent_false<R>,
          "tl::grad: the function must return a tl::Tensor (a floating-point scalar), not a C++ number "
          "or another type");
      static_assert(
          !WithValue || dependent_false<R>,
          "tl::value_and_grad: the function must return a tl::Tensor (a floating-point scalar), not a C++ "
          "number or another type");
      return Tensor{};  // no second error at the call site
    } else {
      return call(args...);
    }
  }
  std::size_t traces() const { return cache_traces(*cache_); }

 private:
  template <class... A>
  auto call(const A&... args) const {
    const std::size_t counts[] = {tensor_count(args)...};
    // argnums lists Tensor arguments; the one-argument form also takes a list of
    // tensors or Params.
    const bool is_tensor[] = {(Listed ? std::is_same_v<A, Tensor> : !is_static_arg_v<std::decay_t<A>>)...};
    check_argnums(which_, counts, is_tensor);
    const FlatCall call = make_call(f_, args...);
    std::vector<Tensor> r = run_grad(*cache_, call, wrt_mask(which_, args...), WithValue);
    const auto& first = std::get<0>(std::forward_as_tuple(args...));
    if constexpr (WithValue) {
      Tensor value = r.front();
      r.erase(r.begin());
      return std::pair{value, shape_grads(first, std::move(r))};
    } else {
      return shape_grads(first, std::move(r));
    }
  }
  // One argument: its own type (a Tensor, a vector<Tensor> or Params of gradients);
  // several (argnums): one Tensor per listed argument, in the order listed (the
  // program gives them in the arguments' order).
  template <class A0>
  auto shape_grads(const A0& first, std::vector<Tensor> g) const {
    if constexpr (!Listed && std::is_same_v<A0, Tensor>) {
      return g.front();
    } else if constexpr (!Listed && std::is_same_v<A0, nn::Params>) {
      return first.with_tensors(g);
    } else if constexpr (Listed) {
      std::vector<std::size_t> by_position = which_;
      std::sort(by_position.begin(), by_position.end());
      by_position.erase(std::unique(by_position.begin(), by_position.end()), by_position.end());
      std::vector<Tensor> listed;
      for (std::size_t w : which_)
        listed.push_back(g.at(std::size_t(std::lower_bound(by_position.begin(), by_position.end(), w) - by_position.begin())));
      return listed;
    } else {
      return g;
    }
  }
  F f_;
  std::vector<std::size_t> which_;
  std::shared_ptr<TransformCache> cache_;
};

template <class F>
class JitFn {
 public:
  JitFn(F f, std::string name) : f_(std::move(f)), cache_(make_cache(std::move(name), typeid(F).name())) {}
  template <class... A>
  auto operator()(const A&... args) const {
    using R = std::decay_t<std::invoke_result_t<const F&, decltype(rebuild_arg(
                                                              args, std::span<const Tensor>{},
                                                              std::declval<std::size_t&>()))...>>;
    const FlatCall call = make_call(f_, args...);
    ResultLayout layout;
    const std::vector<Tensor> flat = run_jit(*cache_, call, layout);
    Cursor cursor{flat, layout};
    return Unflatten<R>::get(cursor);
  }
  // How many times the function was traced: once per new input signature.
  std::size_t traces() const { return cache_traces(*cache_); }

 private:
  F f_;
  std::shared_ptr<TransformCache> cache_;
};

}  // namespace detail

// d f / d x for f returning a floating-point scalar. The gradient has the type of the
// argument: a Tensor, a std::vector<Tensor>, or nn::Params with the same names.
template <class F>
auto grad(F f) {
  return detail::GradFn<F, false, false>(std::move(f), {0});
}
// Gradients with respect to several Tensor arguments, one per listed argument, as a
// std::vector<Tensor> in the order listed.
template <class F>
auto grad(F f, argnums which) {
  return detail::GradFn<F, false, true>(std::move(f), std::move(which.list));
}
// std::pair{f(x, ...), grad(f)(x, ...)} from one program.
template <class F>
auto value_and_grad(F f) {
  return detail::GradFn<F, true, false>(std::move(f), {0});
}
template <class F>
auto value_and_grad(F f, argnums which) {
  return detail::GradFn<F, true, true>(std::move(f), std::move(which.list));
}

// Traces f once per input signature and runs the optimized program; a changed
// signature traces again (`traces()` counts; TLALOC_LOG_TRACES=1 logs each one).
// Arguments that are not tensors (numbers, enums, strings) are static: their values
// are part of the signature.
template <class F>
auto jit(F f, std::string name = "jit") {
  return detail::JitFn<F>(std::move(f), std::move(name));
}

// What tl::jvp checks of its arguments: one tangent per primal, each of its primal's
// dtype and shape, the primals floating (ValueError, DTypeError). Forward mode that
// tlaloc-grad writes at build time checks them with it too.
void check_jvp_arguments(const std::vector<Tensor>& primals, const std::vector<Tensor>& tangents);

// Forward mode: {f(x), the derivative of f at x along t}.
template <class F>
std::pair<Tensor, Tensor> jvp(const F& f, const Tensor& x, const Tensor& t) {
  const Tensor p[] = {x}, tt[] = {t};
  const std::vector<Tensor> r = detail::run_jvp([&f](std::span<const Tensor> a) { return std::vector<Tensor>{f(a[0])}; },
                                                p, tt);
  return {r[0], r[1]};
}
// Several arguments: f takes a const std::vector<Tensor>&.
template <class F>
std::pair<Tensor, Tensor> jvp(const F& f, const std::vector<Tensor>& primals, const std::vector<Tensor>& tangents) {
  const std::vector<Tensor> r = detail::run_jvp(
      [&f](std::span<const Tensor> a) { return std::vector<Tensor>{f(std::vector<Tensor>(a.begin(), a.end()))}; },
      primals, tangents);
  return {r[0], r[1]};
}

// Reverse mode: {f(x, ...), pullback}; pullback(ct) gives one cotangent per tensor
// argument. The pullback runs the forward program again with the backward one.
// A pullback is any function of the result's cotangent: the traced program's, or
// one tlaloc-grad wrote at build time.
class Pullback {
 public:
  using Fn = std::function<std::vector<Tensor>(const Tensor& cotangent)>;
  explicit Pullback(std::shared_ptr<detail::PullbackState> s)
      : f_([s = std::move(s)](const Tensor& cotangent) {
          const Tensor c[] = {cotangent};
          return detail::run_pullback(*s, c);
        }) {}
  explicit Pullback(Fn f) : f_(std::move(f)) {}
  std::vector<Tensor> operator()(const Tensor& cotangent) const { return f_(cotangent); }

 private:
  Fn f_;
};
template <class F, class... A>
std::pair<Tensor, Pullback> vjp(const F& f, const A&... args) {
  static_assert((std::is_same_v<A, Tensor> && ...), "tl::vjp: the arguments must be tensors");
  const Tensor flat[] = {args...};
  auto [out, state] = detail::run_vjp(
      [&f, &args...](std::span<const Tensor> a) {
        std::size_t pos = 0;
        auto rebuilt = std::tuple<decltype(detail::rebuild_arg(args, a, pos))...>{
            detail::rebuild_arg(args, a, pos)...};
        return std::vector<Tensor>{std::apply(f, rebuilt)};
      },
      flat);
  return {out[0], Pullback(std::move(state))};
}

// The Jacobian of a function of one tensor: shape f(x).shape + x.shape. jacfwd uses
// one JVP per input element, jacrev one VJP per output element; jacobian is jacrev.
template <class F>
auto jacfwd(F f) {
  return [f = std::move(f)](const Tensor& x) {
    return detail::run_jacobian([&f](std::span<const Tensor> a) { return std::vector<Tensor>{f(a[0])}; }, x, true);
  };
}
template <class F>
auto jacrev(F f) {
  return [f = std::move(f)](const Tensor& x) {
    return detail::run_jacobian([&f](std::span<const Tensor> a) { return std::vector<Tensor>{f(a[0])}; }, x, false);
  };
}
template <class F>
auto jacobian(F f) {
  return jacrev(std::move(f));
}
// The Hessian of a scalar function of one tensor: jacfwd(jacrev(f)), shape x.shape + x.shape.
template <class F>
auto hessian(F f) {
  return jacfwd(jacrev(std::move(f)));
}

// ---- derivatives as readable C++ (docs/READABLE_REVERSE.md) -----------------------
// Each returns a complete C++ source text (#include <tlaloc/tlaloc.hpp> and one
// function over the public API) that compiles on its own and, run on arguments of
// the traced types, gives the same bits as the transform. The arguments fix the
// types; a captured host tensor becomes a constant of the printed code.
//
// gradient_source: `gradient(x0, x1, ...)`, the gradient of scalar f with respect
// to its first argument, the program tl::grad(f) runs.
template <class F, class... A>
std::string gradient_source(const F& f, const A&... args) {
  static_assert(sizeof...(A) > 0, "tl::gradient_source: the function needs an argument to differentiate");
  const detail::FlatCall call = detail::make_call(f, args...);
  return detail::derivative_source(call, detail::wrt_mask({0}, args...), detail::SourceForm::gradient);
}
// jvp_source: `jvp(x0, ..., t0, ...)` with a tangent for each floating tensor
// argument, returning {f, its derivative along the tangents}, as tl::jvp.
template <class F, class... A>
std::string jvp_source(const F& f, const A&... args) {
  const detail::FlatCall call = detail::make_call(f, args...);
  std::vector<bool> wrt;
  for (const Tensor& t : call.args) wrt.push_back(is_floating(t.dtype()));
  return detail::derivative_source(call, wrt, detail::SourceForm::jvp);
}
// hessian_source: `hessian_vector_product(x0, ..., v)`, the Hessian of scalar f
// with respect to its first argument applied to v (forward over reverse); the
// Hessian tl::hessian returns is this product over the basis vectors.
template <class F, class... A>
std::string hessian_source(const F& f, const A&... args) {
  const detail::FlatCall call = detail::make_call(f, args...);
  return detail::derivative_source(call, detail::wrt_mask({0}, args...), detail::SourceForm::hessian_vector_product);
}

// The identity whose derivative is zero.
Tensor stop_gradient(const Tensor& x);

}  // namespace tlaloc
TLALOC_PUBLIC_END
