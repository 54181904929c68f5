// Learning-rate schedules: functions of the step count built from tensor ops, so they
// evaluate on the host or record into a trace alike.
#include <fmt/format.h>

#include <numbers>

#include "tlaloc/error.hpp"
#include "tlaloc/nn/optim.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::nn {

namespace {
Tensor as_f64(const Tensor& step) { return step.astype(DType::f64); }
}  // namespace

Schedule::Schedule(double lr) : f_([lr](const Tensor&) { return scalar_tensor(lr, DType::f64); }) {}

Tensor Schedule::operator()(const Tensor& step) const {
  if (!f_) throw ValueError("tl::nn::Schedule: no learning rate was given");
  return f_(step);
}

double Schedule::at(std::int64_t step) const {
  return (*this)(scalar_tensor(step, DType::i64)).item<double>();
}

Schedule constant_lr(double lr) { return Schedule(lr); }

Schedule step_lr(double lr, std::int64_t step_size, double gamma) {
  if (step_size <= 0)
    throw ValueError(fmt::format("tl::nn::step_lr: step_size must be positive, got {}", step_size));
  return Schedule([=](const Tensor& step) {
    return lr * pow(gamma, floor(as_f64(step) / static_cast<double>(step_size)));
  });
}

Schedule exponential_lr(double lr, double gamma) {
  return Schedule([=](const Tensor& step) { return lr * pow(gamma, as_f64(step)); });
}

Schedule cosine_lr(double lr, std::int64_t t_max, double eta_min) {
  if (t_max <= 0) throw ValueError(fmt::format("tl::nn::cosine_lr: t_max must be positive, got {}", t_max));
  return Schedule([=](const Tensor& step) {
    const Tensor c = cos(std::numbers::pi * as_f64(step) / static_cast<double>(t_max));
    return eta_min + (lr - eta_min) * (1.0 + c) / 2.0;
  });
}

Schedule warmup_cosine_lr(double lr, std::int64_t warmup, std::int64_t total_steps, double eta_min) {
  if (warmup < 0)
    throw ValueError(fmt::format("tl::nn::warmup_cosine_lr: warmup must be >= 0, got {}", warmup));
  if (total_steps <= warmup)
    throw ValueError(fmt::format("tl::nn::warmup_cosine_lr: total_steps ({}) must exceed warmup ({})",
                                 total_steps, warmup));
  return Schedule([=](const Tensor& step) {
    const Tensor t = as_f64(step);
    const auto span = static_cast<double>(total_steps - warmup);
    // Past total_steps the rate stays at eta_min rather than climbing the cosine again.
    const Tensor progress = minimum(t - static_cast<double>(warmup), span) / span;
    Tensor decay = eta_min + (lr - eta_min) * (0.5 * (1.0 + cos(std::numbers::pi * progress)));
    if (warmup == 0) return decay;
    return where(t < static_cast<double>(warmup), lr * t / static_cast<double>(warmup), decay);
  });
}

}  // namespace tlaloc::nn
