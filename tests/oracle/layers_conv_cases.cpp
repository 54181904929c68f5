// layers_conv_cases OUT.json: applies tl::nn's convolutional layers (Conv2d with groups,
// stride, padding and dilation; MaxPool2d; AvgPool2d; BatchNorm2d in training and in
// evaluation) to fixed inputs and writes the Params (and BatchNorm2d's state), the
// input, the output, the gradient of sum(output^2) with respect to the Params (or the
// input, for the pools) and BatchNorm2d's new state, for check_torch_layers_conv.py,
// which loads them into the matching torch.nn module with load_state_dict (the ctest
// test oracle.layers_conv).
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

json conv_case(const std::string& name, const nn::Conv2d& conv, tl::random::Key key, const tl::Shape& xshape) {
  const auto k = tl::random::split(key, 2);
  const nn::Params p = conv.init(k[0]);
  const tl::Tensor x = tl::random::normal(k[1], xshape);
  const nn::Params g = tl::grad([&](const nn::Params& q) { return tl::sum(tl::square(conv(q, x))); })(p);
  return json{{"name", name},         {"kind", "conv2d"},           {"in", conv.in_channels},
              {"out", conv.out_channels}, {"kernel", conv.kernel},   {"stride", conv.stride},
              {"padding", conv.padding},  {"dilation", conv.dilation}, {"groups", conv.groups},
              {"bias", conv.bias},        {"params", params_json(p)}, {"input", tensor_json(x)},
              {"output", tensor_json(conv(p, x))}, {"grads", params_json(g)["tensors"]}};
}

template <class Pool>
json pool_case(const std::string& name, const std::string& kind, const Pool& pool, const tl::Tensor& x) {
  const tl::Tensor gx = tl::grad([&](const tl::Tensor& in) { return tl::sum(tl::square(pool(in))); })(x);
  return json{{"name", name},           {"kind", kind},
              {"kernel", pool.kernel},  {"stride", pool.stride},
              {"padding", pool.padding}, {"params", params_json({})},
              {"input", tensor_json(x)}, {"output", tensor_json(pool(x))},
              {"input_grad", tensor_json(gx)}};
}

json batch_norm_case(const std::string& name, const nn::BatchNorm2d& bn, const nn::Params& p, const nn::Params& state,
                     const tl::Tensor& x, bool train) {
  const nn::BatchNorm2d::Result r = bn(p, state, x, train);
  const nn::Params g =
      tl::grad([&](const nn::Params& q) { return tl::sum(tl::square(bn(q, state, x, train).y)); })(p);
  // The module's state_dict: the parameters, then the buffers.
  nn::Params all = p;
  for (const auto& [n, t] : state) all.set(n, t);
  return json{{"name", name},
              {"kind", "batch_norm2d"},
              {"num", bn.num_features},
              {"eps", bn.eps},
              {"momentum", bn.momentum},
              {"train", train},
              {"params", params_json(all)},
              {"input", tensor_json(x)},
              {"output", tensor_json(r.y)},
              {"grads", params_json(g)["tensors"]},
              {"new_state", params_json(r.state)["tensors"]}};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: layers_conv_cases OUT.json\n");
    return 2;
  }
  const std::vector<tl::random::Key> k = tl::random::split(tl::random::key(2025), 10);
  json cases = json::array();

  cases.push_back(conv_case("conv2d", nn::Conv2d{.in_channels = 3, .out_channels = 5, .kernel = {3, 3}}, k[0],
                            {2, 3, 7, 6}));
  cases.push_back(conv_case("conv2d_groups_stride_padding",
                            nn::Conv2d{.in_channels = 4, .out_channels = 6, .kernel = {3, 2}, .stride = {2, 1},
                                       .padding = {1, 2}, .dilation = {1, 2}, .groups = 2},
                            k[1], {2, 4, 9, 8}));
  cases.push_back(conv_case("conv2d_depthwise_no_bias",
                            nn::Conv2d{.in_channels = 4, .out_channels = 4, .kernel = {3, 3}, .padding = {1, 1},
                                       .groups = 4, .bias = false},
                            k[2], {1, 4, 5, 5}));

  const tl::Tensor xp = tl::random::normal(k[3], {2, 3, 7, 8});
  cases.push_back(pool_case("max_pool2d", "max_pool2d", nn::MaxPool2d{}, xp));
  cases.push_back(pool_case("max_pool2d_stride_padding", "max_pool2d",
                            nn::MaxPool2d{.kernel = {3, 3}, .stride = {2, 1}, .padding = {1, 1}}, xp));
  cases.push_back(pool_case("avg_pool2d", "avg_pool2d", nn::AvgPool2d{}, xp));
  cases.push_back(pool_case("avg_pool2d_stride_padding", "avg_pool2d",
                            nn::AvgPool2d{.kernel = {3, 2}, .stride = {1, 2}, .padding = {1, 1}}, xp));

  // BatchNorm2d with non-trivial parameters and running statistics, so each takes part.
  const nn::BatchNorm2d bn{.num_features = 3};
  const nn::Params pb{{"weight", tl::random::normal(k[4], {3})}, {"bias", tl::random::normal(k[5], {3})}};
  nn::Params sb = bn.init_state();
  sb.set("running_mean", tl::random::normal(k[6], {3}));
  sb.set("running_var", tl::random::uniform(k[7], {3}, tl::DType::f32, 0.5, 2.0));
  sb.set("num_batches_tracked", tl::full({}, std::int64_t{4}, tl::DType::i64));
  const tl::Tensor xb = tl::random::normal(k[8], {4, 3, 5, 6}) * 2.0f + 1.0f;
  cases.push_back(batch_norm_case("batch_norm2d_train", bn, pb, sb, xb, true));
  cases.push_back(batch_norm_case("batch_norm2d_eval", bn, pb, sb, xb, false));

  std::ofstream(argv[1]) << json{{"cases", cases}}.dump() << "\n";
  return 0;
}
