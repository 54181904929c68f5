// The derivative of the gradient of the lambda at functions.cpp:413 (functions.cpp.hessian_curved_418_gradient.grad.cpp) at `m` along `t_m` (forward mode),
// written by tlaloc-grad at build time: the function's own ops, then their
// tangents beside them (t_v is the derivative of v along t_m).
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

inline std::pair<tl::Tensor, tl::Tensor> hessian_curved_418_gradient_jvp(const tl::Tensor& m, const tl::Tensor& x, const tl::Tensor& b, const double scale, const tl::Tensor& t_m) {
  const tl::Tensor matmul_3 = tl::matmul(x, m);  // matmul, line 19: tl::matmul(x, m)
  const tl::Tensor t_matmul_3 = tl::matmul(x, t_m);
  const tl::Tensor add_4 = matmul_3 + b;  // add, line 20: matmul_3 + b
  const tl::Tensor t_add_4 = tl::broadcast_to_shape_of(t_matmul_3, add_4);
  const tl::Tensor h = tl::tanh(add_4);  // tanh, line 21: tl::tanh(add_4)
  const tl::Tensor t_h = t_add_4 * (1.0 - h * h);
  const tl::Tensor sigmoid_6 = tl::sigmoid(m);  // sigmoid, line 22: tl::sigmoid(m)
  const tl::Tensor t_sigmoid_6 = t_m * (sigmoid_6 * (1.0 - sigmoid_6));
  const tl::Tensor maximum_7 = tl::maximum(m, 0.05);  // maximum, line 23: tl::maximum(m, 0.05)
  const tl::Tensor t_maximum_7 = t_m * ((m == maximum_7).astype(maximum_7.dtype()) - 0.5 * (m == maximum_7).astype(maximum_7.dtype()) * (0.05 == maximum_7).astype(maximum_7.dtype()));
  const tl::Tensor mul_8 = maximum_7 * sigmoid_6;  // mul, line 24: maximum_7 * sigmoid_6
  const tl::Tensor t_mul_8 = tl::broadcast_to_shape_of(t_maximum_7 * sigmoid_6 + t_sigmoid_6 * maximum_7, mul_8);
  const tl::Tensor mul_9 = m * m;  // mul, line 25: m * m
  const tl::Tensor t_mul_9 = tl::broadcast_to_shape_of(t_m * m + t_m * m, mul_9);
  const tl::Tensor add_10 = mul_9 + 2.0;  // add, line 26: mul_9 + 2.0
  const tl::Tensor t_add_10 = t_mul_9;
  const tl::Tensor mul_11 = m * m;  // mul, line 27: m * m
  const tl::Tensor t_mul_11 = tl::broadcast_to_shape_of(t_m * m + t_m * m, mul_11);
  const tl::Tensor add_12 = mul_11 + 1.0;  // add, line 28: mul_11 + 1.0
  const tl::Tensor t_add_12 = t_mul_11;
  const tl::Tensor pow_13 = tl::pow(add_12, 1.5);  // pow, line 29: tl::pow(add_12, 1.5)
  const tl::Tensor t_pow_13 = t_add_12 * tl::where(tl::scalar_tensor(1.5, pow_13.dtype()) == 0, 0.0, tl::scalar_tensor(1.5, pow_13.dtype()) * tl::pow(add_12, tl::scalar_tensor(1.5, pow_13.dtype()) - 1.0));
  const tl::Tensor div_14 = pow_13 / add_10;  // div, line 30: pow_13 / add_10
  const tl::Tensor t_div_14 = tl::broadcast_to_shape_of(t_pow_13 * tl::reciprocal(add_10) + t_add_10 * -(div_14 / add_10), div_14);
  const tl::Tensor r = div_14 + mul_8;  // add, line 31: div_14 + mul_8
  const tl::Tensor t_r = tl::broadcast_to_shape_of(t_div_14 + t_mul_8, r);
  const int64_t log_softmax_axis = -1;
  const tl::Tensor mul_16 = m * 2.0;  // mul, line 33: m * 2.0
  const tl::Tensor t_mul_16 = t_m * 2.0;
  const int64_t log_softmax_a = ::tlaloc::detail::row_axis("log_softmax", log_softmax_axis, mul_16.rank());
  const tl::Tensor xf = mul_16.astype(::tlaloc::detail::floating_dtype(mul_16.dtype()));  // astype, line 35: mul_16.astype(::tlaloc::detail::floating_dtype(mul_16.dtype()))
  const tl::Tensor t_xf = t_mul_16.astype(::tlaloc::detail::floating_dtype(mul_16.dtype()));
  bool u_cond_0 = false;
  u_cond_0 = mul_16.rank() > 0;
  tl::Tensor xf_1_1;
  tl::Tensor t_xf_1_1;
  tl::Tensor reshape_18_1;
  tl::Tensor t_reshape_18_1;
  tl::Tensor reshape_20;
  tl::Tensor t_reshape_20;
  bool cond_0 = false;
  cond_0 = u_cond_0;  // line 40
  if (cond_0) {
    xf_1_1 = xf;
    t_xf_1_1 = t_xf;
    reshape_18_1 = tl::Tensor();
    t_reshape_18_1 = tl::Tensor();
  } else {
    reshape_20 = tl::reshape(xf, {1});  // reshape, line 43: tl::reshape(xf, {1})
    t_reshape_20 = tl::reshape(t_xf, {1});
    xf_1_1 = reshape_20;
    t_xf_1_1 = t_reshape_20;
    reshape_18_1 = reshape_20;
    t_reshape_18_1 = t_reshape_20;
  }
  const tl::Tensor max_20 = tl::max(xf_1_1, log_softmax_a, true);  // max, line 46: tl::max(xf_1, log_softmax_a, true)
  const tl::Tensor t_max_20 = tl::derivatives::extreme_jvp(t_xf_1_1, xf_1_1, max_20, log_softmax_a, true);
  const tl::Tensor u_t_21 = tl::stop_gradient(max_20);  // line 47: tl::stop_gradient(max_20)
  const tl::Tensor shifted = xf_1_1 - u_t_21;  // sub, line 48: xf_1 - t_21
  const tl::Tensor t_shifted = tl::broadcast_to_shape_of(t_xf_1_1, shifted);
  const tl::Tensor exp_23 = tl::exp(shifted);  // exp, line 49: tl::exp(shifted)
  const tl::Tensor t_exp_23 = t_shifted * exp_23;
  const tl::Tensor sum_24 = tl::sum(exp_23, log_softmax_a, true);  // sum, line 50: tl::sum(exp_23, log_softmax_a, true)
  const tl::Tensor t_sum_24 = tl::sum(t_exp_23, log_softmax_a, true);
  const tl::Tensor log_25 = tl::log(sum_24);  // log, line 51: tl::log(sum_24)
  const tl::Tensor t_log_25 = t_sum_24 * tl::reciprocal(sum_24);
  const tl::Tensor sub_26 = shifted - log_25;  // sub, line 52: shifted - log_25
  const tl::Tensor t_sub_26 = tl::broadcast_to_shape_of(t_shifted - t_log_25, sub_26);
  const tl::Tensor reshape_27 = tl::reshape(sub_26, mul_16.shape());  // reshape, line 53: tl::reshape(sub_26, mul_16.shape())
  const tl::Tensor t_reshape_27 = tl::reshape(t_sub_26, mul_16.shape());
  const tl::Tensor sum_28 = tl::sum(reshape_27);  // sum, line 54: tl::sum(reshape_27)
  const tl::Tensor t_sum_28 = tl::sum(t_reshape_27);
  const tl::Tensor sum_29 = tl::sum(r);  // sum, line 55: tl::sum(r)
  const tl::Tensor t_sum_29 = tl::sum(t_r);
  const bool mean_keepdims = false;
  const tlaloc::Axes mean_axes = {};
  const tl::Tensor mul_30 = m * 0.5;  // mul, line 58: m * 0.5
  const tl::Tensor t_mul_30 = t_m * 0.5;
  const tl::Tensor exp_31 = tl::exp(mul_30);  // exp, line 59: tl::exp(mul_30)
  const tl::Tensor t_exp_31 = t_mul_30 * exp_31;
  const int64_t mean_n = ::tlaloc::detail::reduced_count("mean", exp_31.shape(), mean_axes);
  const tl::Tensor astype_32 = exp_31.astype(::tlaloc::stats_dtype(exp_31.dtype()));  // astype, line 61: exp_31.astype(::tlaloc::stats_dtype(exp_31.dtype()))
  const tl::Tensor t_astype_32 = t_exp_31.astype(::tlaloc::stats_dtype(exp_31.dtype()));
  const tl::Tensor sum_33 = tl::sum(astype_32, mean_axes, mean_keepdims);  // sum, line 62: tl::sum(astype_32, mean_axes, mean_keepdims)
  const tl::Tensor t_sum_33 = tl::sum(t_astype_32, mean_axes, mean_keepdims);
  const tl::Tensor div_34 = sum_33 / double(mean_n);  // div, line 63: sum_33 / double(mean_n)
  const tl::Tensor t_div_34 = t_sum_33 * tl::reciprocal(tl::scalar_tensor(double(mean_n), div_34.dtype()));
  const tl::Tensor astype_35 = div_34.astype(::tlaloc::detail::floating_dtype(exp_31.dtype()));  // astype, line 64: div_34.astype(::tlaloc::detail::floating_dtype(exp_31.dtype()))
  const tl::Tensor t_astype_35 = t_div_34.astype(::tlaloc::detail::floating_dtype(exp_31.dtype()));
  const tl::Tensor mul_36 = h * h;  // mul, line 65: h * h
  const tl::Tensor t_mul_36 = tl::broadcast_to_shape_of(t_h * h + t_h * h, mul_36);
  const tl::Tensor sum_37 = tl::sum(mul_36);  // sum, line 66: tl::sum(mul_36)
  const tl::Tensor t_sum_37 = tl::sum(t_mul_36);
  const tl::Tensor mul_38 = sum_37 * scale;  // mul, line 67: sum_37 * scale
  const tl::Tensor t_mul_38 = t_sum_37 * scale;
  const tl::Tensor add_39 = mul_38 + astype_35;  // add, line 68: mul_38 + astype_35
  const tl::Tensor t_add_39 = tl::broadcast_to_shape_of(t_mul_38 + t_astype_35, add_39);
  const tl::Tensor add_40 = add_39 + sum_29;  // add, line 69: add_39 + sum_29
  const tl::Tensor t_add_40 = tl::broadcast_to_shape_of(t_add_39 + t_sum_29, add_40);
  const tl::Tensor sub_41 = add_40 - sum_28;  // sub, line 70: add_40 - sum_28
  const tl::Tensor t_sub_41 = tl::broadcast_to_shape_of(t_add_40 - t_sum_28, sub_41);
  if (sub_41.rank() != 0) throw tl::ValueError("tlaloc-grad: the lambda at functions.cpp:413 must return a scalar, got " + tl::shape_string(sub_41.shape()));
  const tl::Tensor u_d_sub_41 = tl::scalar_tensor(1, sub_41.dtype());  // line 77: tl::scalar_tensor(1, sub_41.dtype())
  [[maybe_unused]] const bool which_d_reshape_18 = reshape_18_1.is_same(xf);
  [[maybe_unused]] const bool which_d_xf_1 = u_cond_0;
  const tl::Tensor sum_to_shape_of_83 = tl::sum_to_shape_of(u_d_sub_41, add_40);  // sum_to_shape_of, line 118: tl::sum_to_shape_of(d_sub_41, add_40)
  const tl::Tensor neg_84 = -u_d_sub_41;  // neg, line 119: -d_sub_41
  const tl::Tensor sum_to_shape_of_85 = tl::sum_to_shape_of(neg_84, sum_28);  // sum_to_shape_of, line 119: tl::sum_to_shape_of(-d_sub_41, sum_28)
  const tl::Tensor sum_to_shape_of_86 = tl::sum_to_shape_of(sum_to_shape_of_83, add_39);  // sum_to_shape_of, line 121: tl::sum_to_shape_of(d_add_40, add_39)
  const tl::Tensor sum_to_shape_of_87 = tl::sum_to_shape_of(sum_to_shape_of_83, sum_29);  // sum_to_shape_of, line 122: tl::sum_to_shape_of(d_add_40, sum_29)
  const tl::Tensor sum_to_shape_of_88 = tl::sum_to_shape_of(sum_to_shape_of_86, mul_38);  // sum_to_shape_of, line 124: tl::sum_to_shape_of(d_add_39, mul_38)
  const tl::Tensor sum_to_shape_of_89 = tl::sum_to_shape_of(sum_to_shape_of_86, astype_35);  // sum_to_shape_of, line 125: tl::sum_to_shape_of(d_add_39, astype_35)
  const tl::Tensor mul_90 = sum_to_shape_of_88 * scale;  // mul, line 127: d_mul_38 * scale
  const tl::Tensor sum_backward_91 = tl::derivatives::sum_backward(mul_90, mul_36.shape(), {}, false);  // sum_backward, line 129: tl::derivatives::sum_backward(d_sum_37, mul_36.shape(), {}, false)
  const tl::Tensor mul_92 = sum_backward_91 * h;  // mul, line 131: d_mul_36 * h
  const tl::Tensor t_mul_92 = tl::broadcast_to_shape_of(t_h * sum_backward_91, mul_92);
  const tl::Tensor mul_93 = sum_backward_91 * h;  // mul, line 132: d_mul_36 * h
  const tl::Tensor t_mul_93 = tl::broadcast_to_shape_of(t_h * sum_backward_91, mul_93);
  const tl::Tensor add_94 = mul_92 + mul_93;  // add, line 132: d_h + d_mul_36 * h
  const tl::Tensor t_add_94 = tl::broadcast_to_shape_of(t_mul_92 + t_mul_93, add_94);
  const tl::Tensor astype_95 = sum_to_shape_of_89.astype(div_34.dtype());  // astype, line 134: d_astype_35.astype(div_34.dtype())
  const tl::Tensor t_96 = tl::scalar_tensor(double(mean_n), sum_33.dtype());  // line 136: tl::scalar_tensor(double(mean_n), sum_33.dtype())
  const tl::Tensor reciprocal_97 = tl::reciprocal(t_96);  // reciprocal, line 136: tl::reciprocal(tl::scalar_tensor(double(mean_n), sum_33.dtype()))
  const tl::Tensor mul_98 = astype_95 * reciprocal_97;  // mul, line 136: d_div_34 * tl::reciprocal(tl::scalar_tensor(double(mean_n), sum_33.dt...
  const tl::Tensor sum_to_shape_of_99 = tl::sum_to_shape_of(mul_98, sum_33);  // sum_to_shape_of, line 136: tl::sum_to_shape_of(d_div_34 * tl::reciprocal(tl::scalar_tensor(doubl...
  const tl::Tensor sum_backward_100 = tl::derivatives::sum_backward(sum_to_shape_of_99, astype_32.shape(), {}, false);  // sum_backward, line 138: tl::derivatives::sum_backward(d_sum_33, astype_32.shape(), {}, false)
  const tl::Tensor astype_101 = sum_backward_100.astype(exp_31.dtype());  // astype, line 140: d_astype_32.astype(exp_31.dtype())
  const tl::Tensor mul_102 = astype_101 * exp_31;  // mul, line 142: d_exp_31 * exp_31
  const tl::Tensor t_mul_102 = tl::broadcast_to_shape_of(t_exp_31 * astype_101, mul_102);
  const tl::Tensor sum_to_shape_of_103 = tl::sum_to_shape_of(mul_102, mul_30);  // sum_to_shape_of, line 142: tl::sum_to_shape_of(d_exp_31 * exp_31, mul_30)
  const tl::Tensor t_sum_to_shape_of_103 = tl::sum_to_shape_of(t_mul_102, mul_30);
  const tl::Tensor mul_104 = sum_to_shape_of_103 * 0.5;  // mul, line 144: d_mul_30 * 0.5
  const tl::Tensor t_mul_104 = t_sum_to_shape_of_103 * 0.5;
  const tl::Tensor sum_backward_105 = tl::derivatives::sum_backward(sum_to_shape_of_87, r.shape(), {}, false);  // sum_backward, line 146: tl::derivatives::sum_backward(d_sum_29, r.shape(), {}, false)
  const tl::Tensor sum_backward_106 = tl::derivatives::sum_backward(sum_to_shape_of_85, reshape_27.shape(), {}, false);  // sum_backward, line 148: tl::derivatives::sum_backward(d_sum_28, reshape_27.shape(), {}, false)
  const tl::Tensor reshape_107 = tl::reshape(sum_backward_106, sub_26.shape());  // reshape, line 150: tl::reshape(d_reshape_27, sub_26.shape())
  const tl::Tensor sum_to_shape_of_108 = tl::sum_to_shape_of(reshape_107, shifted);  // sum_to_shape_of, line 152: tl::sum_to_shape_of(d_sub_26, shifted)
  const tl::Tensor neg_109 = -reshape_107;  // neg, line 153: -d_sub_26
  const tl::Tensor sum_to_shape_of_110 = tl::sum_to_shape_of(neg_109, log_25);  // sum_to_shape_of, line 153: tl::sum_to_shape_of(-d_sub_26, log_25)
  const tl::Tensor reciprocal_111 = tl::reciprocal(sum_24);  // reciprocal, line 155: tl::reciprocal(sum_24)
  const tl::Tensor t_reciprocal_111 = t_sum_24 * -(reciprocal_111 * reciprocal_111);
  const tl::Tensor mul_112 = sum_to_shape_of_110 * reciprocal_111;  // mul, line 155: d_log_25 * tl::reciprocal(sum_24)
  const tl::Tensor t_mul_112 = tl::broadcast_to_shape_of(t_reciprocal_111 * sum_to_shape_of_110, mul_112);
  const tl::Tensor sum_backward_113 = tl::derivatives::sum_backward(mul_112, exp_23.shape(), log_softmax_a, true);  // sum_backward, line 157: tl::derivatives::sum_backward(d_sum_24, exp_23.shape(), log_softmax_a...
  const tl::Tensor t_sum_backward_113 = tl::derivatives::sum_backward(t_mul_112, exp_23.shape(), log_softmax_a, true);
  const tl::Tensor mul_114 = sum_backward_113 * exp_23;  // mul, line 159: d_exp_23 * exp_23
  const tl::Tensor t_mul_114 = tl::broadcast_to_shape_of(t_sum_backward_113 * exp_23 + t_exp_23 * sum_backward_113, mul_114);
  const tl::Tensor add_115 = sum_to_shape_of_108 + mul_114;  // add, line 159: d_shifted + d_exp_23 * exp_23
  const tl::Tensor t_add_115 = tl::broadcast_to_shape_of(t_mul_114, add_115);
  const tl::Tensor sum_to_shape_of_116 = tl::sum_to_shape_of(add_115, xf_1_1);  // sum_to_shape_of, line 161: tl::sum_to_shape_of(d_shifted, xf_1)
  const tl::Tensor t_sum_to_shape_of_116 = tl::sum_to_shape_of(t_add_115, xf_1_1);
  tl::Tensor d_xf_2;
  tl::Tensor t_d_xf_2;
  tl::Tensor d_xf_1_apart_1;
  tl::Tensor t_d_xf_1_apart_1;
  bool cond_1 = false;
  cond_1 = which_d_xf_1;  // line 161
  if (cond_1) {
    d_xf_2 = sum_to_shape_of_116;
    t_d_xf_2 = t_sum_to_shape_of_116;
    d_xf_1_apart_1 = tl::Tensor();
    t_d_xf_1_apart_1 = tl::Tensor();
  } else {
    d_xf_2 = tl::Tensor();
    t_d_xf_2 = tl::Tensor();
    d_xf_1_apart_1 = sum_to_shape_of_116;
    t_d_xf_1_apart_1 = t_sum_to_shape_of_116;
  }
  tl::Tensor d_xf_5;
  tl::Tensor t_d_xf_5;
  tl::Tensor d_reshape_18_apart_2;
  tl::Tensor t_d_reshape_18_apart_2;
  tl::Tensor select;
  tl::Tensor t_select;
  tl::Tensor d_xf_1_1;
  tl::Tensor t_d_xf_1_1;
  tl::Tensor d_reshape_18_1;
  tl::Tensor t_d_reshape_18_1;
  tl::Tensor add_121;
  tl::Tensor t_add_121;
  tl::Tensor d_xf_1_2;
  tl::Tensor t_d_xf_1_2;
  tl::Tensor d_xf_3;
  tl::Tensor t_d_xf_3;
  tl::Tensor d_reshape_18_apart_1;
  tl::Tensor t_d_reshape_18_apart_1;
  tl::Tensor d_xf_4;
  tl::Tensor t_d_xf_4;
  tl::Tensor select_1;
  tl::Tensor t_select_1;
  tl::Tensor d_reshape_18_2;
  tl::Tensor t_d_reshape_18_2;
  tl::Tensor reshape_127;
  tl::Tensor t_reshape_127;
  tl::Tensor add_128;
  tl::Tensor t_add_128;
  tl::Tensor d_reshape_18_3;
  tl::Tensor t_d_reshape_18_3;
  tl::Tensor reshape_130;
  tl::Tensor t_reshape_130;
  bool cond_2 = false;
  bool cond_3 = false;
  bool cond_4 = false;
  bool cond_5 = false;
  bool cond_6 = false;
  bool cond_7 = false;
  bool cond_8 = false;
  bool cond_9 = false;
  bool cond_10 = false;
  bool cond_11 = false;
  cond_2 = !u_cond_0;  // line 162
  if (cond_2) {
    cond_3 = (which_d_reshape_18 ? d_xf_2 : tl::Tensor()).defined();  // line 163
    if (cond_3) {
      cond_4 = which_d_xf_1;  // line 163
      if (cond_4) {
        d_xf_1_1 = d_xf_2;
        t_d_xf_1_1 = t_d_xf_2;
      } else {
        d_xf_1_1 = d_xf_1_apart_1;
        t_d_xf_1_1 = t_d_xf_1_apart_1;
      }
      cond_5 = which_d_reshape_18;  // line 163
      if (cond_5) {
        d_reshape_18_1 = d_xf_2;
        t_d_reshape_18_1 = t_d_xf_2;
      } else {
        d_reshape_18_1 = tl::Tensor();
        t_d_reshape_18_1 = tl::Tensor();
      }
      add_121 = d_reshape_18_1 + d_xf_1_1;  // add, line 163: d_reshape_18 + d_xf_1
      t_add_121 = tl::broadcast_to_shape_of(t_d_reshape_18_1 + t_d_xf_1_1, add_121);
      select = add_121;
      t_select = t_add_121;
    } else {
      cond_6 = which_d_xf_1;  // line 163
      if (cond_6) {
        d_xf_1_2 = d_xf_2;
        t_d_xf_1_2 = t_d_xf_2;
      } else {
        d_xf_1_2 = d_xf_1_apart_1;
        t_d_xf_1_2 = t_d_xf_1_apart_1;
      }
      select = d_xf_1_2;
      t_select = t_d_xf_1_2;
    }
    cond_7 = which_d_reshape_18;  // line 163
    if (cond_7) {
      d_xf_3 = select;
      t_d_xf_3 = t_select;
      d_reshape_18_apart_1 = tl::Tensor();
      t_d_reshape_18_apart_1 = tl::Tensor();
    } else {
      d_xf_3 = d_xf_2;
      t_d_xf_3 = t_d_xf_2;
      d_reshape_18_apart_1 = select;
      t_d_reshape_18_apart_1 = t_select;
    }
    cond_8 = !reshape_18_1.is_same(xf);  // line 164
    if (cond_8) {
      cond_9 = d_xf_3.defined();  // line 166
      if (cond_9) {
        cond_10 = which_d_reshape_18;  // line 166
        if (cond_10) {
          d_reshape_18_2 = d_xf_3;
          t_d_reshape_18_2 = t_d_xf_3;
        } else {
          d_reshape_18_2 = d_reshape_18_apart_1;
          t_d_reshape_18_2 = t_d_reshape_18_apart_1;
        }
        reshape_127 = tl::reshape(d_reshape_18_2, xf.shape());  // reshape, line 166: tl::reshape(d_reshape_18, xf.shape())
        t_reshape_127 = tl::reshape(t_d_reshape_18_2, xf.shape());
        add_128 = d_xf_3 + reshape_127;  // add, line 166: d_xf + tl::reshape(d_reshape_18, xf.shape())
        t_add_128 = tl::broadcast_to_shape_of(t_d_xf_3 + t_reshape_127, add_128);
        select_1 = add_128;
        t_select_1 = t_add_128;
      } else {
        cond_11 = which_d_reshape_18;  // line 166
        if (cond_11) {
          d_reshape_18_3 = d_xf_3;
          t_d_reshape_18_3 = t_d_xf_3;
        } else {
          d_reshape_18_3 = d_reshape_18_apart_1;
          t_d_reshape_18_3 = t_d_reshape_18_apart_1;
        }
        reshape_130 = tl::reshape(d_reshape_18_3, xf.shape());  // reshape, line 166: tl::reshape(d_reshape_18, xf.shape())
        t_reshape_130 = tl::reshape(t_d_reshape_18_3, xf.shape());
        select_1 = reshape_130;
        t_select_1 = t_reshape_130;
      }
      d_xf_4 = select_1;
      t_d_xf_4 = t_select_1;
    } else {
      d_xf_4 = d_xf_3;
      t_d_xf_4 = t_d_xf_3;
    }
    d_xf_5 = d_xf_4;
    t_d_xf_5 = t_d_xf_4;
    d_reshape_18_apart_2 = d_reshape_18_apart_1;
    t_d_reshape_18_apart_2 = t_d_reshape_18_apart_1;
  } else {
    d_xf_5 = d_xf_2;
    t_d_xf_5 = t_d_xf_2;
    d_reshape_18_apart_2 = tl::Tensor();
    t_d_reshape_18_apart_2 = tl::Tensor();
  }
  tl::Tensor d_mul_16_1;
  tl::Tensor t_d_mul_16_1;
  tl::Tensor astype_135;
  tl::Tensor t_astype_135;
  bool cond_12 = false;
  cond_12 = d_xf_5.defined();  // line 169
  if (cond_12) {
    astype_135 = d_xf_5.astype(mul_16.dtype());  // astype, line 171: d_xf.astype(mul_16.dtype())
    t_astype_135 = t_d_xf_5.astype(mul_16.dtype());
    d_mul_16_1 = astype_135;
    t_d_mul_16_1 = t_astype_135;
  } else {
    d_mul_16_1 = tl::Tensor();
    t_d_mul_16_1 = tl::Tensor();
  }
  tl::Tensor d_m_1;
  tl::Tensor t_d_m_1;
  tl::Tensor mul_137;
  tl::Tensor t_mul_137;
  tl::Tensor add_138;
  tl::Tensor t_add_138;
  bool cond_13 = false;
  cond_13 = d_mul_16_1.defined();  // line 173
  if (cond_13) {
    mul_137 = d_mul_16_1 * 2.0;  // mul, line 175: d_mul_16 * 2.0
    t_mul_137 = t_d_mul_16_1 * 2.0;
    add_138 = mul_104 + mul_137;  // add, line 175: d_m + d_mul_16 * 2.0
    t_add_138 = tl::broadcast_to_shape_of(t_mul_104 + t_mul_137, add_138);
    d_m_1 = add_138;
    t_d_m_1 = t_add_138;
  } else {
    d_m_1 = mul_104;
    t_d_m_1 = t_mul_104;
  }
  const tl::Tensor reciprocal_140 = tl::reciprocal(add_10);  // reciprocal, line 181: tl::reciprocal(add_10)
  const tl::Tensor t_reciprocal_140 = t_add_10 * -(reciprocal_140 * reciprocal_140);
  const tl::Tensor mul_141 = sum_backward_105 * reciprocal_140;  // mul, line 181: d_div_14 * tl::reciprocal(add_10)
  const tl::Tensor t_mul_141 = tl::broadcast_to_shape_of(t_reciprocal_140 * sum_backward_105, mul_141);
  const tl::Tensor div_142 = div_14 / add_10;  // div, line 182: div_14 / add_10
  const tl::Tensor t_div_142 = tl::broadcast_to_shape_of(t_div_14 * tl::reciprocal(add_10) + t_add_10 * -(div_142 / add_10), div_142);
  const tl::Tensor neg_143 = -div_142;  // neg, line 182: -(div_14 / add_10)
  const tl::Tensor t_neg_143 = -t_div_142;
  const tl::Tensor mul_144 = sum_backward_105 * neg_143;  // mul, line 182: d_div_14 * -(div_14 / add_10)
  const tl::Tensor t_mul_144 = tl::broadcast_to_shape_of(t_neg_143 * sum_backward_105, mul_144);
  const tl::Tensor t_145 = tl::scalar_tensor(1.5, add_12.dtype());  // line 184: tl::scalar_tensor(1.5, add_12.dtype())
  const tl::Tensor sub_146 = t_145 - 1.0;  // sub, line 184: tl::scalar_tensor(1.5, add_12.dtype()) - 1.0
  const tl::Tensor pow_147 = tl::pow(add_12, sub_146);  // pow, line 184: tl::pow(add_12, tl::scalar_tensor(1.5, add_12.dtype()) - 1.0)
  const tl::Tensor t_pow_147 = tl::broadcast_to_shape_of(t_add_12 * tl::where(sub_146.astype(pow_147.dtype()) == 0, 0.0, sub_146.astype(pow_147.dtype()) * tl::pow(add_12.astype(pow_147.dtype()), sub_146.astype(pow_147.dtype()) - 1.0)), pow_147);
  const tl::Tensor t_148 = tl::scalar_tensor(1.5, add_12.dtype());  // line 184: tl::scalar_tensor(1.5, add_12.dtype())
  const tl::Tensor mul_149 = t_148 * pow_147;  // mul, line 184: tl::scalar_tensor(1.5, add_12.dtype()) * tl::pow(add_12, tl::scalar_t...
  const tl::Tensor t_mul_149 = tl::broadcast_to_shape_of(t_pow_147 * t_148, mul_149);
  const tl::Tensor t_150 = tl::scalar_tensor(1.5, add_12.dtype());  // line 184: tl::scalar_tensor(1.5, add_12.dtype())
  const tl::Tensor t_151 = t_150 == 0;  // line 184: tl::scalar_tensor(1.5, add_12.dtype()) == 0
  const tl::Tensor where_152 = tl::where(t_151, 0.0, mul_149);  // where, line 184: tl::where(tl::scalar_tensor(1.5, add_12.dtype()) == 0, 0.0, tl::scala...
  const tl::Tensor t_where_152 = tl::broadcast_to_shape_of(tl::where(t_151, tl::zeros_like(where_152), t_mul_149), where_152);
  const tl::Tensor mul_153 = mul_141 * where_152;  // mul, line 184: d_pow_13 * tl::where(tl::scalar_tensor(1.5, add_12.dtype()) == 0, 0.0...
  const tl::Tensor t_mul_153 = tl::broadcast_to_shape_of(t_mul_141 * where_152 + t_where_152 * mul_141, mul_153);
  const tl::Tensor mul_154 = mul_153 * m;  // mul, line 188: d_mul_11 * m
  const tl::Tensor t_mul_154 = tl::broadcast_to_shape_of(t_mul_153 * m + t_m * mul_153, mul_154);
  const tl::Tensor add_155 = d_m_1 + mul_154;  // add, line 188: d_m + d_mul_11 * m
  const tl::Tensor t_add_155 = tl::broadcast_to_shape_of(t_d_m_1 + t_mul_154, add_155);
  const tl::Tensor mul_156 = mul_153 * m;  // mul, line 189: d_mul_11 * m
  const tl::Tensor t_mul_156 = tl::broadcast_to_shape_of(t_mul_153 * m + t_m * mul_153, mul_156);
  const tl::Tensor add_157 = add_155 + mul_156;  // add, line 189: d_m + d_mul_11 * m
  const tl::Tensor t_add_157 = tl::broadcast_to_shape_of(t_add_155 + t_mul_156, add_157);
  const tl::Tensor mul_158 = mul_144 * m;  // mul, line 193: d_mul_9 * m
  const tl::Tensor t_mul_158 = tl::broadcast_to_shape_of(t_mul_144 * m + t_m * mul_144, mul_158);
  const tl::Tensor add_159 = add_157 + mul_158;  // add, line 193: d_m + d_mul_9 * m
  const tl::Tensor t_add_159 = tl::broadcast_to_shape_of(t_add_157 + t_mul_158, add_159);
  const tl::Tensor mul_160 = mul_144 * m;  // mul, line 194: d_mul_9 * m
  const tl::Tensor t_mul_160 = tl::broadcast_to_shape_of(t_mul_144 * m + t_m * mul_144, mul_160);
  const tl::Tensor add_161 = add_159 + mul_160;  // add, line 194: d_m + d_mul_9 * m
  const tl::Tensor t_add_161 = tl::broadcast_to_shape_of(t_add_159 + t_mul_160, add_161);
  const tl::Tensor mul_162 = sum_backward_105 * sigmoid_6;  // mul, line 196: d_mul_8 * sigmoid_6
  const tl::Tensor t_mul_162 = tl::broadcast_to_shape_of(t_sigmoid_6 * sum_backward_105, mul_162);
  const tl::Tensor mul_163 = sum_backward_105 * maximum_7;  // mul, line 197: d_mul_8 * maximum_7
  const tl::Tensor t_mul_163 = tl::broadcast_to_shape_of(t_maximum_7 * sum_backward_105, mul_163);
  const tl::Tensor t_164 = 0.05 == maximum_7;  // line 199: 0.05 == maximum_7
  const tl::Tensor astype_165 = t_164.astype(maximum_7.dtype());  // astype, line 199: (0.05 == maximum_7).astype(maximum_7.dtype())
  const tl::Tensor t_166 = m == maximum_7;  // line 199: m == maximum_7
  const tl::Tensor astype_167 = t_166.astype(maximum_7.dtype());  // astype, line 199: (m == maximum_7).astype(maximum_7.dtype())
  const tl::Tensor mul_168 = 0.5 * astype_167;  // mul, line 199: 0.5 * (m == maximum_7).astype(maximum_7.dtype())
  const tl::Tensor mul_169 = mul_168 * astype_165;  // mul, line 199: 0.5 * (m == maximum_7).astype(maximum_7.dtype()) * (0.05 == maximum_7...
  const tl::Tensor t_170 = m == maximum_7;  // line 199: m == maximum_7
  const tl::Tensor astype_171 = t_170.astype(maximum_7.dtype());  // astype, line 199: (m == maximum_7).astype(maximum_7.dtype())
  const tl::Tensor sub_172 = astype_171 - mul_169;  // sub, line 199: (m == maximum_7).astype(maximum_7.dtype()) - 0.5 * (m == maximum_7).a...
  const tl::Tensor mul_173 = mul_162 * sub_172;  // mul, line 199: d_maximum_7 * ((m == maximum_7).astype(maximum_7.dtype()) - 0.5 * (m ...
  const tl::Tensor t_mul_173 = tl::broadcast_to_shape_of(t_mul_162 * sub_172, mul_173);
  const tl::Tensor add_174 = add_161 + mul_173;  // add, line 199: d_m + d_maximum_7 * ((m == maximum_7).astype(maximum_7.dtype()) - 0.5...
  const tl::Tensor t_add_174 = tl::broadcast_to_shape_of(t_add_161 + t_mul_173, add_174);
  const tl::Tensor sub_175 = 1.0 - sigmoid_6;  // sub, line 201: 1.0 - sigmoid_6
  const tl::Tensor t_sub_175 = -t_sigmoid_6;
  const tl::Tensor mul_176 = sigmoid_6 * sub_175;  // mul, line 201: sigmoid_6 * (1.0 - sigmoid_6)
  const tl::Tensor t_mul_176 = tl::broadcast_to_shape_of(t_sigmoid_6 * sub_175 + t_sub_175 * sigmoid_6, mul_176);
  const tl::Tensor mul_177 = mul_163 * mul_176;  // mul, line 201: d_sigmoid_6 * (sigmoid_6 * (1.0 - sigmoid_6))
  const tl::Tensor t_mul_177 = tl::broadcast_to_shape_of(t_mul_163 * mul_176 + t_mul_176 * mul_163, mul_177);
  const tl::Tensor add_178 = add_174 + mul_177;  // add, line 201: d_m + d_sigmoid_6 * (sigmoid_6 * (1.0 - sigmoid_6))
  const tl::Tensor t_add_178 = tl::broadcast_to_shape_of(t_add_174 + t_mul_177, add_178);
  const tl::Tensor mul_179 = h * h;  // mul, line 203: h * h
  const tl::Tensor t_mul_179 = tl::broadcast_to_shape_of(t_h * h + t_h * h, mul_179);
  const tl::Tensor sub_180 = 1.0 - mul_179;  // sub, line 203: 1.0 - h * h
  const tl::Tensor t_sub_180 = -t_mul_179;
  const tl::Tensor mul_181 = add_94 * sub_180;  // mul, line 203: d_h * (1.0 - h * h)
  const tl::Tensor t_mul_181 = tl::broadcast_to_shape_of(t_add_94 * sub_180 + t_sub_180 * add_94, mul_181);
  const tl::Tensor sum_to_shape_of_182 = tl::sum_to_shape_of(mul_181, matmul_3);  // sum_to_shape_of, line 205: tl::sum_to_shape_of(d_add_4, matmul_3)
  const tl::Tensor t_sum_to_shape_of_182 = tl::sum_to_shape_of(t_mul_181, matmul_3);
  const tl::Tensor matmul_backward_183 = tl::derivatives::matmul_backward(sum_to_shape_of_182, x, m, 1);  // matmul_backward, line 207: tl::derivatives::matmul_backward(d_matmul_3, x, m, 1)
  const tl::Tensor t_matmul_backward_183 = tl::derivatives::matmul_backward(t_sum_to_shape_of_182, x, m, 1);
  const tl::Tensor add_184 = add_178 + matmul_backward_183;  // add, line 207: d_m + tl::derivatives::matmul_backward(d_matmul_3, x, m, 1)
  const tl::Tensor t_add_184 = tl::broadcast_to_shape_of(t_add_178 + t_matmul_backward_183, add_184);
  return {add_184, t_add_184};
}

// The Hessian of the lambda at functions.cpp:413 with respect to `m` (tl::hessian), of shape
// m.shape() + m.shape(): the derivative of the gradient along each basis
// vector, stacked on a last axis, as the engine's jacfwd(jacrev(f)).
inline tl::Tensor hessian_curved_418(const tl::Tensor& m, const tl::Tensor& x, const tl::Tensor& b, const double scale) {
  const std::int64_t n = m.numel();
  tl::Shape shape = m.shape();
  shape.insert(shape.end(), m.shape().begin(), m.shape().end());
  std::vector<tl::Tensor> columns;
  for (std::int64_t i = 0; i < n; ++i) {
    const tl::Tensor basis = tl::reshape(tl::one_hot(tl::scalar_tensor(i, tl::DType::i64), n, m.dtype()), m.shape());
    columns.push_back(hessian_curved_418_gradient_jvp(m, x, b, scale, basis).second);
  }
  if (n == 0) return tl::zeros(shape, m.dtype());
  return tl::reshape(tl::stack(columns, -1), shape);
}

}  // namespace tlaloc_generated

#pragma GCC diagnostic pop
