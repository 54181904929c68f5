// SGD, RMSprop, Adam and AdamW: PyTorch 1.13's single-tensor update formulas
// (torch/optim/*.py, foreach off, its CPU default), with the f32 operations in the
// same order and the step-dependent scalars in f64 as Python computes them, each
// rounded once to the parameter's dtype where PyTorch hands a float to a kernel.
#include <fmt/format.h>

#include <string_view>
#include <vector>

#include "tlaloc/error.hpp"
#include "tlaloc/nn/optim.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::nn {

Params OptimizerState::to_params() const {
  if (!step.defined()) throw ValueError("tl::nn::OptimizerState::to_params: the state has no step");
  Params p = slots;
  p.set("step", step);
  return p;
}

OptimizerState OptimizerState::from_params(const Params& p) {
  OptimizerState s;
  for (const auto& [name, t] : p) {
    if (name == "step")
      s.step = t;
    else
      s.slots.set(name, t);
  }
  if (!s.step.defined()) throw ValueError("tl::nn::OptimizerState::from_params: no entry named 'step'");
  if (s.step.rank() != 0 || !is_integral(s.step.dtype()))
    throw ValueError(fmt::format("tl::nn::OptimizerState::from_params: 'step' must be an integer scalar, got {} {}",
                                 dtype_name(s.step.dtype()), shape_string(s.step.shape())));
  s.step = s.step.astype(DType::i64);
  return s;
}

namespace {

// What every optimizer checks and looks up, named after it in errors.
class Checked {
 public:
  Checked(std::string_view who, const Params& params, const std::set<std::string>& frozen)
      : who_(who), frozen_(frozen) {
    for (const std::string& name : frozen)
      if (!params.contains(name))
        throw ValueError(fmt::format("tl::nn::{}: frozen parameter '{}' is not among the parameters", who, name));
    for (const auto& [name, p] : params)
      if (!is_floating(p.dtype()))
        throw DTypeError(fmt::format("tl::nn::{}: parameter '{}' is {}, not floating", who, name,
                                     dtype_name(p.dtype())));
  }
  bool frozen(const std::string& name) const { return frozen_.count(name) != 0; }

  const Tensor& grad(const Params& grads, const std::string& name, const Tensor& p) const {
    if (!grads.contains(name))
      throw ValueError(fmt::format("tl::nn::{}::update: no gradient for parameter '{}'", who_, name));
    const Tensor& g = grads.at(name);
    if (g.shape() != p.shape() || g.dtype() != p.dtype())
      throw ShapeError(fmt::format("tl::nn::{}::update: gradient '{}' is {} {}, parameter is {} {}", who_, name,
                                   dtype_name(g.dtype()), shape_string(g.shape()), dtype_name(p.dtype()),
                                   shape_string(p.shape())));
    return g;
  }

  const Tensor& slot(const OptimizerState& s, std::string_view buffer, const std::string& name,
                     const Tensor& p) const {
    const std::string key = fmt::format("{}.{}", buffer, name);
    if (!s.slots.contains(key))
      throw ValueError(fmt::format("tl::nn::{}::update: the state has no '{}' (make it with init of these "
                                   "parameters and options)",
                                   who_, key));
    const Tensor& t = s.slots.at(key);
    if (t.shape() != p.shape())
      throw ShapeError(fmt::format("tl::nn::{}::update: state '{}' is {}, parameter is {}", who_, key,
                                   shape_string(t.shape()), shape_string(p.shape())));
    return t;
  }

  void check_step(const OptimizerState& s) const {
    if (!s.step.defined() || s.step.rank() != 0 || s.step.dtype() != DType::i64)
      throw ValueError(fmt::format("tl::nn::{}::update: the state's step must be an i64 scalar", who_));
  }

 private:
  std::string_view who_;
  const std::set<std::string>& frozen_;
};

// A Python float as PyTorch passes it to an f32 kernel: rounded once.
Tensor coef(double v, DType t) { return scalar_tensor(v, t); }

OptimizerState zero_state(std::string_view who, const Params& params, const std::set<std::string>& frozen,
                          const std::vector<std::string_view>& buffers) {
  const Checked check(who, params, frozen);
  OptimizerState s;
  s.step = scalar_tensor(0, DType::i64);
  for (std::string_view b : buffers)
    for (const auto& [name, p] : params)
      if (!check.frozen(name)) s.slots.set(fmt::format("{}.{}", b, name), zeros_like(p));
  return s;
}

void check_lr(std::string_view who, const Schedule& lr) {
  if (!lr.defined()) throw ValueError(fmt::format("tl::nn::{}: lr is required", who));
}

}  // namespace

