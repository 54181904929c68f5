// The gradient of the lambda at functions.cpp:92 with respect to `wt`,
// written by tlaloc-grad at build time: the function's own ops, then their
// derivatives in reverse order (an undefined tensor is a zero cotangent).
#include <tlaloc/tlaloc.hpp>
#include <tlaloc/derivatives.hpp>
#include <tlaloc/derived_ops.hpp>

#include <cstddef>
#include <utility>
#include <vector>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"

namespace tlaloc_generated {
namespace tl = ::tlaloc;

inline tl::Tensor grad_mlp_98(const tl::Tensor& wt, const tl::Tensor& x, const tl::Tensor& b, const double scale) {
  const tl::Tensor matmul_3 = tl::matmul(x, wt);  // matmul, line 17: tl::matmul(x, w)
  const tl::Tensor add_4 = matmul_3 + b;  // add, line 17: tl::matmul(x, w) + b
  const tl::Tensor h = tl::tanh(add_4);  // tanh, line 17: tl::tanh(tl::matmul(x, w) + b)
  const tl::Tensor mul_6 = h * h;  // mul, line 94: h * h
  const tl::Tensor sum_7 = tl::sum(mul_6);  // sum, line 94: tl::sum(h * h)
  const tl::Tensor y = sum_7 * scale;  // mul, line 94: tl::sum(h * h) * scale
  tl::Tensor result;
  tl::Tensor mul_9;
  tl::Tensor add_10;
  tl::Tensor sigmoid_11;
  tl::Tensor div_12;
  tl::Tensor sum_13;
  tl::Tensor exp_14;
  tl::Tensor astype_15;
  tl::Tensor sum_16;
  tl::Tensor div_17;
  tl::Tensor astype_18;
  tl::Tensor add_19;
  tl::Tensor sub_20;
  bool cond_0 = false;
  cond_0 = scale > 1.0;  // line 95
  if (cond_0) {
    mul_9 = y * 2.0;  // mul, line 95: y * 2.0
    result = mul_9;
  } else {
    add_10 = b + 2.0;  // add, line 96: b + 2.0
    sigmoid_11 = tl::sigmoid(h);  // sigmoid, line 96: tl::sigmoid(h)
    div_12 = sigmoid_11 / add_10;  // div, line 96: tl::sigmoid(h) / (b + 2.0)
    sum_13 = tl::sum(div_12);  // sum, line 96: tl::sum(tl::sigmoid(h) / (b + 2.0))
    const bool mean_keepdims = false;
    const tlaloc::Axes mean_axes = {};
    exp_14 = tl::exp(h);  // exp, line 96: tl::exp(h)
    const int64_t mean_n = ::tlaloc::detail::reduced_count("mean", exp_14.shape(), mean_axes);
    astype_15 = exp_14.astype(::tlaloc::stats_dtype(exp_14.dtype()));  // astype, tlaloc/derived_ops.hpp:53: x.astype(stats_dtype(x.dtype()))
    sum_16 = tl::sum(astype_15, mean_axes, mean_keepdims);  // sum, tlaloc/derived_ops.hpp:53: sum(x.astype(stats_dtype(x.dtype())), axes, keepdims)
    div_17 = sum_16 / double(mean_n);  // div, tlaloc/derived_ops.hpp:53: sum(x.astype(stats_dtype(x.dtype())), axes, keepdims) / double(n)
    astype_18 = div_17.astype(::tlaloc::detail::floating_dtype(exp_14.dtype()));  // astype, tlaloc/derived_ops.hpp:53: (sum(x.astype(stats_dtype(x.dtype())), axes, keepdims) / double(n)) ....
    add_19 = astype_18 + y;  // add, line 96: tl::mean(tl::exp(h)) + y
    sub_20 = add_19 - sum_13;  // sub, line 96: tl::mean(tl::exp(h)) + y - tl::sum(tl::sigmoid(h) / (b + 2.0))
    result = sub_20;
  }
  if (result.rank() != 0) {
    throw tl::ValueError("tlaloc-grad: the lambda at functions.cpp:92 must return a scalar, got " + tl::shape_string(result.shape()));
  }

  // Reverse, written by the AD engine (tl::ad::vjp): d_v is the derivative of the
  // result with respect to v, its shares summed in the engine's order.
  tl::Tensor d_result = tl::scalar_tensor(1, result.dtype());
  tl::Tensor d_mul_9;
  tl::Tensor d_y;
  tl::Tensor d_sub_20;
  tl::Tensor d_add_19;
  tl::Tensor d_sum_13;
  tl::Tensor d_astype_18;
  tl::Tensor d_div_17;
  tl::Tensor d_sum_16;
  tl::Tensor d_astype_15;
  tl::Tensor d_exp_14;
  tl::Tensor d_h;
  tl::Tensor d_div_12;
  tl::Tensor d_sigmoid_11;
  tl::Tensor d_sum_7;
  tl::Tensor d_mul_6;
  tl::Tensor d_add_4;
  tl::Tensor d_matmul_3;
  tl::Tensor d_wt;
  if (cond_0) {
    d_mul_9 = d_result;
    // mul, line 95
    d_y = d_mul_9 * 2.0;
  } else {
    [[maybe_unused]] const bool mean_keepdims = false;
    const tlaloc::Axes mean_axes = {};
    const int64_t mean_n = ::tlaloc::detail::reduced_count("mean", exp_14.shape(), mean_axes);
    d_sub_20 = d_result;
    // sub, line 96
    d_add_19 = tl::sum_to_shape_of(d_sub_20, add_19);
    d_sum_13 = tl::sum_to_shape_of(-d_sub_20, sum_13);
    // add, line 96
    d_astype_18 = tl::sum_to_shape_of(d_add_19, astype_18);
    d_y = tl::sum_to_shape_of(d_add_19, y);
    // astype, tlaloc/derived_ops.hpp:53
    d_div_17 = d_astype_18.astype(div_17.dtype());
    // div, tlaloc/derived_ops.hpp:53
    d_sum_16 = tl::sum_to_shape_of(d_div_17 * tl::reciprocal(tl::scalar_tensor(double(mean_n), sum_16.dtype())), sum_16);
    // sum, tlaloc/derived_ops.hpp:53
    d_astype_15 = tl::derivatives::sum_backward(d_sum_16, astype_15.shape(), {}, false);
    // astype, tlaloc/derived_ops.hpp:53
    d_exp_14 = d_astype_15.astype(exp_14.dtype());
    // exp, line 96
    d_h = tl::sum_to_shape_of(d_exp_14 * exp_14, h);
    // sum, line 96
    d_div_12 = tl::derivatives::sum_backward(d_sum_13, div_12.shape(), {}, false);
    // div, line 96
    d_sigmoid_11 = tl::sum_to_shape_of(d_div_12 * tl::reciprocal(add_10), sigmoid_11);
    // sigmoid, line 96
    d_h = d_h + d_sigmoid_11 * (sigmoid_11 * (1.0 - sigmoid_11));
  }
  // mul, line 94
  d_sum_7 = d_y * scale;
  // sum, line 94
  d_mul_6 = tl::derivatives::sum_backward(d_sum_7, mul_6.shape(), {}, false);
  // mul, line 94
  d_h = d_h.defined() ? d_h + d_mul_6 * h : d_mul_6 * h;
  d_h = d_h + d_mul_6 * h;
  // tanh, line 17
  d_add_4 = d_h * (1.0 - h * h);
  // add, line 17
  d_matmul_3 = tl::sum_to_shape_of(d_add_4, matmul_3);
  // matmul, line 17
  d_wt = tl::derivatives::matmul_backward(d_matmul_3, x, wt, 1);
  return d_wt;
}

}  // namespace tlaloc_generated

#pragma GCC diagnostic pop
