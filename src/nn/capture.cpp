// tl::nn::capture over the transforms' caches: the loss-and-gradient program is
// tl::value_and_grad's, the training step is tl::jit's over value_and_grad, clipping
// and the optimizer's update, so capture adds no program of its own kind.
#include "tlaloc/nn/capture.hpp"

#include <fmt/format.h>

#include <cctype>

#include "cppgen/cppgen.hpp"
#include "nn/capture_impl.hpp"
#include "stablehlo/stablehlo.hpp"
#include "tlaloc/error.hpp"
#include "tlaloc/transforms.hpp"
#include "transforms/bounded.hpp"
#include "transforms/cached_programs.hpp"

namespace tlaloc::nn {


namespace {

namespace td = tlaloc::detail;

void check_batch(std::string_view who, const Batch& b) {
  if (!b.inputs.defined()) throw ValueError(fmt::format("tl::nn::{}: the batch has no inputs", who));
  if (!b.targets.defined()) throw ValueError(fmt::format("tl::nn::{}: the batch has no targets", who));
}

// loss(params, batch) as a function of (params, inputs, targets), handed to `run`
// with its flat call and the mask that differentiates the parameters only.
template <class Run>
auto with_loss_call(std::string_view who, const Captured::Impl& impl, const Params& params,
                    const Batch& batch, Run run) {
  check_batch(who, batch);
  const LossOf& loss = impl.loss;
  const auto f = [&loss](const Params& p, const Tensor& x, const Tensor& y) { return loss(p, Batch{x, y}); };
  const td::FlatCall call = td::make_call(f, params, batch.inputs, batch.targets);
  std::vector<bool> wrt = td::wrt_mask({0}, params, batch.inputs, batch.targets);
  if (!impl.bounded) return run(call, wrt);
  const td::FlatCall padded = bounded_batch_call(impl.bounded.get(), call, &wrt);
  return run(padded, wrt);
}

}  // namespace

td::FlatCall bounded_batch_call(td::BoundedState* bounded, const td::FlatCall& call, std::vector<bool>* wrt) {
  if (bounded == nullptr) return call;
  // The batch is the last two tensors; nothing before it is bounded.
  std::vector<std::size_t> slots(call.args.size(), static_cast<std::size_t>(-1));
  slots[slots.size() - 2] = 0;
  slots[slots.size() - 1] = 1;
  const std::vector<std::int64_t> sizes = td::bounded_sizes(*bounded, call, slots);
  const std::size_t at = call.args.size() - 2;
  if (wrt != nullptr) wrt->insert(wrt->begin() + std::ptrdiff_t(at), sizes.size(), false);
  return td::with_lengths(*bounded, call, slots,
                          td::sized_args(*bounded, call, slots, td::bucket_for(*bounded, sizes), false),
                          td::length_tensors(sizes), at);
}

namespace {

// What capture holds: the loss traced and differentiated at the example.
std::shared_ptr<Captured::Impl> traced(LossOf loss, const Params& params, const Batch& example,
                                       std::shared_ptr<td::BoundedState> bounded) {
  if (!loss) throw ValueError("tl::nn::capture: no loss function");
  if (params.empty()) throw ValueError("tl::nn::capture: the model has no parameters");
  auto impl = std::make_shared<Captured::Impl>();
  impl->loss = std::move(loss);
  impl->params = params;
  impl->batch = example;
  impl->bounded = std::move(bounded);
  with_loss_call("capture", *impl, params, example,
                 [&](const td::FlatCall& call, const std::vector<bool>& wrt) {
                   (void)td::cached_grad_program(*impl->grads, call, wrt, true);
                 });
  return impl;
}

}  // namespace

Captured capture(LossOf loss, const Params& params, const Batch& example) {
  return Captured(traced(std::move(loss), params, example, nullptr));
}

Captured capture(LossOf loss, const Params& params, const Batch& example, const BoundedBatch& bounded) {
  auto state = td::make_bounded(bounded.bounds, {bounded.inputs, bounded.targets}, {dims()});
  return Captured(traced(std::move(loss), params, example, std::move(state)));
}

std::pair<Tensor, Params> Captured::loss_and_grad(const Params& params, const Batch& batch) const {
  return with_loss_call("Captured::loss_and_grad", *impl_, params, batch,
                        [&](const td::FlatCall& call, const std::vector<bool>& wrt) {
                          std::vector<Tensor> r = td::run_grad(*impl_->grads, call, wrt, true);
                          const Tensor loss = r.front();
                          r.erase(r.begin());
                          return std::pair{loss, params.with_tensors(r)};
                        });
}

Tensor Captured::loss(const Params& params, const Batch& batch) const {
  return with_loss_call("Captured::loss", *impl_, params, batch,
                        [&](const td::FlatCall& call, const std::vector<bool>&) {
                          td::ResultLayout layout;
                          return td::run_jit(*impl_->forward, call, layout).at(0);
                        });
}

std::string Captured::stablehlo() const {
  return with_loss_call("Captured::stablehlo", *impl_, impl_->params, impl_->batch,
                        [&](const td::FlatCall& call, const std::vector<bool>& wrt) {
                          return tlaloc::stablehlo::to_text(td::cached_grad_program(*impl_->grads, call, wrt, true));
                        });
}

std::string Captured::grad_source() const {
  std::vector<std::string> names;
  for (const std::string& n : impl_->params.names()) {
    std::string id = n;
    for (char& c : id)
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    names.push_back(id);
  }
  if (impl_->bounded)
    for (const BoundedDim& d : td::bounded_dims(*impl_->bounded)) names.push_back("valid_length_" + d.name);
  names.insert(names.end(), {"inputs", "targets"});
  const cppgen::PrintOptions options{
      .name = "loss_and_grad",
      .param_names = names,
      .comment = {"The loss of a batch and its gradient with respect to each parameter, as tl::nn::capture",
                  "differentiated it: returns {loss, then one gradient per parameter in order}."},
      .standalone = true};
  return with_loss_call("Captured::grad_source", *impl_, impl_->params, impl_->batch,
                        [&](const td::FlatCall& call, const std::vector<bool>& wrt) {
                          return cppgen::print(td::cached_grad_program(*impl_->grads, call, wrt, true), options);
                        });
}

const Params& Captured::example_params() const { return impl_->params; }
const Batch& Captured::example_batch() const { return impl_->batch; }
std::size_t Captured::traces() const { return td::cache_traces(*impl_->grads); }

}  // namespace tlaloc::nn
