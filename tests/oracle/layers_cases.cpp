// layers_cases OUT.json: initializes each layer of tl::nn (Linear, MLP, LayerNorm,
// Embedding, RMSNorm), applies it to a fixed input, and writes the Params, the input,
// the output and the Params' gradient of sum(output^2) for check_torch_layers.py, which loads the Params into the matching
// torch.nn module with load_state_dict (so the names must be PyTorch's) and compares
// the outputs and gradients (the ctest test oracle.layers).
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

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: layers_cases OUT.json\n");
    return 2;
  }
  const std::vector<tl::random::Key> k = tl::random::split(tl::random::key(2024), 10);
  json cases = json::array();

  const nn::Linear lin{.in_features = 6, .out_features = 4};
  const tl::Tensor xl = tl::random::normal(k[0], {3, 6});
  const nn::Params pl = lin.init(k[1]);
  cases.push_back(record({{"name", "linear"}, {"kind", "linear"}, {"in", 6}, {"out", 4}}, lin, pl, xl));

  const nn::MLP mlp{.sizes = {5, 16, 8, 3}};
  const tl::Tensor xm = tl::random::normal(k[2], {7, 5});
  const nn::Params pm = mlp.init(k[3]);
  cases.push_back(record({{"name", "mlp"}, {"kind", "mlp"}, {"sizes", mlp.sizes}}, mlp, pm, xm));

  // LayerNorm with non-trivial affine parameters (ones and zeros would hide a mix-up).
  const nn::LayerNorm ln{.normalized_shape = {4, 6}};
  const tl::Tensor xn = tl::random::normal(k[4], {2, 4, 6}) * 3.0f + 1.0f;
  nn::Params pn = ln.init(k[5]);
  pn.set("weight", tl::random::normal(k[5], {4, 6}));
  pn.set("bias", tl::random::normal(k[6], {4, 6}));
  cases.push_back(record({{"name", "layer_norm"}, {"kind", "layer_norm"}, {"shape", ln.normalized_shape}, {"eps", ln.eps}},
                         ln, pn, xn));

  const nn::Embedding emb{.num_embeddings = 12, .embedding_dim = 5};
  const tl::Tensor idx = tl::tensor(std::vector<std::int64_t>{3, 0, 11, 3, 7, 1}, {2, 3});
  const nn::Params pe = emb.init(k[7]);
  cases.push_back(record({{"name", "embedding"}, {"kind", "embedding"}, {"num", 12}, {"dim", 5}}, emb, pe, idx));

  // PyTorch 1.13 has no RMSNorm module: the checker writes its formula out.
  const nn::RMSNorm rms{.normalized_shape = {6}};
  nn::Params pr = rms.init(k[8]);
  pr.set("weight", tl::random::normal(k[8], {6}));
  const tl::Tensor xr = tl::random::normal(k[9], {3, 2, 6});
  cases.push_back(record({{"name", "rms_norm"}, {"kind", "rms_norm"}, {"shape", rms.normalized_shape}, {"eps", rms.eps}},
                         rms, pr, xr));

  std::ofstream(argv[1]) << json{{"cases", cases}}.dump() << "\n";
  return 0;
}
