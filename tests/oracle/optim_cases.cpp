// optim_cases OUT.json: runs each optimizer of tl::nn (with schedules, clipping and a
// frozen parameter) for ten steps on fixed f32 parameters and fixed per-step
// gradients, and writes the cases with every step's parameters and the final state
// for check_torch_optim.py to replay with torch.optim (the ctest test oracle.optim).
// A case is described once, in JSON, and both sides build their optimizer from it.
// `optim_cases OUT.json --mismatch` runs the "adam" case at a slightly different rate
// than it writes down, for the test that the checker catches it (oracle.optim_mismatch).
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include <tlaloc/nn.hpp>
#include <tlaloc/tlaloc.hpp>

namespace {

namespace tl = tlaloc;
namespace nn = tlaloc::nn;
using nlohmann::json;

constexpr int kSteps = 10;

// Deterministic values in [-1, 1), f32 (a 64-bit LCG's top bits).
struct Lcg {
  std::uint64_t s;
  float next() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<float>(static_cast<double>(s >> 40) / double(1ULL << 23) - 1.0);
  }
  tl::Tensor tensor(const tl::Shape& shape, float scale) {
    std::int64_t n = 1;
    for (std::int64_t d : shape) n *= d;
    std::vector<float> v(static_cast<std::size_t>(n));
    for (float& x : v) x = next() * scale;
    return tl::tensor(v, shape);
  }
};

nn::Schedule schedule(const json& s, double lr) {
  const std::string kind = s.at("kind");
  if (kind == "constant") return nn::constant_lr(lr);
  if (kind == "step") return nn::step_lr(lr, s.at("step_size"), s.at("gamma"));
  if (kind == "exponential") return nn::exponential_lr(lr, s.at("gamma"));
  if (kind == "cosine") return nn::cosine_lr(lr, s.at("t_max"), s.at("eta_min"));
  if (kind == "warmup_cosine")
    return nn::warmup_cosine_lr(lr, s.at("warmup"), s.at("total"), s.at("eta_min"));
  throw std::runtime_error("unknown schedule " + kind);
}

using Optimizer = std::variant<nn::SGD, nn::RMSprop, nn::Adam, nn::AdamW>;

Optimizer optimizer(const json& c) {
  const json& o = c.at("optimizer");
  const std::string kind = o.at("kind");
  const nn::Schedule lr = schedule(c.at("schedule"), o.at("lr"));
  const std::set<std::string> frozen = c.at("frozen");
  if (kind == "sgd")
    return nn::SGD{.lr = lr,
                   .momentum = o.value("momentum", 0.0),
                   .dampening = o.value("dampening", 0.0),
                   .weight_decay = o.value("weight_decay", 0.0),
                   .nesterov = o.value("nesterov", false),
                   .frozen = frozen};
  if (kind == "rmsprop")
    return nn::RMSprop{.lr = lr,
                       .alpha = o.value("alpha", 0.99),
                       .eps = o.value("eps", 1e-8),
                       .weight_decay = o.value("weight_decay", 0.0),
                       .momentum = o.value("momentum", 0.0),
                       .centered = o.value("centered", false),
                       .frozen = frozen};
  const auto betas = o.value("betas", std::vector<double>{0.9, 0.999});
  if (kind == "adam")
    return nn::Adam{.lr = lr,
                    .beta1 = betas[0],
                    .beta2 = betas[1],
                    .eps = o.value("eps", 1e-8),
                    .weight_decay = o.value("weight_decay", 0.0),
                    .amsgrad = o.value("amsgrad", false),
                    .frozen = frozen};
  if (kind == "adamw")
    return nn::AdamW{.lr = lr,
                     .beta1 = betas[0],
                     .beta2 = betas[1],
                     .eps = o.value("eps", 1e-8),
                     .weight_decay = o.value("weight_decay", 1e-2),
                     .amsgrad = o.value("amsgrad", false),
                     .frozen = frozen};
  throw std::runtime_error("unknown optimizer " + kind);
}

json data(const tl::Tensor& t) { return t.to_vector<float>(); }

// Runs the case described by `c` and adds its inputs and results.
json run(json c, std::uint64_t seed, bool mismatch) {
  Lcg rng{seed};
  const nn::Params init{{"layer.weight", rng.tensor({3, 4}, 1.0f)}, {"layer.bias", rng.tensor({4}, 0.5f)}};
  const float grad_scale = c.value("grad_scale", 1.0f);
  json ran = c;
  if (mismatch && c["name"] == "adam") ran["optimizer"]["lr"] = 0.0101;
  const Optimizer opt = optimizer(ran);
  json params = json::array();
  for (const auto& [name, t] : init)
    params.push_back({{"name", name}, {"shape", t.shape()}, {"data", data(t)}});
  c["params"] = params;

  nn::Params p = init;
  nn::OptimizerState state = std::visit([&](const auto& o) { return o.init(p); }, opt);
  json grads = json::array(), results = json::array();
  for (int step = 0; step < kSteps; ++step) {
    nn::Params g = p.with_tensors({rng.tensor({3, 4}, grad_scale), rng.tensor({4}, grad_scale)});
    json g_json = json::array();
    for (const auto& [name, t] : g) g_json.push_back(data(t));
    grads.push_back(g_json);
    if (c.contains("clip_norm")) g = nn::clip_grad_norm(g, c["clip_norm"]).first;
    if (c.contains("clip_value")) g = nn::clip_grad_value(g, c["clip_value"]);
    std::tie(p, state) = std::visit([&](const auto& o) { return o.update(p, g, state); }, opt);
    json r = json::array();
    for (const auto& [name, t] : p) r.push_back(data(t));
    results.push_back(r);
  }
  c["grads"] = grads;
  c["results"] = results;
  json slots = json::object();
  for (const auto& [name, t] : state.slots) slots[name] = data(t);
  c["state"] = slots;
  c["step"] = state.step.item<std::int64_t>();
  return c;
}

