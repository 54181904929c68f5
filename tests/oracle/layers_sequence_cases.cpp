// layers_sequence_cases OUT.json: initializes tl::nn::GRU (with and without biases),
// applies it to a fixed input and initial state, and writes the Params, the inputs,
// the outputs, h_T and the Params' gradient of sum(outputs^2) for
// check_torch_layers_sequence.py, which loads the Params into torch.nn.GRU
// (batch_first) and compares them (the ctest test oracle.layers_sequence).
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <tlaloc/nn.hpp>
#include <tlaloc/tlaloc.hpp>

#include "layer_json.hpp"

namespace {

namespace tl = tlaloc;
namespace nn = tlaloc::nn;
using nlohmann::json;
using layer_json::params_json;
using layer_json::tensor_json;

json gru_case(const char* name, const nn::GRU& gru, tl::random::Key key, std::int64_t b, std::int64_t t) {
  const std::vector<tl::random::Key> k = tl::random::split(key, 3);
  const nn::Params p = gru.init(k[0]);
  const tl::Tensor x = tl::random::normal(k[1], {b, t, gru.input_size});
  const tl::Tensor h0 = tl::random::normal(k[2], {b, gru.hidden_size});
  const nn::GRU::Result r = gru.apply(p, x, h0);
  const nn::Params g =
      tl::grad([&gru, &x, &h0](const nn::Params& q) { return tl::sum(tl::square(gru.apply(q, x, h0).outputs)); })(p);
  return json{{"name", name},
              {"input_size", gru.input_size},
              {"hidden_size", gru.hidden_size},
              {"bias", gru.bias},
              {"params", params_json(p)},
              {"input", tensor_json(x)},
              {"h0", tensor_json(h0)},
              {"output", tensor_json(r.outputs)},
              {"h_last", tensor_json(r.h_last)},
              {"grads", params_json(g)["tensors"]}};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: layers_sequence_cases OUT.json\n");
    return 2;
  }
  const std::vector<tl::random::Key> k = tl::random::split(tl::random::key(2026), 3);
  json cases = json::array();
  cases.push_back(gru_case("gru", {.input_size = 5, .hidden_size = 8}, k[0], 3, 7));
  cases.push_back(gru_case("gru_no_bias", {.input_size = 4, .hidden_size = 6, .bias = false}, k[1], 2, 5));
  cases.push_back(gru_case("gru_long", {.input_size = 16, .hidden_size = 32}, k[2], 4, 20));
  std::ofstream(argv[1]) << json{{"cases", cases}}.dump() << "\n";
  return 0;
}