// ---- SGD ------------------------------------------------------------------------

namespace {
void check_sgd(const SGD& o) {
  check_lr("SGD", o.lr);
  if (o.nesterov && (o.momentum <= 0.0 || o.dampening != 0.0))
    throw ValueError("tl::nn::SGD: nesterov needs momentum > 0 and dampening = 0");
}
}  // namespace

OptimizerState SGD::init(const Params& params) const {
  check_sgd(*this);
  if (momentum != 0.0) return zero_state("SGD", params, frozen, {"momentum_buffer"});
  return zero_state("SGD", params, frozen, {});
}

std::pair<Params, OptimizerState> SGD::update(const Params& params, const Params& grads,
                                              const OptimizerState& state) const {
  check_sgd(*this);
  const Checked check("SGD", params, frozen);
  check.check_step(state);
  const Tensor rate = lr(state.step);
  const Tensor first = state.step == 0;
  Params out;
  OptimizerState next{state.step + 1, {}};
  for (const auto& [name, p] : params) {
    if (check.frozen(name)) {
      out.set(name, p);
      continue;
    }
    const DType t = p.dtype();
    Tensor d = check.grad(grads, name, p);
    if (weight_decay != 0.0) d = d + coef(weight_decay, t) * p;
    if (momentum != 0.0) {
      const Tensor& old = check.slot(state, "momentum_buffer", name, p);
      // PyTorch's buffer starts as the first gradient itself.
      const Tensor buf = where(first, d, old * coef(momentum, t) + coef(1.0 - dampening, t) * d);
      next.slots.set("momentum_buffer." + name, buf);
      d = nesterov ? d + coef(momentum, t) * buf : buf;
    }
    out.set(name, p + (-rate).astype(t) * d);
  }
  return {out, next};
}

// ---- RMSprop ----------------------------------------------------------------------

namespace {
std::vector<std::string_view> rmsprop_buffers(const RMSprop& o) {
  std::vector<std::string_view> b{"square_avg"};
  if (o.momentum > 0.0) b.push_back("momentum_buffer");
  if (o.centered) b.push_back("grad_avg");
  return b;
}
}  // namespace

OptimizerState RMSprop::init(const Params& params) const {
  check_lr("RMSprop", lr);
  return zero_state("RMSprop", params, frozen, rmsprop_buffers(*this));
}

std::pair<Params, OptimizerState> RMSprop::update(const Params& params, const Params& grads,
                                                  const OptimizerState& state) const {
  check_lr("RMSprop", lr);
  const Checked check("RMSprop", params, frozen);
  check.check_step(state);
  const Tensor rate = lr(state.step);
  Params out, square_avgs, momentum_buffers, grad_avgs;
  for (const auto& [name, p] : params) {
    if (check.frozen(name)) {
      out.set(name, p);
      continue;
    }
    const DType t = p.dtype();
    Tensor g = check.grad(grads, name, p);
    if (weight_decay != 0.0) g = g + coef(weight_decay, t) * p;
    const Tensor square_avg =
        check.slot(state, "square_avg", name, p) * coef(alpha, t) + coef(1.0 - alpha, t) * g * g;
    square_avgs.set(name, square_avg);
    Tensor avg;
    if (centered) {
      const Tensor grad_avg = check.slot(state, "grad_avg", name, p) * coef(alpha, t) + coef(1.0 - alpha, t) * g;
      grad_avgs.set(name, grad_avg);
      avg = sqrt(square_avg + -grad_avg * grad_avg);
    } else {
      avg = sqrt(square_avg);
    }
    avg = avg + coef(eps, t);
    const Tensor neg_lr = (-rate).astype(t);
    if (momentum > 0.0) {
      const Tensor buf = check.slot(state, "momentum_buffer", name, p) * coef(momentum, t) + g / avg;
      momentum_buffers.set(name, buf);
      out.set(name, p + neg_lr * buf);
    } else {
      out.set(name, p + neg_lr * g / avg);
    }
  }
  // The buffers in init's order, so a traced update's outputs line up with its inputs.
  OptimizerState next{state.step + 1, square_avgs.prefixed("square_avg")};
  for (const auto& e : momentum_buffers.prefixed("momentum_buffer")) next.slots.set(e.first, e.second);
  for (const auto& e : grad_avgs.prefixed("grad_avg")) next.slots.set(e.first, e.second);
  return {out, next};
}

