// The gradient of the lambda at functions.cpp:76 with respect to `wt`,
// written by tlaloc-grad at build time: the function's own ops, then their
// derivatives in reverse order (an undefined tensor is a zero cotangent).
#include <tlaloc/tlaloc.hpp>

#include <cstddef>
#include <utility>
#include <vector>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"

namespace tlaloc_generated {
namespace tl = ::tlaloc;

inline tl::Tensor grad_mlp_82(const tl::Tensor& wt, const tl::Tensor& x, const tl::Tensor& b, const double scale) {
  const tl::Tensor matmul_3 = tl::matmul(x, wt);  // matmul, line 17: tl::matmul(x, w)
  const tl::Tensor add_4 = matmul_3 + b;  // add, line 17: tl::matmul(x, w) + b
  const tl::Tensor h = tl::tanh(add_4);  // tanh, line 17: tl::tanh(tl::matmul(x, w) + b)
  const tl::Tensor mul_6 = h * h;  // mul, line 78: h * h
  const tl::Tensor sum_7 = tl::sum(mul_6);  // sum, line 78: tl::sum(h * h)
  const tl::Tensor y = sum_7 * scale;  // mul, line 78: tl::sum(h * h) * scale
  tl::Tensor result;
  tl::Tensor mul_9;
  tl::Tensor add_10;
  tl::Tensor sigmoid_11;
  tl::Tensor div_12;
  tl::Tensor sum_13;
  tl::Tensor exp_14;
  tl::Tensor mean_15;
  tl::Tensor add_16;
  tl::Tensor sub_17;
  bool cond_0 = false;
  cond_0 = scale > 1.0;  // line 79
  if (cond_0) {
    mul_9 = y * 2.0;  // mul, line 79: y * 2.0
    result = mul_9;
  } else {
    add_10 = b + 2.0;  // add, line 80: b + 2.0
    sigmoid_11 = tl::sigmoid(h);  // sigmoid, line 80: tl::sigmoid(h)
    div_12 = sigmoid_11 / add_10;  // div, line 80: tl::sigmoid(h) / (b + 2.0)
    sum_13 = tl::sum(div_12);  // sum, line 80: tl::sum(tl::sigmoid(h) / (b + 2.0))
    exp_14 = tl::exp(h);  // exp, line 80: tl::exp(h)
    mean_15 = tl::mean(exp_14);  // mean, line 80: tl::mean(tl::exp(h))
    add_16 = mean_15 + y;  // add, line 80: tl::mean(tl::exp(h)) + y
    sub_17 = add_16 - sum_13;  // sub, line 80: tl::mean(tl::exp(h)) + y - tl::sum(tl::sigmoid(h) / (b + 2.0))
    result = sub_17;
  }
  if (result.rank() != 0)
    throw tl::ValueError("tlaloc-grad: the lambda at functions.cpp:76 must return a scalar, got " + tl::shape_string(result.shape()));

  // Reverse: d_v is the derivative of the result with respect to v.
  tl::Tensor d_wt;
  tl::Tensor d_matmul_3;
  tl::Tensor d_add_4;
  tl::Tensor d_h;
  tl::Tensor d_mul_6;
  tl::Tensor d_sum_7;
  tl::Tensor d_y;
  tl::Tensor d_result;
  d_result = tl::scalar_tensor(1, result.dtype());
  if (cond_0) {
    tl::Tensor d_mul_9;
    d_mul_9 = d_result;
    // mul, line 79
    d_y = d_mul_9 * 2.0;
  } else {
    tl::Tensor d_sigmoid_11;
    tl::Tensor d_div_12;
    tl::Tensor d_sum_13;
    tl::Tensor d_exp_14;
    tl::Tensor d_mean_15;
    tl::Tensor d_add_16;
    tl::Tensor d_sub_17;
    d_sub_17 = d_result;
    // sub, line 80
    d_add_16 = tl::sum_to_size(d_sub_17, add_16.shape());
    d_sum_13 = tl::sum_to_size(-d_sub_17, sum_13.shape());
    // add, line 80
    d_mean_15 = tl::sum_to_size(d_add_16, mean_15.shape());
    d_y = tl::sum_to_size(d_add_16, y.shape());
    // mean, line 80
    const tl::DType stats_mean_15 = tl::stats_dtype(exp_14.dtype());
    d_exp_14 = tl::broadcast_to(d_mean_15.astype(stats_mean_15) * tl::reciprocal(tl::scalar_tensor(double(exp_14.numel() / std::max<std::int64_t>(1, mean_15.numel())), stats_mean_15)), exp_14.shape()).astype(exp_14.dtype());
    // exp, line 80
    d_h = d_exp_14 * exp_14;
    // sum, line 80
    d_div_12 = tl::broadcast_to(d_sum_13, div_12.shape());
    // div, line 80
    d_sigmoid_11 = tl::sum_to_size(d_div_12 * tl::reciprocal(add_10), sigmoid_11.shape());
    // sigmoid, line 80
    d_h = d_h + (d_sigmoid_11 * (sigmoid_11 * (1.0 - sigmoid_11)));
  }
  // mul, line 78
  d_sum_7 = d_y * scale;
  // sum, line 78
  d_mul_6 = tl::broadcast_to(d_sum_7, mul_6.shape());
  // mul, line 78
  d_h = d_h.defined() ? d_h + (tl::sum_to_size(d_mul_6 * h, h.shape())) : (tl::sum_to_size(d_mul_6 * h, h.shape()));
  d_h = d_h + (tl::sum_to_size(d_mul_6 * h, h.shape()));
  // tanh, line 17
  d_add_4 = d_h * (1.0 - h * h);
  // add, line 17
  d_matmul_3 = tl::sum_to_size(d_add_4, matmul_3.shape());
  // matmul, line 17
  d_wt = tl::matmul_backward(d_matmul_3, x, wt, 1);
  return d_wt;
}

}  // namespace tlaloc_generated

#pragma GCC diagnostic pop
