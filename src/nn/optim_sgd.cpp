// torch.optim.SGD as a pure function.
// PyTorch 1.13's single-tensor update formula (torch/optim/sgd.py, foreach off, its
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

}  // namespace tlaloc::nn
