// torch.optim.Adam and AdamW as pure functions (one update, the weight decay apart).
// PyTorch 1.13's single-tensor update formula (torch/optim/adam.py, foreach off, its
// CPU default): the f32 operations in the same order, the step-dependent scalars in
// f64 as Python computes them, each rounded once to the parameter's dtype where
// PyTorch hands a Python float to a kernel.
#include "nn/optim_common.hpp"

namespace tlaloc::nn {

using detail::check_lr;
using detail::Checked;
using detail::coef;
using detail::zero_state;

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
    const Tensor v =
        check.slot(state, "exp_avg_sq", name, p) * coef(o.beta2, t) + coef(1.0 - o.beta2, t) * g * g;
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
  return adam_update({"Adam", lr, beta1, beta2, eps, weight_decay, amsgrad, false, frozen}, params, grads,
                     state);
}

OptimizerState AdamW::init(const Params& params) const {
  check_lr("AdamW", lr);
  return zero_state("AdamW", params, frozen, adam_buffers(amsgrad));
}

std::pair<Params, OptimizerState> AdamW::update(const Params& params, const Params& grads,
                                                const OptimizerState& state) const {
  return adam_update({"AdamW", lr, beta1, beta2, eps, weight_decay, amsgrad, true, frozen}, params, grads,
                     state);
}

}  // namespace tlaloc::nn
