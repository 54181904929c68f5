// A training step as one tl::jit program: value_and_grad of the captured loss,
// clipping, and the optimizer's update, with the batch and the state as arguments.
#include <fmt/format.h>

#include <tuple>

#include "nn/capture_impl.hpp"
#include "stablehlo/stablehlo.hpp"
#include "tlaloc/error.hpp"
#include "tlaloc/nn/capture.hpp"
#include "tlaloc/transforms.hpp"
#include "transforms/bounded.hpp"
#include "transforms/cached_programs.hpp"

namespace tlaloc::nn {

struct TrainStep::Impl {
  LossOf loss;
  Params example_params;
  Batch example_batch;
  AnyOptimizer optimizer;
  Clipping clipping;
  std::shared_ptr<tlaloc::detail::BoundedState> bounded;  // null: exact batches
  std::shared_ptr<tlaloc::detail::TransformCache> cache = tlaloc::detail::make_cache("train_step");

  // (params, slots, step, inputs, targets) -> (params', slots', step', [loss, grad_norm?])
  std::tuple<Params, Params, Tensor, std::vector<Tensor>> operator()(const Params& p, const Params& slots,
                                                                     const Tensor& step, const Tensor& x,
                                                                     const Tensor& y) const {
    const LossOf& l = loss;
    auto [value, grads] = value_and_grad([&l](const Params& q, const Tensor& xs, const Tensor& ys) {
      return l(q, Batch{xs, ys});
    })(p, x, y);
    std::vector<Tensor> metrics{value};
    if (clipping.max_norm > 0.0) {
      auto [clipped, norm] = clip_grad_norm(grads, clipping.max_norm);
      grads = std::move(clipped);
      metrics.push_back(norm);
    }
    if (clipping.max_value > 0.0) grads = clip_grad_value(grads, clipping.max_value);
    auto [next, state] = optimizer.update(p, grads, OptimizerState{step, slots});
    return {std::move(next), std::move(state.slots), std::move(state.step), std::move(metrics)};
  }
};

namespace {

namespace td = tlaloc::detail;

using StepOut = std::tuple<Params, Params, Tensor, std::vector<Tensor>>;

void check_step_args(const OptimizerState& state, const Batch& batch) {
  if (!state.step.defined())
    throw ValueError("tl::nn::TrainStep: the optimizer state has no step; make it with TrainStep::init");
  if (!batch.inputs.defined() || !batch.targets.defined())
    throw ValueError("tl::nn::TrainStep: the batch needs inputs and targets");
}

template <class Run>
auto with_step_call(const TrainStep::Impl& impl, const Params& params, const OptimizerState& state,
                    const Batch& batch, Run run) {
  check_step_args(state, batch);
  const td::FlatCall call = td::make_call(impl, params, state.slots, state.step, batch.inputs, batch.targets);
  return run(bounded_batch_call(impl.bounded.get(), call, nullptr));
}

}  // namespace

TrainStep Captured::train_step(AnyOptimizer optimizer, Clipping clipping) const {
  if (clipping.max_norm < 0.0 || clipping.max_value < 0.0)
    throw ValueError(fmt::format("tl::nn::Captured::train_step: clipping bounds must be >= 0, got max_norm {} "
                                 "and max_value {}",
                                 clipping.max_norm, clipping.max_value));
  auto impl = std::make_shared<TrainStep::Impl>(TrainStep::Impl{
      impl_->loss, impl_->params, impl_->batch, std::move(optimizer), clipping, impl_->bounded});
  return TrainStep(std::move(impl));
}

OptimizerState TrainStep::init(const Params& params) const { return impl_->optimizer.init(params); }

StepResult TrainStep::operator()(const Params& params, const OptimizerState& state, const Batch& batch) const {
  return with_step_call(*impl_, params, state, batch, [&](const td::FlatCall& call) {
    td::ResultLayout layout;
    const std::vector<Tensor> flat = td::run_jit(*impl_->cache, call, layout);
    td::Cursor cursor{flat, layout};
    auto [next, slots, step, metrics] = td::Unflatten<StepOut>::get(cursor);
    return StepResult{std::move(next), OptimizerState{std::move(step), std::move(slots)}, metrics.at(0),
                      metrics.size() > 1 ? metrics[1] : Tensor()};
  });
}

std::string TrainStep::stablehlo() const {
  return stablehlo(impl_->example_params, init(impl_->example_params), impl_->example_batch);
}

std::string TrainStep::stablehlo(const Params& params, const OptimizerState& state, const Batch& batch) const {
  return with_step_call(*impl_, params, state, batch, [&](const td::FlatCall& call) {
    return tlaloc::stablehlo::to_text(td::cached_jit_program(*impl_->cache, call));
  });
}

std::vector<std::string> TrainStep::input_names(const OptimizerState& state) const {
  std::vector<std::string> names;
  for (const std::string& n : impl_->example_params.names()) names.push_back("params." + n);
  for (const std::string& n : state.slots.names()) names.push_back("optim." + n);
  names.emplace_back("optim.step");
  if (impl_->bounded)
    for (const BoundedDim& d : td::bounded_dims(*impl_->bounded))
      names.push_back("batch.valid_length." + d.name);
  names.insert(names.end(), {"batch.inputs", "batch.targets"});
  return names;
}

std::vector<std::string> TrainStep::output_names(const OptimizerState& state) const {
  std::vector<std::string> names = input_names(state);
  names.resize(names.size() - 2 - (impl_->bounded ? td::bounded_dims(*impl_->bounded).size() : 0));
  names.emplace_back("loss");
  if (impl_->clipping.max_norm > 0.0) names.emplace_back("grad_norm");
  return names;
}

std::size_t TrainStep::traces() const { return td::cache_traces(*impl_->cache); }

}  // namespace tlaloc::nn
