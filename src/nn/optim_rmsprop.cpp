// torch.optim.RMSprop as a pure function.
// PyTorch 1.13's single-tensor update formula (torch/optim/rmsprop.py, foreach off, its
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
      const Tensor grad_avg =
          check.slot(state, "grad_avg", name, p) * coef(alpha, t) + coef(1.0 - alpha, t) * g;
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

}  // namespace tlaloc::nn