// ---- Adam and AdamW -------------------------------------------------------------

namespace {

struct AdamOptions {
  std::string_view who;
  const Schedule& lr;
  double beta1, beta2, eps, weight_decay;
  bool amsgrad, decoupled;
  const std::set<std::string>& frozen;
};

std::vector<std::string_view> adam_buffers(bool amsgrad) {
  if (amsgrad) return {"exp_avg", "exp_avg_sq", "max_exp_avg_sq"};
  return {"exp_avg", "exp_avg_sq"};
}

std::pair<Params, OptimizerState> adam_update(const AdamOptions& o, const Params& params, const Params& grads,
                                              const OptimizerState& state) {
  check_lr(o.who, o.lr);
  const Checked check(o.who, params, o.frozen);
  check.check_step(state);
  const Tensor rate = o.lr(state.step);
  const Tensor step = state.step + 1;
  // Python's doubles: bias corrections, step size and the decoupled decay factor.
  const Tensor tf = step.astype(DType::f64);
  const Tensor bias_correction1 = 1.0 - pow(o.beta1, tf);
  const Tensor bias_correction2 = 1.0 - pow(o.beta2, tf);
  const Tensor step_size = rate / bias_correction1;
  const Tensor bias_correction2_sqrt = sqrt(bias_correction2);
  const Tensor decay = 1.0 - rate * o.weight_decay;

  Params out;
  Params m_out, v_out, vmax_out;
  for (const auto& [name, param] : params) {
    if (check.frozen(name)) {
      out.set(name, param);
      continue;
    }
    const DType t = param.dtype();
    Tensor p = param;
    Tensor g = check.grad(grads, name, p);
    if (o.weight_decay != 0.0) {
      if (o.decoupled)
        p = p * decay.astype(t);
      else
        g = g + coef(o.weight_decay, t) * p;
    }
    const Tensor m = check.slot(state, "exp_avg", name, p) * coef(o.beta1, t) + coef(1.0 - o.beta1, t) * g;
    const Tensor v = check.slot(state, "exp_avg_sq", name, p) * coef(o.beta2, t) + coef(1.0 - o.beta2, t) * g * g;
    m_out.set(name, m);
    v_out.set(name, v);
    Tensor v_hat = v;
    if (o.amsgrad) {
      v_hat = maximum(check.slot(state, "max_exp_avg_sq", name, p), v);
      vmax_out.set(name, v_hat);
    }
    const Tensor denom = sqrt(v_hat) / bias_correction2_sqrt.astype(t) + coef(o.eps, t);
    out.set(name, p + (-step_size).astype(t) * m / denom);
  }
  OptimizerState next{step, m_out.prefixed("exp_avg")};
  for (const auto& e : v_out.prefixed("exp_avg_sq")) next.slots.set(e.first, e.second);
  for (const auto& e : vmax_out.prefixed("max_exp_avg_sq")) next.slots.set(e.first, e.second);
  return {out, next};
}

}  // namespace

OptimizerState Adam::init(const Params& params) const {
  check_lr("Adam", lr);
  return zero_state("Adam", params, frozen, adam_buffers(amsgrad));
}

std::pair<Params, OptimizerState> Adam::update(const Params& params, const Params& grads,
                                               const OptimizerState& state) const {
  return adam_update({"Adam", lr, beta1, beta2, eps, weight_decay, amsgrad, false, frozen}, params, grads, state);
}

OptimizerState AdamW::init(const Params& params) const {
  check_lr("AdamW", lr);
  return zero_state("AdamW", params, frozen, adam_buffers(amsgrad));
}

std::pair<Params, OptimizerState> AdamW::update(const Params& params, const Params& grads,
                                                const OptimizerState& state) const {
  return adam_update({"AdamW", lr, beta1, beta2, eps, weight_decay, amsgrad, true, frozen}, params, grads, state);
}

}  // namespace tlaloc::nn
