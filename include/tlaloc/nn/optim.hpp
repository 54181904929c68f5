// Optimizers, learning-rate schedules and gradient clipping, as pure functions
// (JAX style): `init(params)` gives a state, `update(params, grads, state)` gives new
// parameters and a new state; nothing is changed in place. The update formulas, their
// order of f32 operations and the defaults are PyTorch 1.13's (torch.optim, single
// tensor path), so a run matches torch.optim to f32 rounding (tests/oracle/optim*).
//
// Everything that depends on the step count is computed with tensor ops on the state's
// step tensor, so an update traced by tl::jit is one program with no host round trip.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <utility>

#include "tlaloc/export.hpp"
#include "tlaloc/nn/params.hpp"
#include "tlaloc/tensor.hpp"

TLALOC_PUBLIC_BEGIN
namespace tlaloc::nn {

// The learning rate as a function of the number of updates already done (0 for the
// first update): PyTorch's lr_scheduler stepped once after each optimizer.step().
// The step is an integer scalar tensor, host or symbolic; the rate is an f64 scalar
// tensor (Python computes its schedules in double; the update rounds once to the
// parameters' dtype, as PyTorch does when it passes a Python float to a kernel).
class Schedule {
 public:
  Schedule() = default;  // none: an optimizer without a default rate refuses it
  Schedule(double lr);   // NOLINT(google-explicit-constructor): a constant rate
  explicit Schedule(std::function<Tensor(const Tensor& step)> f) : f_(std::move(f)) {}

  bool defined() const { return static_cast<bool>(f_); }
  Tensor operator()(const Tensor& step) const;
  double at(std::int64_t step) const;  // the rate on the host, for logs and plots

 private:
  std::function<Tensor(const Tensor&)> f_;
};

Schedule constant_lr(double lr);
// lr * gamma^floor(step / step_size) (StepLR).
Schedule step_lr(double lr, std::int64_t step_size, double gamma = 0.1);
// lr * gamma^step (ExponentialLR).
Schedule exponential_lr(double lr, double gamma);
// eta_min + (lr - eta_min) * (1 + cos(pi * step / t_max)) / 2 (CosineAnnealingLR's
// closed form; it keeps going round the cosine after t_max, as PyTorch's does).
Schedule cosine_lr(double lr, std::int64_t t_max, double eta_min = 0.0);
// lr * step / warmup for step < warmup, then a half cosine from lr down to eta_min at
// total_steps, and eta_min after (a LambdaLR in PyTorch).
Schedule warmup_cosine_lr(double lr, std::int64_t warmup, std::int64_t total_steps, double eta_min = 0.0);

// An optimizer's state: the updates done and the named per-parameter buffers
// ("exp_avg.layers.0.weight"). As Params ("step" last) it goes into a checkpoint.
struct OptimizerState {
  Tensor step;   // i64 scalar
  Params slots;  // "<buffer>.<parameter name>"

  Params to_params() const;
  // The inverse of to_params: a ValueError when "step" is missing or not an integer scalar.
  static OptimizerState from_params(const Params& p);
};

// torch.optim.SGD. lr has no default (PyTorch requires it).
struct SGD {
  Schedule lr = {};
  double momentum = 0.0;
  double dampening = 0.0;
  double weight_decay = 0.0;
  bool nesterov = false;
  std::set<std::string> frozen = {};  // names left unchanged, with no state

  OptimizerState init(const Params& params) const;
  std::pair<Params, OptimizerState> update(const Params& params, const Params& grads,
                                           const OptimizerState& state) const;
};

// torch.optim.RMSprop.
struct RMSprop {
  Schedule lr = 1e-2;
  double alpha = 0.99;
  double eps = 1e-8;
  double weight_decay = 0.0;
  double momentum = 0.0;
  bool centered = false;
  std::set<std::string> frozen = {};

  OptimizerState init(const Params& params) const;
  std::pair<Params, OptimizerState> update(const Params& params, const Params& grads,
                                           const OptimizerState& state) const;
};

// torch.optim.Adam: weight decay is L2 added to the gradient.
struct Adam {
  Schedule lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.0;
  bool amsgrad = false;
  std::set<std::string> frozen = {};

  OptimizerState init(const Params& params) const;
  std::pair<Params, OptimizerState> update(const Params& params, const Params& grads,
                                           const OptimizerState& state) const;
};

// torch.optim.AdamW: decoupled weight decay, params *= 1 - lr * weight_decay.
struct AdamW {
  Schedule lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 1e-2;
  bool amsgrad = false;
  std::set<std::string> frozen = {};

  OptimizerState init(const Params& params) const;
  std::pair<Params, OptimizerState> update(const Params& params, const Params& grads,
                                           const OptimizerState& state) const;
};

// torch.nn.utils.clip_grad_norm_ (2-norm): the gradients scaled by
// min(1, max_norm / (norm + 1e-6)), and the norm before clipping (f32 scalar).
std::pair<Params, Tensor> clip_grad_norm(const Params& grads, double max_norm);
// torch.nn.utils.clip_grad_value_: each element clamped to [-clip_value, clip_value].
Params clip_grad_value(const Params& grads, double clip_value);

}  // namespace tlaloc::nn
TLALOC_PUBLIC_END