// name, optimizer, schedule, and optionally frozen, clip_norm, clip_value, grad_scale.
json describe(std::string name, json optimizer, json schedule = {{"kind", "constant"}}) {
  return {{"name", std::move(name)},
          {"optimizer", std::move(optimizer)},
          {"schedule", std::move(schedule)},
          {"frozen", json::array()}};
}

int write_cases(const char* path, bool mismatch) {
  std::vector<json> cases{
      describe("sgd", {{"kind", "sgd"}, {"lr", 0.1}}),
      describe("sgd_momentum_nesterov_weight_decay",
               {{"kind", "sgd"}, {"lr", 0.05}, {"momentum", 0.9}, {"nesterov", true}, {"weight_decay", 0.01}},
               {{"kind", "step"}, {"step_size", 3}, {"gamma", 0.5}}),
      describe("sgd_momentum_dampening",
               {{"kind", "sgd"}, {"lr", 0.1}, {"momentum", 0.8}, {"dampening", 0.3}},
               {{"kind", "exponential"}, {"gamma", 0.9}}),
      describe("rmsprop", {{"kind", "rmsprop"}, {"lr", 0.01}}),
      describe("rmsprop_centered_momentum_weight_decay",
               {{"kind", "rmsprop"},
                {"lr", 0.01},
                {"centered", true},
                {"momentum", 0.5},
                {"weight_decay", 0.1},
                {"alpha", 0.9}},
               {{"kind", "cosine"}, {"t_max", 6}, {"eta_min", 0.001}}),
      describe("adam", {{"kind", "adam"}, {"lr", 0.01}}),
      describe(
          "adam_amsgrad_weight_decay",
          {{"kind", "adam"}, {"lr", 0.01}, {"amsgrad", true}, {"weight_decay", 0.05}, {"betas", {0.8, 0.99}}},
          {{"kind", "warmup_cosine"}, {"warmup", 3}, {"total", 8}, {"eta_min", 0.0005}}),
      describe("adamw", {{"kind", "adamw"}, {"lr", 0.01}},
               {{"kind", "cosine"}, {"t_max", 10}, {"eta_min", 0.0}}),
      describe("adamw_amsgrad", {{"kind", "adamw"}, {"lr", 0.02}, {"amsgrad", true}, {"weight_decay", 0.1}},
               {{"kind", "exponential"}, {"gamma", 0.95}}),
      describe("adam_frozen_bias", {{"kind", "adam"}, {"lr", 0.01}}),
      describe("sgd_clip_norm", {{"kind", "sgd"}, {"lr", 0.1}, {"momentum", 0.9}}),
      describe("adamw_clip_norm", {{"kind", "adamw"}, {"lr", 0.01}},
               {{"kind", "step"}, {"step_size", 4}, {"gamma", 0.3}}),
      describe("sgd_clip_value", {{"kind", "sgd"}, {"lr", 0.1}}),
  };
  for (json& c : cases) {
    if (c["name"] == "adam_frozen_bias") c["frozen"] = {"layer.bias"};
    if (c["name"] == "sgd_clip_norm" || c["name"] == "adamw_clip_norm") {
      c["clip_norm"] = 1.5;
      c["grad_scale"] = 2.0;  // most steps' norms exceed the limit
    }
    if (c["name"] == "sgd_clip_value") c["clip_value"] = 0.3;
  }
  json out = json::array();
  std::uint64_t seed = 1;
  for (const json& c : cases) out.push_back(run(c, seed++, mismatch));

  std::ofstream file(path);
  file << json{{"cases", out}}.dump() << '\n';
  if (!file) {
    std::fprintf(stderr, "optim_cases: cannot write %s\n", path);
    return 1;
  }
  std::printf("optim_cases: %zu cases written to %s\n", out.size(), path);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const bool mismatch = argc == 3 && std::string(argv[2]) == "--mismatch";
  if (argc != 2 && !mismatch) {
    std::fprintf(stderr, "usage: %s OUT.json [--mismatch]\n", argv[0]);
    return 2;
  }
  tl::set_num_threads(1);
  try {
    return write_cases(argv[1], mismatch);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "optim_cases: %s\n", e.what());
    return 1;
  }
}
