// Checks of the random programs (random_programs.py): each prints the bits of what it
// checks, with their dtype, which the traced and the generated builds must print alike,
// and counts the results that disagree with central differences or with the gradient's
// projection. Those run in f64 only: in f32 they are too coarse for the bounds, and
// only the bits are compared (f32 kernels and weak scalars take paths of their own).
#pragma once

#include <tlaloc/nn.hpp>
#include <tlaloc/tlaloc.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace grad_tool_checks {

namespace tl = tlaloc;

inline int failures = 0;

inline void print_bits(const std::string& what, const tl::Tensor& t) {
  std::printf("%s %s:", what.c_str(), std::string(tl::dtype_name(t.dtype())).c_str());
  for (double e : t.to_vector<double>()) std::printf(" %a", e);
  std::printf("\n");
}

inline void fail_if_far(const std::string& what, double got, double expected, double bound) {
  if (std::abs(got - expected) <= bound * (1 + std::abs(expected))) return;
  std::printf("FAIL %s: %.17g, expected %.17g\n", what.c_str(), got, expected);
  ++failures;
}

// f's central difference along element j at x, a function of tensors.
template <class F>
auto central_difference(F f, const tl::Tensor& x, std::size_t j) {
  std::vector<double> up = x.to_vector<double>(), down = up;
  up[j] += 1e-6;
  down[j] -= 1e-6;
  return std::pair{f(tl::tensor(up, x.shape())), f(tl::tensor(down, x.shape()))};
}

// d, the derivative of scalar f at x, against f's central differences.
template <class F>
void check_differences(const std::string& what, const tl::Tensor& d, F f, const tl::Tensor& x) {
  const std::vector<double> dv = d.to_vector<double>();
  for (std::size_t j = 0; j < dv.size(); ++j) {
    const auto [fu, fd] = central_difference(f, x, j);
    fail_if_far(what + " " + std::to_string(j), dv[j],
                (fu.template item<double>() - fd.template item<double>()) / 2e-6, 1e-6);
  }
}

// The gradient and Hessian of f at x, against central differences of f and of the
// gradient.
template <class G, class H, class F>
void check(const std::string& name, int mode, G gradient, H hessian, F f, const tl::Tensor& x) {
  const std::string what = name + " (mode " + std::to_string(mode) + ")";
  const tl::Tensor g = gradient(x), h = hessian(x);
  print_bits(what + " gradient", g);
  print_bits(what + " hessian", h);
  if (x.dtype() != tl::DType::f64) return;
  const std::vector<double> gv = g.to_vector<double>(), hv = h.to_vector<double>();
  const std::size_t n = gv.size();
  for (std::size_t j = 0; j < n; ++j) {
    const auto [fu, fd] = central_difference(f, x, j);
    fail_if_far(what + " gradient " + std::to_string(j), gv[j],
                (fu.template item<double>() - fd.template item<double>()) / 2e-6, 1e-6);
    const auto [gu, gd] = central_difference(gradient, x, j);
    const std::vector<double> up = gu.template to_vector<double>(), down = gd.template to_vector<double>();
    for (std::size_t i = 0; i < n; ++i)
      fail_if_far(what + " hessian " + std::to_string(i) + ", " + std::to_string(j), hv[i * n + j],
                  (up[i] - down[i]) / 2e-6, 1e-6);
  }
}

// A jvp's value and derivative along t, the derivative against the gradient's projection.
inline void check_jvp(const std::string& name, int mode, const tl::Tensor& value, const tl::Tensor& dot,
                      const tl::Tensor& g, const tl::Tensor& t) {
  const std::string what = name + " (mode " + std::to_string(mode) + ") jvp";
  print_bits(what, tl::stack({value, dot}));
  if (dot.dtype() != tl::DType::f64) return;
  fail_if_far(what, dot.item<double>(), tl::sum(g * t).item<double>(), 1e-12);
}

// Derivatives with respect to both arguments of f(m, k), listed in `order` (0 for m,
// 1 for k), each against central differences of f in its argument.
template <class F>
void check_pair(const std::string& name, int mode, const std::string& kind,
                const std::vector<tl::Tensor>& listed, const std::vector<int>& order, F f,
                const tl::Tensor& m, const tl::Tensor& k) {
  const std::string what = name + " (mode " + std::to_string(mode) + ") " + kind;
  if (listed.size() != order.size()) {
    std::printf("FAIL %s: %zu derivatives, expected %zu\n", what.c_str(), listed.size(), order.size());
    ++failures;
    return;
  }
  for (std::size_t a = 0; a < order.size(); ++a) {
    const std::string of = what + (order[a] == 0 ? " m" : " k");
    print_bits(of, listed[a]);
    if (listed[a].dtype() != tl::DType::f64) continue;
    const auto along = [&](const tl::Tensor& q) { return order[a] == 0 ? f(q, k) : f(m, q); };
    check_differences(of, listed[a], along, order[a] == 0 ? m : k);
  }
}

// The gradient of f with respect to its Params p, each entry against central
// differences of f in that entry.
template <class F>
void check_params(const std::string& name, int mode, const std::string& kind, const tl::nn::Params& grads,
                  F f, const tl::nn::Params& p) {
  const std::string what = name + " (mode " + std::to_string(mode) + ") " + kind;
  if (grads.names() != p.names()) {
    std::printf("FAIL %s: the gradient's names differ from the Params'\n", what.c_str());
    ++failures;
    return;
  }
  for (std::size_t a = 0; a < p.size(); ++a) {
    const std::string of = what + " " + p.entries()[a].first;
    const tl::Tensor& d = grads.entries()[a].second;
    print_bits(of, d);
    if (d.dtype() != tl::DType::f64) continue;
    const auto along = [&](const tl::Tensor& q) {
      std::vector<tl::Tensor> tensors = p.tensors();
      tensors[a] = q;
      return f(p.with_tensors(tensors));
    };
    check_differences(of, d, along, p.entries()[a].second);
  }
}

inline int summary() {
  std::printf("%d failures\n", failures);
  return failures == 0 ? 0 : 1;
}

}  // namespace grad_tool_checks
