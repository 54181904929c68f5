// tl::nn::capture: a model's loss traced once, and what is made of it: the loss and
// gradients for a batch, a whole training step (forward, backward, clipping and the
// optimizer's update) as one program, and the programs as text (StableHLO, C++).
//
//   tl::nn::MLP mlp{{784, 512, 10}};
//   tl::nn::Params params = mlp.init(tl::random::key(0));
//   auto captured = tl::nn::capture(mlp, params, {x, labels},
//                                   [](const tl::Tensor& logits, const tl::Tensor& y) {
//                                     return tl::nn::cross_entropy(logits, y);
//                                   });
//   auto step = captured.train_step(tl::nn::Adam{.lr = 1e-3}, {.max_norm = 1.0});
//   tl::nn::OptimizerState state = step.init(params);
//   for (...) {
//     auto r = step(params, state, {x, labels});   // one program per batch shape
//     params = r.params, state = r.state;          // r.loss: the loss before the update
//   }
//
// A captured program is cached per signature (the tensors' dtypes and shapes), as
// tl::jit is: capture traces for the example batch; a batch of another shape (a short
// last batch) traces once more. Everything the loss reads that is not a parameter or
// part of the batch is baked into the program when it is traced.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tlaloc/bounded.hpp"
#include "tlaloc/export.hpp"
#include "tlaloc/nn/optim.hpp"
#include "tlaloc/nn/params.hpp"
#include "tlaloc/tensor.hpp"

TLALOC_PUBLIC_BEGIN
namespace tlaloc::nn {

// A batch: the model's inputs and the targets its loss compares the outputs with.
struct Batch {
  Tensor inputs;
  Tensor targets;
};

// The loss of a model with these parameters on a batch: a floating-point scalar.
using LossOf = std::function<Tensor(const Params&, const Batch&)>;

// A batch whose sizes vary up to bounds (docs/DYNAMIC_SHAPES.md): each batch is padded
// to a bucket of its dimensions, one program per bucket, and the loss reads
// tl::valid_length and tl::valid_mask to leave the padding out.
struct BoundedBatch {
  std::vector<BoundedDim> bounds;
  Dims inputs;
  Dims targets;
};

// Any of SGD, RMSprop, Adam, AdamW (or a type with the same init and update).
class AnyOptimizer {
 public:
  template <class O>
  AnyOptimizer(O o)  // NOLINT(google-explicit-constructor): any optimizer converts
      : init_([o](const Params& p) { return o.init(p); }),
        update_([o](const Params& p, const Params& g, const OptimizerState& s) { return o.update(p, g, s); }) {}

  OptimizerState init(const Params& params) const { return init_(params); }
  std::pair<Params, OptimizerState> update(const Params& params, const Params& grads,
                                           const OptimizerState& state) const {
    return update_(params, grads, state);
  }

 private:
  std::function<OptimizerState(const Params&)> init_;
  std::function<std::pair<Params, OptimizerState>(const Params&, const Params&, const OptimizerState&)> update_;
};

// Gradient clipping in a training step, before the update: by global 2-norm
// (clip_grad_norm) and then by value (clip_grad_value); 0 turns either off.
struct Clipping {
  double max_norm = 0.0;
  double max_value = 0.0;
};

struct StepResult {
  Params params;        // after the update
  OptimizerState state; // after the update
  Tensor loss;          // on the batch, before the update
  Tensor grad_norm;     // the gradients' global norm before clipping, when max_norm is set
};

class Captured;

// A whole training step as one program:
//   (params, optimizer slots, step, inputs, targets) -> (params', slots', step', loss[, grad_norm])
// The flat order of its inputs and outputs, which the StableHLO text and the
// runtimes use, is given by input_names() and output_names().
class TrainStep {
 public:
  OptimizerState init(const Params& params) const;
  StepResult operator()(const Params& params, const OptimizerState& state, const Batch& batch) const;

  // The program for these arguments (the captured example's by default).
  std::string stablehlo() const;
  std::string stablehlo(const Params& params, const OptimizerState& state, const Batch& batch) const;
  // "params.<name>", "optim.<slot>.<name>", "optim.step", "batch.inputs", "batch.targets".
  std::vector<std::string> input_names(const OptimizerState& state) const;
  // "params.<name>", "optim.<slot>.<name>", "optim.step", "loss"[, "grad_norm"].
  std::vector<std::string> output_names(const OptimizerState& state) const;
  std::size_t traces() const;

  struct Impl;

 private:
  friend class Captured;
  explicit TrainStep(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

class Captured {
 public:
  // The loss and its gradients with respect to every parameter, from one program.
  std::pair<Tensor, Params> loss_and_grad(const Params& params, const Batch& batch) const;
  Tensor loss(const Params& params, const Batch& batch) const;
  TrainStep train_step(AnyOptimizer optimizer, Clipping clipping = {}) const;

  // The loss-and-gradient program for the example batch, as StableHLO text, and as a
  // readable C++ function `loss_and_grad(<parameters>..., inputs, targets)` over the
  // public API returning {loss, the gradient of each parameter} (docs/READABLE_REVERSE.md).
  std::string stablehlo() const;
  std::string grad_source() const;

  const Params& example_params() const;
  const Batch& example_batch() const;
  // How many times the loss was traced (capture itself traces it once).
  std::size_t traces() const;

  struct Impl;

 private:
  friend Captured capture(LossOf loss, const Params& params, const Batch& example);
  friend Captured capture(LossOf loss, const Params& params, const Batch& example,
                          const BoundedBatch& bounded);
  explicit Captured(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<Impl> impl_;
};

// Traces loss(params, example) and differentiates it; errors in the loss (a shape
// mismatch, an op without a derivative) surface here, not at the first step.
Captured capture(LossOf loss, const Params& params, const Batch& example);
// The same over bounded batches: every program (loss, gradients, training step) pads the
// batch to its bucket and takes the valid lengths as arguments.
Captured capture(LossOf loss, const Params& params, const Batch& example, const BoundedBatch& bounded);

// The common case: loss_fn(model(params, batch.inputs), batch.targets).
template <class Model, class LossFn>
requires(!std::is_same_v<std::decay_t<LossFn>, BoundedBatch>) Captured
    capture(Model model, const Params& params, const Batch& example, LossFn loss_fn) {
  return capture(LossOf([model = std::move(model), loss_fn = std::move(loss_fn)](const Params& p, const Batch& b) {
                   return loss_fn(model(p, b.inputs), b.targets);
                 }),
                 params, example);
}

}  // namespace tlaloc::nn
TLALOC_PUBLIC_END
