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
auto with_loss_call(std::string_view who, const LossOf& loss, const Params& params, const Batch& batch, Run run) {
  check_batch(who, batch);
  const auto f = [&loss](const Params& p, const Tensor& x, const Tensor& y) { return loss(p, Batch{x, y}); };
  const td::FlatCall call = td::make_call(f, params, batch.inputs, batch.targets);
  return run(call, td::wrt_mask({0}, params, batch.inputs, batch.targets));
}

}  // namespace

Captured capture(LossOf loss, const Params& params, const Batch& example) {
  if (!loss) throw ValueError("tl::nn::capture: no loss function");
  if (params.empty()) throw ValueError("tl::nn::capture: the model has no parameters");
  auto impl = std::make_shared<Captured::Impl>();
  impl->loss = std::move(loss);
  impl->params = params;
  impl->batch = example;
  with_loss_call("capture", impl->loss, params, example, [&](const td::FlatCall& call, const std::vector<bool>& wrt) {
    (void)td::cached_grad_program(*impl->grads, call, wrt, true);
  });
  return Captured(std::move(impl));
}

std::pair<Tensor, Params> Captured::loss_and_grad(const Params& params, const Batch& batch) const {
  return with_loss_call("Captured::loss_and_grad", impl_->loss, params, batch,
                        [&](const td::FlatCall& call, const std::vector<bool>& wrt) {
                          std::vector<Tensor> r = td::run_grad(*impl_->grads, call, wrt, true);
                          const Tensor loss = r.front();
                          r.erase(r.begin());
                          return std::pair{loss, params.with_tensors(r)};
                        });
}

Tensor Captured::loss(const Params& params, const Batch& batch) const {
  return with_loss_call("Captured::loss", impl_->loss, params, batch,
                        [&](const td::FlatCall& call, const std::vector<bool>&) {
                          td::ResultLayout layout;
                          return td::run_jit(*impl_->forward, call, layout).at(0);
                        });
}

std::string Captured::stablehlo() const {
  return with_loss_call("Captured::stablehlo", impl_->loss, impl_->params, impl_->batch,
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
  names.insert(names.end(), {"inputs", "targets"});
  const cppgen::PrintOptions options{
      .name = "loss_and_grad",
      .param_names = names,
      .comment = {"The loss of a batch and its gradient with respect to each parameter, as tl::nn::capture",
                  "differentiated it: returns {loss, then one gradient per parameter in order}."},
      .standalone = true};
  return with_loss_call("Captured::grad_source", impl_->loss, impl_->params, impl_->batch,
                        [&](const td::FlatCall& call, const std::vector<bool>& wrt) {
                          return cppgen::print(td::cached_grad_program(*impl_->grads, call, wrt, true), options);
                        });
}

const Params& Captured::example_params() const { return impl_->params; }
const Batch& Captured::example_batch() const { return impl_->batch; }
std::size_t Captured::traces() const { return td::cache_traces(*impl_->grads); }

}  // namespace tlaloc::nn
