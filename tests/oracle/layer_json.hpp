// Shared by the layer oracle programs (layers*_cases.cpp): tensors and Params as the
// JSON their checkers read.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include <tlaloc/nn.hpp>
#include <tlaloc/tlaloc.hpp>

namespace layer_json {

using nlohmann::json;

// Shape and data: f32 as it is, anything else as integers ("int": true).
inline json tensor_json(const tlaloc::Tensor& t) {
  json j{{"shape", t.shape()}, {"int", t.dtype() != tlaloc::DType::f32}};
  if (t.dtype() == tlaloc::DType::f32)
    j["data"] = t.to_vector<float>();
  else
    j["data"] = t.astype(tlaloc::DType::i64).to_vector<std::int64_t>();
  return j;
}

// Names in order (the checkers compare them with the module's state_dict) and tensors.
inline json params_json(const tlaloc::nn::Params& p) {
  json tensors = json::object();
  json order = json::array();
  for (const auto& [name, t] : p) {
    tensors[name] = tensor_json(t);
    order.push_back(name);
  }
  return json{{"order", order}, {"tensors", tensors}};
}

// The case with its Params, input, output, and the gradient of sum(output^2) with
// respect to the Params (tl::grad through the layer, checked against torch.autograd).
template <class Layer>
json record(json c, const Layer& layer, const tlaloc::nn::Params& p, const tlaloc::Tensor& x) {
  c["params"] = params_json(p);
  c["input"] = tensor_json(x);
  c["output"] = tensor_json(layer(p, x));
  const tlaloc::nn::Params g =
      tlaloc::grad([&](const tlaloc::nn::Params& q) { return tlaloc::sum(tlaloc::square(layer(q, x))); })(p);
  c["grads"] = params_json(g)["tensors"];
  return c;
}

}  // namespace layer_json
