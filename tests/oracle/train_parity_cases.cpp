// train_parity_cases OUT.json: trains the two runs of tests/support/training_runs.hpp
// for 20 steps with tl::nn::capture's training step (one program per step) and
// writes the initial Params, every batch, the optimizer and each step's loss for
// check_torch_train.py, which takes the same 20 steps with torch.optim from the same
// weights (the ctest test oracle.train_parity). With --mismatch the MLP run records
// a learning rate 10% above the one it trained with, which the checker must catch
// (oracle.train_parity_mismatch).
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string_view>

#include <tlaloc/nn.hpp>
#include <tlaloc/tlaloc.hpp>

#include "layer_json.hpp"
#include "support/training_runs.hpp"

namespace {

namespace tl = tlaloc;
namespace nn = tlaloc::nn;
using layer_json::params_json;
using layer_json::tensor_json;
using nlohmann::json;

constexpr std::int64_t kSteps = 20;

json train(json c, const tltest::TrainingRun& run) {
  c["params"] = params_json(run.params);
  const nn::TrainStep step = nn::capture(run.loss, run.params, run.batches.front()).train_step(run.optimizer,
                                                                                               run.clipping);
  nn::Params p = run.params;
  nn::OptimizerState s = step.init(p);
  json batches = json::array(), losses = json::array();
  for (const nn::Batch& b : run.batches) {
    const nn::StepResult r = step(p, s, b);
    p = r.params, s = r.state;
    batches.push_back({{"inputs", tensor_json(b.inputs)}, {"targets", tensor_json(b.targets)}});
    losses.push_back(r.loss.item<float>());
  }
  c["batches"] = batches;
  c["losses"] = losses;
  c["final"] = params_json(p)["tensors"];
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  const bool mismatch = argc == 3 && std::string_view(argv[2]) == "--mismatch";
  if (argc != 2 && !mismatch) {
    std::fprintf(stderr, "usage: train_parity_cases OUT.json [--mismatch]\n");
    return 2;
  }
  const nn::DecoderLM lm = tltest::small_lm();
  const nn::TransformerBlock block = lm.block();
  json cases = json::array();
  cases.push_back(train({{"name", "mlp_adam"}, {"kind", "mlp"}, {"sizes", {16, 32, 32, 5}},
                         {"optimizer", {{"kind", "adam"}, {"lr", mismatch ? 1.1e-2 : 1e-2}, {"weight_decay", 0.0}}}, {"max_norm", 0.0}},
                        tltest::mlp_run(kSteps)));
  cases.push_back(train({{"name", "lm_adamw_clipped"},
                         {"kind", "lm"},
                         {"vocab", lm.vocab},
                         {"d_model", lm.d_model},
                         {"num_layers", lm.num_layers},
                         {"num_heads", lm.num_heads},
                         {"num_kv_heads", lm.num_kv_heads},
                         {"d_ff", lm.d_ff},
                         {"eps", block.eps},
                         {"base", block.rotary_base},
                         {"optimizer", {{"kind", "adamw"}, {"lr", 3e-3}, {"weight_decay", 0.1}}},
                         {"max_norm", 1.0}},
                        tltest::lm_run(kSteps)));
  std::ofstream(argv[1]) << json{{"cases", cases}}.dump() << "\n";
  return 0;
}
