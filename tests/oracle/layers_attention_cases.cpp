// layers_attention_cases OUT.json: initializes tl::nn's attention layers
// (MultiHeadAttention, TransformerBlock, with and without grouped-query heads),
// applies each to a fixed input, and writes the Params, the input, the output and the
// Params' gradient of sum(output^2) for check_torch_layers_attention.py, which loads
// the Params into a PyTorch implementation written with plain tensor ops (PyTorch
// 1.13 has neither scaled_dot_product_attention nor RMSNorm) and compares them (the
// ctest test oracle.layers_attention).
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
using layer_json::record;

// Norm weights of ones would hide a missing or misplaced scale: draw them instead.
nn::Params with_random_norms(nn::Params p, tl::random::Key key) {
  const std::vector<tl::random::Key> k = tl::random::split(key, 2);
  const std::vector<std::string> names{"attn_norm.weight", "mlp_norm.weight"};
  for (std::size_t i = 0; i < names.size(); ++i)
    p.set(names[i], 1.0f + 0.5f * tl::random::normal(k[i], p.at(names[i]).shape()));
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: layers_attention_cases OUT.json\n");
    return 2;
  }
  const std::vector<tl::random::Key> k = tl::random::split(tl::random::key(2025), 12);
  json cases = json::array();

  const auto mha_case = [&](const char* name, const nn::MultiHeadAttention& m, tl::random::Key kp,
                            tl::random::Key kx) {
    json c{{"name", name},     {"kind", "mha"},         {"d_model", m.d_model}, {"num_heads", m.num_heads},
           {"num_kv_heads", m.kv_heads()}, {"causal", m.causal}, {"rotary", m.rotary}, {"bias", m.bias},
           {"base", m.rotary_base}};
    cases.push_back(record(c, m, m.init(kp), tl::random::normal(kx, {2, 7, m.d_model})));
  };
  mha_case("mha_plain", {.d_model = 16, .num_heads = 4}, k[0], k[1]);
  mha_case("mha_causal_rotary_gqa",
           {.d_model = 16, .num_heads = 4, .num_kv_heads = 2, .causal = true, .rotary = true, .bias = false}, k[2],
           k[3]);

  const auto block_case = [&](const char* name, const nn::TransformerBlock& b, tl::random::Key kp,
                              tl::random::Key kx) {
    json c{{"name", name},
           {"kind", "block"},
           {"d_model", b.d_model},
           {"num_heads", b.num_heads},
           {"num_kv_heads", b.attention().kv_heads()},
           {"d_ff", b.d_ff},
           {"eps", b.eps},
           {"base", b.rotary_base}};
    const std::vector<tl::random::Key> kk = tl::random::split(kp, 2);
    cases.push_back(record(c, b, with_random_norms(b.init(kk[0]), kk[1]), tl::random::normal(kx, {2, 9, b.d_model})));
  };
  block_case("block", {.d_model = 32, .num_heads = 4, .d_ff = 48}, k[4], k[5]);
  block_case("block_gqa", {.d_model = 32, .num_heads = 4, .num_kv_heads = 1, .d_ff = 40}, k[6], k[7]);

  std::ofstream(argv[1]) << json{{"cases", cases}}.dump() << "\n";
  return 0;
}
