// The device-resident training loop and its host round-trip counterpart, shared by
// bench/device_resident_bench.cpp and bench/gpu_check.cpp: an MLP with Adam,
// captured by tl::nn::capture, run through a tl::runtime::Session.
#pragma once

#include <chrono>
#include <cstdint>
#include <tlaloc/nn.hpp>
#include <tlaloc/runtime.hpp>
#include <tlaloc/tlaloc.hpp>
#include <vector>

namespace tlbench {

namespace rt = tlaloc::runtime;

struct MlpTraining {
  tlaloc::nn::TrainStep step;
  std::vector<tlaloc::Tensor> initial_state;  // params, optimizer slots, step counter
  tlaloc::nn::Batch batch;
};

// sizes = {784, 256, 10}; random inputs and labels (the loss values are not the point).
inline MlpTraining mlp_training(std::vector<std::int64_t> sizes, std::int64_t batch) {
  const tlaloc::nn::MLP mlp{.sizes = sizes};
  const std::vector<tlaloc::random::Key> k = tlaloc::random::split(tlaloc::random::key(7), 3);
  const tlaloc::nn::Params params = mlp.init(k[0]);
  tlaloc::nn::Batch b{tlaloc::random::normal(k[1], {batch, sizes.front()}),
                      tlaloc::random::randint(k[2], {batch}, 0, sizes.back())};
  const auto loss = [mlp](const tlaloc::nn::Params& p, const tlaloc::nn::Batch& x) {
    return tlaloc::nn::cross_entropy(mlp(p, x.inputs), x.targets);
  };
  tlaloc::nn::TrainStep step = tlaloc::nn::capture(loss, params, b).train_step(tlaloc::nn::Adam{.lr = 1e-3});
  const tlaloc::nn::OptimizerState state = step.init(params);
  std::vector<tlaloc::Tensor> initial = params.tensors();
  for (const tlaloc::Tensor& t : state.slots.tensors()) initial.push_back(t);
  initial.push_back(state.step);
  return {std::move(step), std::move(initial), std::move(b)};
}

inline std::vector<std::size_t> first_n(std::size_t n) {
  std::vector<std::size_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

// (a) The state stays on the device and is donated to each step; only the batch
// goes in and only the loss comes out. Returns the last loss.
inline float resident_steps(const rt::Session& s, const rt::Executable& e, std::vector<rt::Buffer>& state,
                            const tlaloc::nn::Batch& b, int steps) {
  const std::vector<std::size_t> donate = first_n(state.size());
  float loss = 0;
  for (int i = 0; i < steps; ++i) {
    std::vector<rt::Buffer> args = state;
    args.push_back(s.to_device(b.inputs));
    args.push_back(s.to_device(b.targets));
    std::vector<rt::Buffer> out = e.run(args, {.donate = donate});
    loss = out.back().to_host().item<float>();
    out.pop_back();
    state = std::move(out);
  }
  return loss;
}

// (b) The whole state goes to the device and back to the host every step.
inline float round_trip_steps(const rt::Executable& e, std::vector<tlaloc::Tensor>& state,
                              const tlaloc::nn::Batch& b, int steps) {
  float loss = 0;
  for (int i = 0; i < steps; ++i) {
    std::vector<tlaloc::Tensor> args = state;
    args.push_back(b.inputs);
    args.push_back(b.targets);
    std::vector<tlaloc::Tensor> out = e.run(args);  // copies every tensor each way
    loss = out.back().item<float>();
    out.pop_back();
    state = std::move(out);
  }
  return loss;
}

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace tlbench
