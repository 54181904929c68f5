#include <tlaloc/derivatives.hpp>
#include <tlaloc/tlaloc.hpp>

#include <bit>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace tl = tlaloc;

// The loss of a batch and its gradient with respect to each parameter, as tl::nn::capture
// differentiated it: returns {loss, then one gradient per parameter in order}.
std::vector<tl::Tensor> loss_and_grad(const tl::Tensor& layers_0_weight, const tl::Tensor& layers_0_bias, const tl::Tensor& layers_1_weight, const tl::Tensor& layers_1_bias, const tl::Tensor& inputs, const tl::Tensor& targets) {
  const tl::Tensor v0 = tl::dot_general(inputs, layers_0_weight, tl::DotDims{.lhs_batch = {}, .rhs_batch = {}, .lhs_contract = {1}, .rhs_contract = {1}});  // dot_general: f32[2,4]
  const tl::Tensor v1 = v0 + layers_0_bias;  // add: f32[2,4]
  const tl::Tensor v2 = tl::tanh(v1);  // tanh: f32[2,4]
  const tl::Tensor v3 = tl::dot_general(v2, layers_1_weight, tl::DotDims{.lhs_batch = {}, .rhs_batch = {}, .lhs_contract = {1}, .rhs_contract = {1}});  // dot_general: f32[2,2]
  const tl::Tensor v4 = v3 + layers_1_bias;  // add: f32[2,2]
  const tl::Tensor v5 = tl::max(v4, {1}, true);  // reduce_max: f32[2,1]
  const tl::Tensor v6 = tl::stop_gradient(v5);  // stop_gradient: f32[2,1]
  const tl::Tensor v7 = v4 - v6;  // sub: f32[2,2]
  const tl::Tensor v8 = tl::exp(v7);  // exp: f32[2,2]
  const tl::Tensor v9 = tl::sum(v8, {1}, true);  // reduce_sum: f32[2,1]
  const tl::Tensor v10 = tl::log(v9);  // log: f32[2,1]
  const tl::Tensor v11 = v7 - v10;  // sub: f32[2,2]
  const tl::Tensor v12 = tl::reshape(targets, {2, 1});  // reshape: i64[2,1]
  const tl::Tensor v13 = tl::take_along_axis(v11, v12, 1);  // take_along_axis: f32[2,1]
  const tl::Tensor v14 = tl::reshape(v13, {2});  // reshape: f32[2]
  const tl::Tensor v15 = tl::neg(v14);  // neg: f32[2]
  const tl::Tensor v16 = tl::sum(v15);  // reduce_sum: f32[]
  const tl::Tensor c17 = tl::scalar_tensor(2.0f, tl::DType::f32);  // constant: f32[]
  const tl::Tensor v18 = v16 / c17;  // div: f32[]
  const tl::Tensor c19 = tl::scalar_tensor(1.0f, tl::DType::f32);  // constant: f32[]
  const tl::Tensor c20 = tl::full({2, 1}, -0.5f, tl::DType::f32);  // constant: f32[2,1]
  const tl::Tensor c21 = tl::full({2, 2}, 0.0f, tl::DType::f32);  // constant: f32[2,2]
  const tl::Tensor v22 = tl::scatter_add(c21, v12, c20, 1);  // scatter_add: f32[2,2]
  const tl::Tensor v23 = tl::neg(v22);  // neg: f32[2,2]
  const tl::Tensor v24 = tl::sum(v23, {1}, true);  // reduce_sum: f32[2,1]
  const tl::Tensor v25 = tl::reciprocal(v9);  // reciprocal: f32[2,1]
  const tl::Tensor v26 = v24 * v25;  // mul: f32[2,1]
  const tl::Tensor v27 = tl::broadcast_to(v26, {2, 2});  // broadcast_in_dim: f32[2,2]
  const tl::Tensor v28 = v27 * v8;  // mul: f32[2,2]
  const tl::Tensor v29 = v22 + v28;  // add: f32[2,2]
  const tl::Tensor v30 = tl::sum(v29, {0}, true);  // reduce_sum: f32[1,2]
  const tl::Tensor v31 = tl::reshape(v30, {2});  // reshape: f32[2]
  const tl::Tensor v32 = tl::dot_general(v29, layers_1_weight, tl::DotDims{.lhs_batch = {}, .rhs_batch = {}, .lhs_contract = {1}, .rhs_contract = {0}});  // dot_general: f32[2,4]
  const tl::Tensor v33 = tl::dot_general(v29, v2, tl::DotDims{.lhs_batch = {}, .rhs_batch = {}, .lhs_contract = {0}, .rhs_contract = {0}});  // dot_general: f32[2,4]
  const tl::Tensor v34 = v2 * v2;  // mul: f32[2,4]
  const tl::Tensor v35 = c19 - v34;  // sub: f32[2,4]
  const tl::Tensor v36 = v32 * v35;  // mul: f32[2,4]
  const tl::Tensor v37 = tl::sum(v36, {0}, true);  // reduce_sum: f32[1,4]
  const tl::Tensor v38 = tl::reshape(v37, {4});  // reshape: f32[4]
  const tl::Tensor v39 = tl::dot_general(v36, inputs, tl::DotDims{.lhs_batch = {}, .rhs_batch = {}, .lhs_contract = {0}, .rhs_contract = {0}});  // dot_general: f32[4,3]
  return {v18, v39, v38, v33, v31};
}
