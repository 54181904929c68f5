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
  const tl::Tensor u_d_sub_41 = tl::scalar_tensor(1, sub_41.dtype());  // line 76: tl::scalar_tensor(1, sub_41.dtype())
  [[maybe_unused]] const bool which_d_reshape_18 = reshape_18_1.is_same(xf);
  [[maybe_unused]] const bool which_d_xf_1 = u_cond_0;
  const tl::Tensor sum_to_shape_of_83 = tl::sum_to_shape_of(u_d_sub_41, add_40);  // sum_to_shape_of, line 117: tl::sum_to_shape_of(d_sub_41, add_40)
  const tl::Tensor neg_84 = -u_d_sub_41;  // neg, line 118: -d_sub_41
  const tl::Tensor sum_to_shape_of_85 = tl::sum_to_shape_of(neg_84, sum_28);  // sum_to_shape_of, line 118: tl::sum_to_shape_of(-d_sub_41, sum_28)
  const tl::Tensor sum_to_shape_of_86 = tl::sum_to_shape_of(sum_to_shape_of_83, add_39);  // sum_to_shape_of, line 120: tl::sum_to_shape_of(d_add_40, add_39)
  const tl::Tensor sum_to_shape_of_87 = tl::sum_to_shape_of(sum_to_shape_of_83, sum_29);  // sum_to_shape_of, line 121: tl::sum_to_shape_of(d_add_40, sum_29)
  const tl::Tensor sum_to_shape_of_88 = tl::sum_to_shape_of(sum_to_shape_of_86, mul_38);  // sum_to_shape_of, line 123: tl::sum_to_shape_of(d_add_39, mul_38)
  const tl::Tensor sum_to_shape_of_89 = tl::sum_to_shape_of(sum_to_shape_of_86, astype_35);  // sum_to_shape_of, line 124: tl::sum_to_shape_of(d_add_39, astype_35)
  const tl::Tensor mul_90 = sum_to_shape_of_88 * scale;  // mul, line 126: d_mul_38 * scale
  const tl::Tensor sum_backward_91 = tl::derivatives::sum_backward(mul_90, mul_36.shape(), {}, false);  // sum_backward, line 128: tl::derivatives::sum_backward(d_sum_37, mul_36.shape(), {}, false)
  const tl::Tensor mul_92 = sum_backward_91 * h;  // mul, line 130: d_mul_36 * h
  const tl::Tensor t_mul_92 = tl::broadcast_to_shape_of(t_h * sum_backward_91, mul_92);
  const tl::Tensor mul_93 = sum_backward_91 * h;  // mul, line 131: d_mul_36 * h
  const tl::Tensor t_mul_93 = tl::broadcast_to_shape_of(t_h * sum_backward_91, mul_93);
  const tl::Tensor add_94 = mul_92 + mul_93;  // add, line 131: d_h + d_mul_36 * h
  const tl::Tensor t_add_94 = tl::broadcast_to_shape_of(t_mul_92 + t_mul_93, add_94);
  const tl::Tensor astype_95 = sum_to_shape_of_89.astype(div_34.dtype());  // astype, line 133: d_astype_35.astype(div_34.dtype())
  const tl::Tensor t_96 = tl::scalar_tensor(double(mean_n), sum_33.dtype());  // line 135: tl::scalar_tensor(double(mean_n), sum_33.dtype())
  const tl::Tensor reciprocal_97 = tl::reciprocal(t_96);  // reciprocal, line 135: tl::reciprocal(tl::scalar_tensor(double(mean_n), sum_33.dtype()))
  const tl::Tensor mul_98 = astype_95 * reciprocal_97;  // mul, line 135: d_div_34 * tl::reciprocal(tl::scalar_tensor(double(mean_n), sum_33.dt...
  const tl::Tensor sum_to_shape_of_99 = tl::sum_to_shape_of(mul_98, sum_33);  // sum_to_shape_of, line 135: tl::sum_to_shape_of(d_div_34 * tl::reciprocal(tl::scalar_tensor(doubl...
  const tl::Tensor sum_backward_100 = tl::derivatives::sum_backward(sum_to_shape_of_99, astype_32.shape(), {}, false);  // sum_backward, line 137: tl::derivatives::sum_backward(d_sum_33, astype_32.shape(), {}, false)
  const tl::Tensor astype_101 = sum_backward_100.astype(exp_31.dtype());  // astype, line 139: d_astype_32.astype(exp_31.dtype())
  const tl::Tensor mul_102 = astype_101 * exp_31;  // mul, line 141: d_exp_31 * exp_31
  const tl::Tensor t_mul_102 = tl::broadcast_to_shape_of(t_exp_31 * astype_101, mul_102);
  const tl::Tensor sum_to_shape_of_103 = tl::sum_to_shape_of(mul_102, mul_30);  // sum_to_shape_of, line 141: tl::sum_to_shape_of(d_exp_31 * exp_31, mul_30)
  const tl::Tensor t_sum_to_shape_of_103 = tl::sum_to_shape_of(t_mul_102, mul_30);
  const tl::Tensor mul_104 = sum_to_shape_of_103 * 0.5;  // mul, line 143: d_mul_30 * 0.5
  const tl::Tensor t_mul_104 = t_sum_to_shape_of_103 * 0.5;
  const tl::Tensor sum_backward_105 = tl::derivatives::sum_backward(sum_to_shape_of_87, r.shape(), {}, false);  // sum_backward, line 145: tl::derivatives::sum_backward(d_sum_29, r.shape(), {}, false)
  const tl::Tensor sum_backward_106 = tl::derivatives::sum_backward(sum_to_shape_of_85, reshape_27.shape(), {}, false);  // sum_backward, line 147: tl::derivatives::sum_backward(d_sum_28, reshape_27.shape(), {}, false)
  const tl::Tensor reshape_107 = tl::reshape(sum_backward_106, sub_26.shape());  // reshape, line 149: tl::reshape(d_reshape_27, sub_26.shape())
  const tl::Tensor sum_to_shape_of_108 = tl::sum_to_shape_of(reshape_107, shifted);  // sum_to_shape_of, line 151: tl::sum_to_shape_of(d_sub_26, shifted)
  const tl::Tensor neg_109 = -reshape_107;  // neg, line 152: -d_sub_26
  const tl::Tensor sum_to_shape_of_110 = tl::sum_to_shape_of(neg_109, log_25);  // sum_to_shape_of, line 152: tl::sum_to_shape_of(-d_sub_26, log_25)
  const tl::Tensor reciprocal_111 = tl::reciprocal(sum_24);  // reciprocal, line 154: tl::reciprocal(sum_24)
  const tl::Tensor t_reciprocal_111 = t_sum_24 * -(reciprocal_111 * reciprocal_111);
  const tl::Tensor mul_112 = sum_to_shape_of_110 * reciprocal_111;  // mul, line 154: d_log_25 * tl::reciprocal(sum_24)
  const tl::Tensor t_mul_112 = tl::broadcast_to_shape_of(t_reciprocal_111 * sum_to_shape_of_110, mul_112);
  const tl::Tensor sum_backward_113 = tl::derivatives::sum_backward(mul_112, exp_23.shape(), log_softmax_a, true);  // sum_backward, line 156: tl::derivatives::sum_backward(d_sum_24, exp_23.shape(), log_softmax_a...
  const tl::Tensor t_sum_backward_113 = tl::derivatives::sum_backward(t_mul_112, exp_23.shape(), log_softmax_a, true);
  const tl::Tensor mul_114 = sum_backward_113 * exp_23;  // mul, line 158: d_exp_23 * exp_23
  const tl::Tensor t_mul_114 = tl::broadcast_to_shape_of(t_sum_backward_113 * exp_23 + t_exp_23 * sum_backward_113, mul_114);
  const tl::Tensor sum_to_shape_of_115 = tl::sum_to_shape_of(mul_114, shifted);  // sum_to_shape_of, line 158: tl::sum_to_shape_of(d_exp_23 * exp_23, shifted)
  const tl::Tensor t_sum_to_shape_of_115 = tl::sum_to_shape_of(t_mul_114, shifted);
  const tl::Tensor add_116 = sum_to_shape_of_108 + sum_to_shape_of_115;  // add, line 158: d_shifted + tl::sum_to_shape_of(d_exp_23 * exp_23, shifted)
  const tl::Tensor t_add_116 = tl::broadcast_to_shape_of(t_sum_to_shape_of_115, add_116);
  const tl::Tensor sum_to_shape_of_117 = tl::sum_to_shape_of(add_116, xf_1_1);  // sum_to_shape_of, line 160: tl::sum_to_shape_of(d_shifted, xf_1)
  const tl::Tensor t_sum_to_shape_of_117 = tl::sum_to_shape_of(t_add_116, xf_1_1);
  tl::Tensor d_xf_2;
  tl::Tensor t_d_xf_2;
  tl::Tensor d_xf_1_apart_1;
  tl::Tensor t_d_xf_1_apart_1;
  bool cond_1 = false;
  cond_1 = which_d_xf_1;  // line 160
  if (cond_1) {
    d_xf_2 = sum_to_shape_of_117;
    t_d_xf_2 = t_sum_to_shape_of_117;
    d_xf_1_apart_1 = tl::Tensor();
    t_d_xf_1_apart_1 = tl::Tensor();
  } else {
    d_xf_2 = tl::Tensor();
    t_d_xf_2 = tl::Tensor();
    d_xf_1_apart_1 = sum_to_shape_of_117;
    t_d_xf_1_apart_1 = t_sum_to_shape_of_117;
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
  tl::Tensor add_122;
  tl::Tensor t_add_122;
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
  tl::Tensor reshape_128;
  tl::Tensor t_reshape_128;
  tl::Tensor add_129;
  tl::Tensor t_add_129;
  tl::Tensor d_reshape_18_3;
  tl::Tensor t_d_reshape_18_3;
  tl::Tensor reshape_131;
  tl::Tensor t_reshape_131;
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
  cond_2 = !u_cond_0;  // line 161
  if (cond_2) {
    cond_3 = (which_d_reshape_18 ? d_xf_2 : tl::Tensor()).defined();  // line 162
    if (cond_3) {
      cond_4 = which_d_xf_1;  // line 162
      if (cond_4) {
        d_xf_1_1 = d_xf_2;
        t_d_xf_1_1 = t_d_xf_2;
      } else {
        d_xf_1_1 = d_xf_1_apart_1;
        t_d_xf_1_1 = t_d_xf_1_apart_1;
      }
      cond_5 = which_d_reshape_18;  // line 162
      if (cond_5) {
        d_reshape_18_1 = d_xf_2;
        t_d_reshape_18_1 = t_d_xf_2;
      } else {
        d_reshape_18_1 = tl::Tensor();
        t_d_reshape_18_1 = tl::Tensor();
      }
      add_122 = d_reshape_18_1 + d_xf_1_1;  // add, line 162: d_reshape_18 + d_xf_1
      t_add_122 = tl::broadcast_to_shape_of(t_d_reshape_18_1 + t_d_xf_1_1, add_122);
      select = add_122;
      t_select = t_add_122;
    } else {
      cond_6 = which_d_xf_1;  // line 162
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
    cond_7 = which_d_reshape_18;  // line 162
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
    cond_8 = !reshape_18_1.is_same(xf);  // line 163
    if (cond_8) {
      cond_9 = d_xf_3.defined();  // line 165
      if (cond_9) {
        cond_10 = which_d_reshape_18;  // line 165
        if (cond_10) {
          d_reshape_18_2 = d_xf_3;
          t_d_reshape_18_2 = t_d_xf_3;
        } else {
          d_reshape_18_2 = d_reshape_18_apart_1;
          t_d_reshape_18_2 = t_d_reshape_18_apart_1;
        }
        reshape_128 = tl::reshape(d_reshape_18_2, xf.shape());  // reshape, line 165: tl::reshape(d_reshape_18, xf.shape())
        t_reshape_128 = tl::reshape(t_d_reshape_18_2, xf.shape());
        add_129 = d_xf_3 + reshape_128;  // add, line 165: d_xf + tl::reshape(d_reshape_18, xf.shape())
        t_add_129 = tl::broadcast_to_shape_of(t_d_xf_3 + t_reshape_128, add_129);
        select_1 = add_129;
        t_select_1 = t_add_129;
      } else {
        cond_11 = which_d_reshape_18;  // line 165
        if (cond_11) {
          d_reshape_18_3 = d_xf_3;
          t_d_reshape_18_3 = t_d_xf_3;
        } else {
          d_reshape_18_3 = d_reshape_18_apart_1;
          t_d_reshape_18_3 = t_d_reshape_18_apart_1;
        }
        reshape_131 = tl::reshape(d_reshape_18_3, xf.shape());  // reshape, line 165: tl::reshape(d_reshape_18, xf.shape())
        t_reshape_131 = tl::reshape(t_d_reshape_18_3, xf.shape());
        select_1 = reshape_131;
        t_select_1 = t_reshape_131;
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
  tl::Tensor astype_136;
  tl::Tensor t_astype_136;
  bool cond_12 = false;
  cond_12 = d_xf_5.defined();  // line 168
  if (cond_12) {
    astype_136 = d_xf_5.astype(mul_16.dtype());  // astype, line 170: d_xf.astype(mul_16.dtype())
    t_astype_136 = t_d_xf_5.astype(mul_16.dtype());
    d_mul_16_1 = astype_136;
    t_d_mul_16_1 = t_astype_136;
  } else {
    d_mul_16_1 = tl::Tensor();
    t_d_mul_16_1 = tl::Tensor();
  }
  tl::Tensor d_m_1;
  tl::Tensor t_d_m_1;
  tl::Tensor mul_138;
  tl::Tensor t_mul_138;
  tl::Tensor add_139;
  tl::Tensor t_add_139;
  bool cond_13 = false;
  cond_13 = d_mul_16_1.defined();  // line 172
  if (cond_13) {
    mul_138 = d_mul_16_1 * 2.0;  // mul, line 174: d_mul_16 * 2.0
    t_mul_138 = t_d_mul_16_1 * 2.0;
    add_139 = mul_104 + mul_138;  // add, line 174: d_m + d_mul_16 * 2.0
    t_add_139 = tl::broadcast_to_shape_of(t_mul_104 + t_mul_138, add_139);
    d_m_1 = add_139;
    t_d_m_1 = t_add_139;
  } else {
    d_m_1 = mul_104;
    t_d_m_1 = t_mul_104;
  }
  const tl::Tensor reciprocal_141 = tl::reciprocal(add_10);  // reciprocal, line 180: tl::reciprocal(add_10)
  const tl::Tensor t_reciprocal_141 = t_add_10 * -(reciprocal_141 * reciprocal_141);
  const tl::Tensor mul_142 = sum_backward_105 * reciprocal_141;  // mul, line 180: d_div_14 * tl::reciprocal(add_10)
  const tl::Tensor t_mul_142 = tl::broadcast_to_shape_of(t_reciprocal_141 * sum_backward_105, mul_142);
  const tl::Tensor div_143 = div_14 / add_10;  // div, line 181: div_14 / add_10
  const tl::Tensor t_div_143 = tl::broadcast_to_shape_of(t_div_14 * tl::reciprocal(add_10) + t_add_10 * -(div_143 / add_10), div_143);
  const tl::Tensor neg_144 = -div_143;  // neg, line 181: -(div_14 / add_10)
  const tl::Tensor t_neg_144 = -t_div_143;
  const tl::Tensor mul_145 = sum_backward_105 * neg_144;  // mul, line 181: d_div_14 * -(div_14 / add_10)
  const tl::Tensor t_mul_145 = tl::broadcast_to_shape_of(t_neg_144 * sum_backward_105, mul_145);
  const tl::Tensor t_146 = tl::scalar_tensor(1.5, add_12.dtype());  // line 183: tl::scalar_tensor(1.5, add_12.dtype())
  const tl::Tensor sub_147 = t_146 - 1.0;  // sub, line 183: tl::scalar_tensor(1.5, add_12.dtype()) - 1.0
  const tl::Tensor pow_148 = tl::pow(add_12, sub_147);  // pow, line 183: tl::pow(add_12, tl::scalar_tensor(1.5, add_12.dtype()) - 1.0)
  const tl::Tensor t_pow_148 = tl::broadcast_to_shape_of(t_add_12 * tl::where(sub_147.astype(pow_148.dtype()) == 0, 0.0, sub_147.astype(pow_148.dtype()) * tl::pow(add_12.astype(pow_148.dtype()), sub_147.astype(pow_148.dtype()) - 1.0)), pow_148);
  const tl::Tensor t_149 = tl::scalar_tensor(1.5, add_12.dtype());  // line 183: tl::scalar_tensor(1.5, add_12.dtype())
  const tl::Tensor mul_150 = t_149 * pow_148;  // mul, line 183: tl::scalar_tensor(1.5, add_12.dtype()) * tl::pow(add_12, tl::scalar_t...
  const tl::Tensor t_mul_150 = tl::broadcast_to_shape_of(t_pow_148 * t_149, mul_150);
  const tl::Tensor t_151 = tl::scalar_tensor(1.5, add_12.dtype());  // line 183: tl::scalar_tensor(1.5, add_12.dtype())
  const tl::Tensor t_152 = t_151 == 0;  // line 183: tl::scalar_tensor(1.5, add_12.dtype()) == 0
  const tl::Tensor where_153 = tl::where(t_152, 0.0, mul_150);  // where, line 183: tl::where(tl::scalar_tensor(1.5, add_12.dtype()) == 0, 0.0, tl::scala...
  const tl::Tensor t_where_153 = tl::broadcast_to_shape_of(tl::where(t_152, tl::zeros_like(where_153), t_mul_150), where_153);
  const tl::Tensor mul_154 = mul_142 * where_153;  // mul, line 183: d_pow_13 * tl::where(tl::scalar_tensor(1.5, add_12.dtype()) == 0, 0.0...
  const tl::Tensor t_mul_154 = tl::broadcast_to_shape_of(t_mul_142 * where_153 + t_where_153 * mul_142, mul_154);
  const tl::Tensor mul_155 = mul_154 * m;  // mul, line 187: d_mul_11 * m
  const tl::Tensor t_mul_155 = tl::broadcast_to_shape_of(t_mul_154 * m + t_m * mul_154, mul_155);
  const tl::Tensor add_156 = d_m_1 + mul_155;  // add, line 187: d_m + d_mul_11 * m
  const tl::Tensor t_add_156 = tl::broadcast_to_shape_of(t_d_m_1 + t_mul_155, add_156);
  const tl::Tensor mul_157 = mul_154 * m;  // mul, line 188: d_mul_11 * m
  const tl::Tensor t_mul_157 = tl::broadcast_to_shape_of(t_mul_154 * m + t_m * mul_154, mul_157);
  const tl::Tensor add_158 = add_156 + mul_157;  // add, line 188: d_m + d_mul_11 * m
  const tl::Tensor t_add_158 = tl::broadcast_to_shape_of(t_add_156 + t_mul_157, add_158);
  const tl::Tensor mul_159 = mul_145 * m;  // mul, line 192: d_mul_9 * m
  const tl::Tensor t_mul_159 = tl::broadcast_to_shape_of(t_mul_145 * m + t_m * mul_145, mul_159);
  const tl::Tensor add_160 = add_158 + mul_159;  // add, line 192: d_m + d_mul_9 * m
  const tl::Tensor t_add_160 = tl::broadcast_to_shape_of(t_add_158 + t_mul_159, add_160);
  const tl::Tensor mul_161 = mul_145 * m;  // mul, line 193: d_mul_9 * m
  const tl::Tensor t_mul_161 = tl::broadcast_to_shape_of(t_mul_145 * m + t_m * mul_145, mul_161);
  const tl::Tensor add_162 = add_160 + mul_161;  // add, line 193: d_m + d_mul_9 * m
  const tl::Tensor t_add_162 = tl::broadcast_to_shape_of(t_add_160 + t_mul_161, add_162);
  const tl::Tensor mul_163 = sum_backward_105 * sigmoid_6;  // mul, line 195: d_mul_8 * sigmoid_6
  const tl::Tensor t_mul_163 = tl::broadcast_to_shape_of(t_sigmoid_6 * sum_backward_105, mul_163);
  const tl::Tensor mul_164 = sum_backward_105 * maximum_7;  // mul, line 196: d_mul_8 * maximum_7
  const tl::Tensor t_mul_164 = tl::broadcast_to_shape_of(t_maximum_7 * sum_backward_105, mul_164);
  const tl::Tensor t_165 = 0.05 == maximum_7;  // line 198: 0.05 == maximum_7
  const tl::Tensor astype_166 = t_165.astype(maximum_7.dtype());  // astype, line 198: (0.05 == maximum_7).astype(maximum_7.dtype())
  const tl::Tensor t_167 = m == maximum_7;  // line 198: m == maximum_7
  const tl::Tensor astype_168 = t_167.astype(maximum_7.dtype());  // astype, line 198: (m == maximum_7).astype(maximum_7.dtype())
  const tl::Tensor mul_169 = 0.5 * astype_168;  // mul, line 198: 0.5 * (m == maximum_7).astype(maximum_7.dtype())
  const tl::Tensor mul_170 = mul_169 * astype_166;  // mul, line 198: 0.5 * (m == maximum_7).astype(maximum_7.dtype()) * (0.05 == maximum_7...
  const tl::Tensor t_171 = m == maximum_7;  // line 198: m == maximum_7
  const tl::Tensor astype_172 = t_171.astype(maximum_7.dtype());  // astype, line 198: (m == maximum_7).astype(maximum_7.dtype())
  const tl::Tensor sub_173 = astype_172 - mul_170;  // sub, line 198: (m == maximum_7).astype(maximum_7.dtype()) - 0.5 * (m == maximum_7).a...
  const tl::Tensor mul_174 = mul_163 * sub_173;  // mul, line 198: d_maximum_7 * ((m == maximum_7).astype(maximum_7.dtype()) - 0.5 * (m ...
  const tl::Tensor t_mul_174 = tl::broadcast_to_shape_of(t_mul_163 * sub_173, mul_174);
  const tl::Tensor add_175 = add_162 + mul_174;  // add, line 198: d_m + d_maximum_7 * ((m == maximum_7).astype(maximum_7.dtype()) - 0.5...
  const tl::Tensor t_add_175 = tl::broadcast_to_shape_of(t_add_162 + t_mul_174, add_175);
  const tl::Tensor sub_176 = 1.0 - sigmoid_6;  // sub, line 200: 1.0 - sigmoid_6
  const tl::Tensor t_sub_176 = -t_sigmoid_6;
  const tl::Tensor mul_177 = sigmoid_6 * sub_176;  // mul, line 200: sigmoid_6 * (1.0 - sigmoid_6)
  const tl::Tensor t_mul_177 = tl::broadcast_to_shape_of(t_sigmoid_6 * sub_176 + t_sub_176 * sigmoid_6, mul_177);
  const tl::Tensor mul_178 = mul_164 * mul_177;  // mul, line 200: d_sigmoid_6 * (sigmoid_6 * (1.0 - sigmoid_6))
  const tl::Tensor t_mul_178 = tl::broadcast_to_shape_of(t_mul_164 * mul_177 + t_mul_177 * mul_164, mul_178);
  const tl::Tensor add_179 = add_175 + mul_178;  // add, line 200: d_m + d_sigmoid_6 * (sigmoid_6 * (1.0 - sigmoid_6))
  const tl::Tensor t_add_179 = tl::broadcast_to_shape_of(t_add_175 + t_mul_178, add_179);
  const tl::Tensor mul_180 = h * h;  // mul, line 202: h * h
  const tl::Tensor t_mul_180 = tl::broadcast_to_shape_of(t_h * h + t_h * h, mul_180);
  const tl::Tensor sub_181 = 1.0 - mul_180;  // sub, line 202: 1.0 - h * h
  const tl::Tensor t_sub_181 = -t_mul_180;
  const tl::Tensor mul_182 = add_94 * sub_181;  // mul, line 202: d_h * (1.0 - h * h)
  const tl::Tensor t_mul_182 = tl::broadcast_to_shape_of(t_add_94 * sub_181 + t_sub_181 * add_94, mul_182);
  const tl::Tensor sum_to_shape_of_183 = tl::sum_to_shape_of(mul_182, matmul_3);  // sum_to_shape_of, line 204: tl::sum_to_shape_of(d_add_4, matmul_3)
  const tl::Tensor t_sum_to_shape_of_183 = tl::sum_to_shape_of(t_mul_182, matmul_3);
  const tl::Tensor matmul_backward_184 = tl::derivatives::matmul_backward(sum_to_shape_of_183, x, m, 1);  // matmul_backward, line 206: tl::derivatives::matmul_backward(d_matmul_3, x, m, 1)
  const tl::Tensor t_matmul_backward_184 = tl::derivatives::matmul_backward(t_sum_to_shape_of_183, x, m, 1);
  const tl::Tensor add_185 = add_179 + matmul_backward_184;  // add, line 206: d_m + tl::derivatives::matmul_backward(d_matmul_3, x, m, 1)
  const tl::Tensor t_add_185 = tl::broadcast_to_shape_of(t_add_179 + t_matmul_backward_184, add_185);
  return {add_185, t_add_185};
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
