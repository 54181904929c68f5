// The optimizers' state: its conversion to and from Params (for checkpoints), and
// the zero state their init gives.
#include "nn/optim_common.hpp"

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
    throw ValueError(
        fmt::format("tl::nn::OptimizerState::from_params: 'step' must be an integer scalar, got {} {}",
                    dtype_name(s.step.dtype()), shape_string(s.step.shape())));
  s.step = s.step.astype(DType::i64);
  return s;
}

namespace detail {

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

}  // namespace detail
}  // namespace tlaloc::nn
