// The gradient-check table: one row per differentiable op (or per rule path of an
// op), checked by gradcheck.cpp in f64 against central finite differences:
//   - VJP:  pullback(u) against d<u, f(x)>/dx by differences;
//   - JVP:  jvp(f)(x; v) against (f(x + hv) - f(x - hv)) / 2h;
//   - the transpose identity <u, jvp(v)> = <vjp(u), v>;
//   - second order (unless the row says the op is not twice differentiable): the
//     gradient of <vjp(u)(x), w> (reverse over reverse) and the JVP of the
//     gradient (forward over reverse) against differences of the first derivative;
//   - f32: the same VJP computed in f32 agrees with f64 to f32 precision.
// Rows are added by the cases_*.cpp files, one per op family.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include <tlaloc/tlaloc.hpp>

namespace gradcheck {

namespace tl = tlaloc;
using tl::Tensor;

struct Case {
  std::string name;                  // "unary/tanh"; the test's name
  std::vector<std::string> ops;      // the registry ops whose rules it checks
  std::vector<Tensor> inputs;        // f64 (or integer for indices)
  std::function<Tensor(std::span<const Tensor>)> fn;
  bool second_order = true;          // the op is twice differentiable at these inputs
  bool f32 = true;                   // also check the f32 path
  double h = 1e-5;     // finite-difference step (second order: max(h, 1e-4))
  double tol = 1e-6;  // first order; the transpose identity uses tol * 1e-4, second order max(tol, 1e-5)
  // The same function in PyTorch for the oracle lane (tests/oracle): an expression
  // over the inputs named a, b, c, ... (integer inputs arrive as int64 tensors),
  // e.g. "torch.tanh(a)". Empty: the row has no PyTorch counterpart.
  std::string torch = {};
};

inline Case with_torch(Case c, std::string expr) {
  c.torch = std::move(expr);
  return c;
}

std::vector<Case>& table();
// For `static const bool added = gradcheck::add({...});` in a cases file.
bool add(std::vector<Case> cases);

// Inputs: f64 values drawn uniformly from [lo, hi), fixed by `seed`.
Tensor uniform(const tl::Shape& shape, double lo, double hi, std::uint64_t seed);
// Away from points where the op is not differentiable: |x| in [0.2, 2], random signs.
Tensor away_from_zero(const tl::Shape& shape, std::uint64_t seed);

}  // namespace gradcheck
