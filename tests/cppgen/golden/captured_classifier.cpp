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
  const tl::Tensor v0 = tl::transpose(layers_0_weight, {1, 0});  // transpose: f32[3,4]
  const tl::Tensor v1 = tl::dot_general(inputs, v0, tl::DotDims{.lhs_batch = {}, .rhs_batch = {}, .lhs_contract = {1}, .rhs_contract = {0}});  // dot_general: f32[2,4]
  const tl::Tensor v2 = v1 + layers_0_bias;  // add: f32[2,4]
  const tl::Tensor v3 = tl::tanh(v2);  // tanh: f32[2,4]
  const tl::Tensor v4 = tl::transpose(layers_1_weight, {1, 0});  // transpose: f32[4,2]
  const tl::Tensor v5 = tl::dot_general(v3, v4, tl::DotDims{.lhs_batch = {}, .rhs_batch = {}, .lhs_contract = {1}, .rhs_contract = {0}});  // dot_general: f32[2,2]
  const tl::Tensor v6 = v5 + layers_1_bias;  // add: f32[2,2]
  const tl::Tensor v7 = tl::max(v6, {1}, true);  // reduce_max: f32[2,1]
  const tl::Tensor v8 = tl::stop_gradient(v7);  // stop_gradient: f32[2,1]
  const tl::Tensor v9 = v6 - v8;  // sub: f32[2,2]
  const tl::Tensor v10 = tl::exp(v9);  // exp: f32[2,2]
  const tl::Tensor v11 = tl::sum(v10, {1}, true);  // reduce_sum: f32[2,1]
  const tl::Tensor v12 = tl::log(v11);  // log: f32[2,1]
  const tl::Tensor v13 = v9 - v12;  // sub: f32[2,2]
  const tl::Tensor v14 = tl::reshape(targets, {2, 1});  // reshape: i64[2,1]
  const tl::Tensor v15 = tl::take_along_axis(v13, v14, 1);  // take_along_axis: f32[2,1]
  const tl::Tensor v16 = tl::reshape(v15, {2});  // reshape: f32[2]
  const tl::Tensor v17 = tl::neg(v16);  // neg: f32[2]
  const tl::Tensor v18 = tl::sum(v17);  // reduce_sum: f32[]
  const tl::Tensor c19 = tl::scalar_tensor(2.0f, tl::DType::f32);  // constant: f32[]
  const tl::Tensor v20 = v18 / c19;  // div: f32[]
  const tl::Tensor c21 = tl::scalar_tensor(1.0f, tl::DType::f32);  // constant: f32[]
  const tl::Tensor c22 = tl::full({2, 1}, -0.5f, tl::DType::f32);  // constant: f32[2,1]
  const tl::Tensor c23 = tl::full({2, 2}, 0.0f, tl::DType::f32);  // constant: f32[2,2]
  const tl::Tensor v24 = tl::scatter_add(c23, v14, c22, 1);  // scatter_add: f32[2,2]
  const tl::Tensor v25 = tl::neg(v24);  // neg: f32[2,2]
  const tl::Tensor v26 = tl::sum(v25, {1}, true);  // reduce_sum: f32[2,1]
  const tl::Tensor v27 = tl::reciprocal(v11);  // reciprocal: f32[2,1]
  const tl::Tensor v28 = v26 * v27;  // mul: f32[2,1]
  const tl::Tensor v29 = tl::broadcast_to(v28, {2, 2});  // broadcast_in_dim: f32[2,2]
  const tl::Tensor v30 = v29 * v10;  // mul: f32[2,2]
  const tl::Tensor v31 = v24 + v30;  // add: f32[2,2]
  const tl::Tensor v32 = tl::sum(v31, {0}, true);  // reduce_sum: f32[1,2]
  const tl::Tensor v33 = tl::reshape(v32, {2});  // reshape: f32[2]
  const tl::Tensor v34 = tl::dot_general(v31, v4, tl::DotDims{.lhs_batch = {}, .rhs_batch = {}, .lhs_contract = {1}, .rhs_contract = {1}});  // dot_general: f32[2,4]
  const tl::Tensor v35 = tl::dot_general(v3, v31, tl::DotDims{.lhs_batch = {}, .rhs_batch = {}, .lhs_contract = {0}, .rhs_contract = {0}});  // dot_general: f32[4,2]
  const tl::Tensor v36 = tl::transpose(v35, {1, 0});  // transpose: f32[2,4]
  const tl::Tensor v37 = v3 * v3;  // mul: f32[2,4]
  const tl::Tensor v38 = c21 - v37;  // sub: f32[2,4]
  const tl::Tensor v39 = v34 * v38;  // mul: f32[2,4]
  const tl::Tensor v40 = tl::sum(v39, {0}, true);  // reduce_sum: f32[1,4]
  const tl::Tensor v41 = tl::reshape(v40, {4});  // reshape: f32[4]
  const tl::Tensor v42 = tl::dot_general(inputs, v39, tl::DotDims{.lhs_batch = {}, .rhs_batch = {}, .lhs_contract = {0}, .rhs_contract = {0}});  // dot_general: f32[3,4]
  const tl::Tensor v43 = tl::transpose(v42, {1, 0});  // transpose: f32[4,3]
  return {v20, v43, v41, v36, v33};
}
