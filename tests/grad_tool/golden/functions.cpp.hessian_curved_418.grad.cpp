// The derivative of the gradient of the lambda at functions.cpp:413 (functions.cpp.hessian_curved_418_gradient.grad.cpp) at `m` along `t_m` (forward mode),
// written by tlaloc-grad at build time: the function's own ops, then their
// tangents beside them (t_v is the derivative of v along t_m).
#include <tlaloc/tlaloc.hpp>
#include <tlaloc/derived_ops.hpp>

#include <cstddef>
#include <utility>
#include <vector>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"

namespace tlaloc_generated {
namespace tl = ::tlaloc;

inline std::pair<tl::Tensor, tl::Tensor> hessian_curved_418_gradient_jvp(const tl::Tensor& m, const tl::Tensor& x, const tl::Tensor& b, const double scale, const tl::Tensor& t_m) {
  const tl::Tensor matmul_3 = tl::matmul(x, m);  // matmul, line 18: tl::matmul(x, m)
  const tl::Tensor t_matmul_3 = tl::matmul(x, t_m);
  const tl::Tensor add_4 = matmul_3 + b;  // add, line 19: matmul_3 + b
  const tl::Tensor t_add_4 = tl::broadcast_to_shape_of(t_matmul_3, add_4);
  const tl::Tensor h = tl::tanh(add_4);  // tanh, line 20: tl::tanh(add_4)
  const tl::Tensor t_h = t_add_4 * (1.0 - h * h);
  const tl::Tensor sigmoid_6 = tl::sigmoid(m);  // sigmoid, line 21: tl::sigmoid(m)
  const tl::Tensor t_sigmoid_6 = t_m * (sigmoid_6 * (1.0 - sigmoid_6));
  const tl::Tensor maximum_7 = tl::maximum(m, 0.05);  // maximum, line 22: tl::maximum(m, 0.05)
  const tl::Tensor t_maximum_7 = t_m * ((m == maximum_7).astype(maximum_7.dtype()) - 0.5 * (m == maximum_7).astype(maximum_7.dtype()) * (0.05 == maximum_7).astype(maximum_7.dtype()));
  const tl::Tensor mul_8 = maximum_7 * sigmoid_6;  // mul, line 23: maximum_7 * sigmoid_6
  const tl::Tensor t_mul_8 = tl::broadcast_to_shape_of(t_maximum_7 * sigmoid_6 + t_sigmoid_6 * maximum_7, mul_8);
  const tl::Tensor mul_9 = m * m;  // mul, line 24: m * m
  const tl::Tensor t_mul_9 = tl::broadcast_to_shape_of(t_m * m + t_m * m, mul_9);
  const tl::Tensor add_10 = mul_9 + 2.0;  // add, line 25: mul_9 + 2.0
  const tl::Tensor t_add_10 = t_mul_9;
  const tl::Tensor mul_11 = m * m;  // mul, line 26: m * m
  const tl::Tensor t_mul_11 = tl::broadcast_to_shape_of(t_m * m + t_m * m, mul_11);
  const tl::Tensor add_12 = mul_11 + 1.0;  // add, line 27: mul_11 + 1.0
  const tl::Tensor t_add_12 = t_mul_11;
  const tl::Tensor pow_13 = tl::pow(add_12, 1.5);  // pow, line 28: tl::pow(add_12, 1.5)
  const tl::Tensor t_pow_13 = t_add_12 * tl::where(tl::scalar_tensor(1.5, pow_13.dtype()) == 0, 0.0, tl::scalar_tensor(1.5, pow_13.dtype()) * tl::pow(add_12, tl::scalar_tensor(1.5, pow_13.dtype()) - 1.0));
  const tl::Tensor div_14 = pow_13 / add_10;  // div, line 29: pow_13 / add_10
  const tl::Tensor t_div_14 = tl::broadcast_to_shape_of(t_pow_13 * tl::reciprocal(add_10) + t_add_10 * -(div_14 / add_10), div_14);
  const tl::Tensor r = div_14 + mul_8;  // add, line 30: div_14 + mul_8
  const tl::Tensor t_r = tl::broadcast_to_shape_of(t_div_14 + t_mul_8, r);
  const int64_t log_softmax_axis = -1;
  const tl::Tensor mul_16 = m * 2.0;  // mul, line 32: m * 2.0
  const tl::Tensor t_mul_16 = t_m * 2.0;
  const int64_t log_softmax_a = ::tlaloc::detail::row_axis("log_softmax", log_softmax_axis, mul_16.rank());
  const tl::Tensor xf = mul_16.astype(::tlaloc::detail::floating_dtype(mul_16.dtype()));  // astype, line 34: mul_16.astype(::tlaloc::detail::floating_dtype(mul_16.dtype()))
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
  cond_0 = u_cond_0;  // line 39
  if (cond_0) {
    xf_1_1 = xf;
    t_xf_1_1 = t_xf;
    reshape_18_1 = tl::Tensor();
    t_reshape_18_1 = tl::Tensor();
  } else {
    reshape_20 = tl::reshape(xf, {1});  // reshape, line 42: tl::reshape(xf, {1})
    t_reshape_20 = tl::reshape(t_xf, {1});
    xf_1_1 = reshape_20;
    t_xf_1_1 = t_reshape_20;
    reshape_18_1 = reshape_20;
    t_reshape_18_1 = t_reshape_20;
  }
  const tl::Tensor max_20 = tl::max(xf_1_1, log_softmax_a, true);  // max, line 45: tl::max(xf_1, log_softmax_a, true)
  const tl::Tensor t_max_20 = tl::extreme_jvp(t_xf_1_1, xf_1_1, max_20, log_softmax_a, true);
  const tl::Tensor u_t_21 = tl::stop_gradient(max_20);  // line 46: tl::stop_gradient(max_20)
  const tl::Tensor shifted = xf_1_1 - u_t_21;  // sub, line 47: xf_1 - t_21
  const tl::Tensor t_shifted = tl::broadcast_to_shape_of(t_xf_1_1, shifted);
  const tl::Tensor exp_23 = tl::exp(shifted);  // exp, line 48: tl::exp(shifted)
  const tl::Tensor t_exp_23 = t_shifted * exp_23;
  const tl::Tensor sum_24 = tl::sum(exp_23, log_softmax_a, true);  // sum, line 49: tl::sum(exp_23, log_softmax_a, true)
  const tl::Tensor t_sum_24 = tl::sum(t_exp_23, log_softmax_a, true);
  const tl::Tensor log_25 = tl::log(sum_24);  // log, line 50: tl::log(sum_24)
  const tl::Tensor t_log_25 = t_sum_24 * tl::reciprocal(sum_24);
  const tl::Tensor sub_26 = shifted - log_25;  // sub, line 51: shifted - log_25
  const tl::Tensor t_sub_26 = tl::broadcast_to_shape_of(t_shifted - t_log_25, sub_26);
  const tl::Tensor reshape_27 = tl::reshape(sub_26, mul_16.shape());  // reshape, line 52: tl::reshape(sub_26, mul_16.shape())
  const tl::Tensor t_reshape_27 = tl::reshape(t_sub_26, mul_16.shape());
  const tl::Tensor sum_28 = tl::sum(reshape_27);  // sum, line 53: tl::sum(reshape_27)
  const tl::Tensor t_sum_28 = tl::sum(t_reshape_27);
  const tl::Tensor sum_29 = tl::sum(r);  // sum, line 54: tl::sum(r)
  const tl::Tensor t_sum_29 = tl::sum(t_r);
  const bool mean_keepdims = false;
  const tlaloc::Axes mean_axes = {};
  const tl::Tensor mul_30 = m * 0.5;  // mul, line 57: m * 0.5
  const tl::Tensor t_mul_30 = t_m * 0.5;
  const tl::Tensor exp_31 = tl::exp(mul_30);  // exp, line 58: tl::exp(mul_30)
  const tl::Tensor t_exp_31 = t_mul_30 * exp_31;
  const int64_t mean_n = ::tlaloc::detail::reduced_count("mean", exp_31.shape(), mean_axes);
  const tl::Tensor astype_32 = exp_31.astype(::tlaloc::stats_dtype(exp_31.dtype()));  // astype, line 60: exp_31.astype(::tlaloc::stats_dtype(exp_31.dtype()))
  const tl::Tensor t_astype_32 = t_exp_31.astype(::tlaloc::stats_dtype(exp_31.dtype()));
  const tl::Tensor sum_33 = tl::sum(astype_32, mean_axes, mean_keepdims);  // sum, line 61: tl::sum(astype_32, mean_axes, mean_keepdims)
  const tl::Tensor t_sum_33 = tl::sum(t_astype_32, mean_axes, mean_keepdims);
  const tl::Tensor div_34 = sum_33 / double(mean_n);  // div, line 62: sum_33 / double(mean_n)
  const tl::Tensor t_div_34 = t_sum_33 * tl::reciprocal(tl::scalar_tensor(double(mean_n), div_34.dtype()));
  const tl::Tensor astype_35 = div_34.astype(::tlaloc::detail::floating_dtype(exp_31.dtype()));  // astype, line 63: div_34.astype(::tlaloc::detail::floating_dtype(exp_31.dtype()))
  const tl::Tensor t_astype_35 = t_div_34.astype(::tlaloc::detail::floating_dtype(exp_31.dtype()));
  const tl::Tensor mul_36 = h * h;  // mul, line 64: h * h
  const tl::Tensor t_mul_36 = tl::broadcast_to_shape_of(t_h * h + t_h * h, mul_36);
  const tl::Tensor sum_37 = tl::sum(mul_36);  // sum, line 65: tl::sum(mul_36)
  const tl::Tensor t_sum_37 = tl::sum(t_mul_36);
  const tl::Tensor mul_38 = sum_37 * scale;  // mul, line 66: sum_37 * scale
  const tl::Tensor t_mul_38 = t_sum_37 * scale;
  const tl::Tensor add_39 = mul_38 + astype_35;  // add, line 67: mul_38 + astype_35
  const tl::Tensor t_add_39 = tl::broadcast_to_shape_of(t_mul_38 + t_astype_35, add_39);
  const tl::Tensor add_40 = add_39 + sum_29;  // add, line 68: add_39 + sum_29
  const tl::Tensor t_add_40 = tl::broadcast_to_shape_of(t_add_39 + t_sum_29, add_40);
  const tl::Tensor sub_41 = add_40 - sum_28;  // sub, line 69: add_40 - sum_28
  const tl::Tensor t_sub_41 = tl::broadcast_to_shape_of(t_add_40 - t_sum_28, sub_41);
  if (sub_41.rank() != 0) throw tl::ValueError("tlaloc-grad: the lambda at functions.cpp:413 must return a scalar, got " + tl::shape_string(sub_41.shape()));
  const tl::Tensor t_83 = tl::scalar_tensor(1, sub_41.dtype());  // line 113: tl::scalar_tensor(1, sub_41.dtype())
  const tl::Tensor sum_to_shape_of_84 = tl::sum_to_shape_of(t_83, add_40);  // sum_to_shape_of, line 115: tl::sum_to_shape_of(d_sub_41, add_40)
  const tl::Tensor neg_85 = -t_83;  // neg, line 116: -d_sub_41
  const tl::Tensor sum_to_shape_of_86 = tl::sum_to_shape_of(neg_85, sum_28);  // sum_to_shape_of, line 116: tl::sum_to_shape_of(-d_sub_41, sum_28)
  const tl::Tensor sum_to_shape_of_87 = tl::sum_to_shape_of(sum_to_shape_of_84, add_39);  // sum_to_shape_of, line 118: tl::sum_to_shape_of(d_add_40, add_39)
  const tl::Tensor sum_to_shape_of_88 = tl::sum_to_shape_of(sum_to_shape_of_84, sum_29);  // sum_to_shape_of, line 119: tl::sum_to_shape_of(d_add_40, sum_29)
  const tl::Tensor sum_to_shape_of_89 = tl::sum_to_shape_of(sum_to_shape_of_87, mul_38);  // sum_to_shape_of, line 121: tl::sum_to_shape_of(d_add_39, mul_38)
  const tl::Tensor sum_to_shape_of_90 = tl::sum_to_shape_of(sum_to_shape_of_87, astype_35);  // sum_to_shape_of, line 122: tl::sum_to_shape_of(d_add_39, astype_35)
  const tl::Tensor mul_91 = sum_to_shape_of_89 * scale;  // mul, line 124: d_mul_38 * scale
  const tl::Tensor broadcast_to_92 = tl::broadcast_to(mul_91, mul_36.shape());  // broadcast_to, line 126: tl::broadcast_to(d_sum_37, mul_36.shape())
  const tl::Tensor mul_93 = broadcast_to_92 * h;  // mul, line 128: d_mul_36 * h
  const tl::Tensor t_mul_93 = tl::broadcast_to_shape_of(t_h * broadcast_to_92, mul_93);
  const tl::Tensor sum_to_shape_of_94 = tl::sum_to_shape_of(mul_93, h);  // sum_to_shape_of, line 128: tl::sum_to_shape_of(d_mul_36 * h, h)
  const tl::Tensor t_sum_to_shape_of_94 = tl::sum_to_shape_of(t_mul_93, h);
  const tl::Tensor mul_95 = broadcast_to_92 * h;  // mul, line 129: d_mul_36 * h
  const tl::Tensor t_mul_95 = tl::broadcast_to_shape_of(t_h * broadcast_to_92, mul_95);
  const tl::Tensor sum_to_shape_of_96 = tl::sum_to_shape_of(mul_95, h);  // sum_to_shape_of, line 129: tl::sum_to_shape_of(d_mul_36 * h, h)
  const tl::Tensor t_sum_to_shape_of_96 = tl::sum_to_shape_of(t_mul_95, h);
  const tl::Tensor add_97 = sum_to_shape_of_94 + sum_to_shape_of_96;  // add, line 129: d_h + (tl::sum_to_shape_of(d_mul_36 * h, h))
  const tl::Tensor t_add_97 = tl::broadcast_to_shape_of(t_sum_to_shape_of_94 + t_sum_to_shape_of_96, add_97);
  const tl::Tensor astype_98 = sum_to_shape_of_90.astype(div_34.dtype());  // astype, line 131: d_astype_35.astype(div_34.dtype())
  const tl::Tensor t_99 = tl::scalar_tensor(double(mean_n), div_34.dtype());  // line 133: tl::scalar_tensor(double(mean_n), div_34.dtype())
  const tl::Tensor reciprocal_100 = tl::reciprocal(t_99);  // reciprocal, line 133: tl::reciprocal(tl::scalar_tensor(double(mean_n), div_34.dtype()))
  const tl::Tensor mul_101 = astype_98 * reciprocal_100;  // mul, line 133: d_div_34 * tl::reciprocal(tl::scalar_tensor(double(mean_n), div_34.dt...
  const tl::Tensor sum_backward_102 = tl::sum_backward(mul_101, astype_32.shape(), mean_axes, mean_keepdims);  // sum_backward, line 135: tl::sum_backward(d_sum_33, astype_32.shape(), mean_axes, mean_keepdims)
  const tl::Tensor astype_103 = sum_backward_102.astype(exp_31.dtype());  // astype, line 137: d_astype_32.astype(exp_31.dtype())
  const tl::Tensor mul_104 = astype_103 * exp_31;  // mul, line 139: d_exp_31 * exp_31
  const tl::Tensor t_mul_104 = tl::broadcast_to_shape_of(t_exp_31 * astype_103, mul_104);
  const tl::Tensor mul_105 = mul_104 * 0.5;  // mul, line 141: d_mul_30 * 0.5
  const tl::Tensor t_mul_105 = t_mul_104 * 0.5;
  const tl::Tensor broadcast_to_106 = tl::broadcast_to(sum_to_shape_of_88, r.shape());  // broadcast_to, line 143: tl::broadcast_to(d_sum_29, r.shape())
  const tl::Tensor broadcast_to_107 = tl::broadcast_to(sum_to_shape_of_86, reshape_27.shape());  // broadcast_to, line 145: tl::broadcast_to(d_sum_28, reshape_27.shape())
  const tl::Tensor reshape_108 = tl::reshape(broadcast_to_107, sub_26.shape());  // reshape, line 147: tl::reshape(d_reshape_27, sub_26.shape())
  const tl::Tensor sum_to_shape_of_109 = tl::sum_to_shape_of(reshape_108, shifted);  // sum_to_shape_of, line 149: tl::sum_to_shape_of(d_sub_26, shifted)
  const tl::Tensor neg_110 = -reshape_108;  // neg, line 150: -d_sub_26
  const tl::Tensor sum_to_shape_of_111 = tl::sum_to_shape_of(neg_110, log_25);  // sum_to_shape_of, line 150: tl::sum_to_shape_of(-d_sub_26, log_25)
  const tl::Tensor reciprocal_112 = tl::reciprocal(sum_24);  // reciprocal, line 152: tl::reciprocal(sum_24)
  const tl::Tensor t_reciprocal_112 = t_sum_24 * -(reciprocal_112 * reciprocal_112);
  const tl::Tensor mul_113 = sum_to_shape_of_111 * reciprocal_112;  // mul, line 152: d_log_25 * tl::reciprocal(sum_24)
  const tl::Tensor t_mul_113 = tl::broadcast_to_shape_of(t_reciprocal_112 * sum_to_shape_of_111, mul_113);
  const tl::Tensor sum_backward_114 = tl::sum_backward(mul_113, exp_23.shape(), log_softmax_a, true);  // sum_backward, line 154: tl::sum_backward(d_sum_24, exp_23.shape(), log_softmax_a, true)
  const tl::Tensor t_sum_backward_114 = tl::sum_backward(t_mul_113, exp_23.shape(), log_softmax_a, true);
  const tl::Tensor mul_115 = sum_backward_114 * exp_23;  // mul, line 156: d_exp_23 * exp_23
  const tl::Tensor t_mul_115 = tl::broadcast_to_shape_of(t_sum_backward_114 * exp_23 + t_exp_23 * sum_backward_114, mul_115);
  const tl::Tensor add_116 = sum_to_shape_of_109 + mul_115;  // add, line 156: d_shifted + (d_exp_23 * exp_23)
  const tl::Tensor t_add_116 = tl::broadcast_to_shape_of(t_mul_115, add_116);
  const tl::Tensor sum_to_shape_of_117 = tl::sum_to_shape_of(add_116, xf_1_1);  // sum_to_shape_of, line 158: tl::sum_to_shape_of(d_shifted, xf_1)
  const tl::Tensor t_sum_to_shape_of_117 = tl::sum_to_shape_of(t_add_116, xf_1_1);
  tl::Tensor d_xf_4;
  tl::Tensor t_d_xf_4;
  tl::Tensor select;
  tl::Tensor t_select;
  tl::Tensor d_reshape_18_1;
  tl::Tensor add_120;
  tl::Tensor t_add_120;
  tl::Tensor d_xf_2;
  tl::Tensor t_d_xf_2;
  tl::Tensor d_reshape_18_apart_1;
  tl::Tensor t_d_reshape_18_apart_1;
  tl::Tensor d_xf_3;
  tl::Tensor t_d_xf_3;
  tl::Tensor select_1;
  tl::Tensor t_select_1;
  tl::Tensor d_reshape_18_2;
  tl::Tensor t_d_reshape_18_2;
  tl::Tensor reshape_125;
  tl::Tensor t_reshape_125;
  tl::Tensor add_126;
  tl::Tensor t_add_126;
  tl::Tensor d_reshape_18_3;
  tl::Tensor t_d_reshape_18_3;
  tl::Tensor reshape_128;
  tl::Tensor t_reshape_128;
  bool cond_1 = false;
  bool cond_2 = false;
  bool cond_3 = false;
  bool cond_4 = false;
  bool cond_5 = false;
  bool cond_6 = false;
  bool cond_7 = false;
  bool cond_8 = false;
  cond_1 = u_cond_0;  // line 159
  if (cond_1) {
    d_xf_4 = sum_to_shape_of_117;
    t_d_xf_4 = t_sum_to_shape_of_117;
  } else {
    [[maybe_unused]] const bool which_d_reshape_18 = reshape_18_1.is_same(xf);
    cond_2 = (which_d_reshape_18 ? tl::Tensor() : tl::Tensor()).defined();  // line 164
    if (cond_2) {
      cond_3 = which_d_reshape_18;  // line 164
      if (cond_3) {
        d_reshape_18_1 = tl::Tensor();
      } else {
        d_reshape_18_1 = tl::Tensor();
      }
      add_120 = d_reshape_18_1 + sum_to_shape_of_117;  // add, line 164: d_reshape_18 + d_xf_1
      t_add_120 = tl::broadcast_to_shape_of(t_sum_to_shape_of_117, add_120);
      select = add_120;
      t_select = t_add_120;
    } else {
      select = sum_to_shape_of_117;
      t_select = t_sum_to_shape_of_117;
    }
    cond_4 = which_d_reshape_18;  // line 164
    if (cond_4) {
      d_xf_2 = select;
      t_d_xf_2 = t_select;
      d_reshape_18_apart_1 = tl::Tensor();
      t_d_reshape_18_apart_1 = tl::Tensor();
    } else {
      d_xf_2 = tl::Tensor();
      t_d_xf_2 = tl::Tensor();
      d_reshape_18_apart_1 = select;
      t_d_reshape_18_apart_1 = t_select;
    }
    cond_5 = !reshape_18_1.is_same(xf);  // line 165
    if (cond_5) {
      cond_6 = d_xf_2.defined();  // line 167
      if (cond_6) {
        cond_7 = which_d_reshape_18;  // line 167
        if (cond_7) {
          d_reshape_18_2 = d_xf_2;
          t_d_reshape_18_2 = t_d_xf_2;
        } else {
          d_reshape_18_2 = d_reshape_18_apart_1;
          t_d_reshape_18_2 = t_d_reshape_18_apart_1;
        }
        reshape_125 = tl::reshape(d_reshape_18_2, xf.shape());  // reshape, line 167: tl::reshape(d_reshape_18, xf.shape())
        t_reshape_125 = tl::reshape(t_d_reshape_18_2, xf.shape());
        add_126 = d_xf_2 + reshape_125;  // add, line 167: d_xf + (tl::reshape(d_reshape_18, xf.shape()))
        t_add_126 = tl::broadcast_to_shape_of(t_d_xf_2 + t_reshape_125, add_126);
        select_1 = add_126;
        t_select_1 = t_add_126;
      } else {
        cond_8 = which_d_reshape_18;  // line 167
        if (cond_8) {
          d_reshape_18_3 = d_xf_2;
          t_d_reshape_18_3 = t_d_xf_2;
        } else {
          d_reshape_18_3 = d_reshape_18_apart_1;
          t_d_reshape_18_3 = t_d_reshape_18_apart_1;
        }
        reshape_128 = tl::reshape(d_reshape_18_3, xf.shape());  // reshape, line 167: tl::reshape(d_reshape_18, xf.shape())
        t_reshape_128 = tl::reshape(t_d_reshape_18_3, xf.shape());
        select_1 = reshape_128;
        t_select_1 = t_reshape_128;
      }
      d_xf_3 = select_1;
      t_d_xf_3 = t_select_1;
    } else {
      d_xf_3 = d_xf_2;
      t_d_xf_3 = t_d_xf_2;
    }
    d_xf_4 = d_xf_3;
    t_d_xf_4 = t_d_xf_3;
  }
  tl::Tensor d_mul_16_1;
  tl::Tensor t_d_mul_16_1;
  tl::Tensor astype_132;
  tl::Tensor t_astype_132;
  bool cond_9 = false;
  cond_9 = d_xf_4.defined();  // line 170
  if (cond_9) {
    astype_132 = d_xf_4.astype(mul_16.dtype());  // astype, line 172: d_xf.astype(mul_16.dtype())
    t_astype_132 = t_d_xf_4.astype(mul_16.dtype());
    d_mul_16_1 = astype_132;
    t_d_mul_16_1 = t_astype_132;
  } else {
    d_mul_16_1 = tl::Tensor();
    t_d_mul_16_1 = tl::Tensor();
  }
  tl::Tensor d_m_1;
  tl::Tensor t_d_m_1;
  tl::Tensor mul_134;
  tl::Tensor t_mul_134;
  tl::Tensor add_135;
  tl::Tensor t_add_135;
  bool cond_10 = false;
  cond_10 = d_mul_16_1.defined();  // line 174
  if (cond_10) {
    mul_134 = d_mul_16_1 * 2.0;  // mul, line 176: d_mul_16 * 2.0
    t_mul_134 = t_d_mul_16_1 * 2.0;
    add_135 = mul_105 + mul_134;  // add, line 176: d_m + (d_mul_16 * 2.0)
    t_add_135 = tl::broadcast_to_shape_of(t_mul_105 + t_mul_134, add_135);
    d_m_1 = add_135;
    t_d_m_1 = t_add_135;
  } else {
    d_m_1 = mul_105;
    t_d_m_1 = t_mul_105;
  }
  const tl::Tensor sum_to_shape_of_137 = tl::sum_to_shape_of(broadcast_to_106, div_14);  // sum_to_shape_of, line 179: tl::sum_to_shape_of(d_r, div_14)
  const tl::Tensor sum_to_shape_of_138 = tl::sum_to_shape_of(broadcast_to_106, mul_8);  // sum_to_shape_of, line 180: tl::sum_to_shape_of(d_r, mul_8)
  const tl::Tensor reciprocal_139 = tl::reciprocal(add_10);  // reciprocal, line 182: tl::reciprocal(add_10)
  const tl::Tensor t_reciprocal_139 = t_add_10 * -(reciprocal_139 * reciprocal_139);
  const tl::Tensor mul_140 = sum_to_shape_of_137 * reciprocal_139;  // mul, line 182: d_div_14 * tl::reciprocal(add_10)
  const tl::Tensor t_mul_140 = tl::broadcast_to_shape_of(t_reciprocal_139 * sum_to_shape_of_137, mul_140);
  const tl::Tensor sum_to_shape_of_141 = tl::sum_to_shape_of(mul_140, pow_13);  // sum_to_shape_of, line 182: tl::sum_to_shape_of(d_div_14 * tl::reciprocal(add_10), pow_13)
  const tl::Tensor t_sum_to_shape_of_141 = tl::sum_to_shape_of(t_mul_140, pow_13);
  const tl::Tensor div_142 = div_14 / add_10;  // div, line 183: div_14 / add_10
  const tl::Tensor t_div_142 = tl::broadcast_to_shape_of(t_div_14 * tl::reciprocal(add_10) + t_add_10 * -(div_142 / add_10), div_142);
  const tl::Tensor neg_143 = -div_142;  // neg, line 183: -(div_14 / add_10)
  const tl::Tensor t_neg_143 = -t_div_142;
  const tl::Tensor mul_144 = sum_to_shape_of_137 * neg_143;  // mul, line 183: d_div_14 * -(div_14 / add_10)
  const tl::Tensor t_mul_144 = tl::broadcast_to_shape_of(t_neg_143 * sum_to_shape_of_137, mul_144);
  const tl::Tensor sum_to_shape_of_145 = tl::sum_to_shape_of(mul_144, add_10);  // sum_to_shape_of, line 183: tl::sum_to_shape_of(d_div_14 * -(div_14 / add_10), add_10)
  const tl::Tensor t_sum_to_shape_of_145 = tl::sum_to_shape_of(t_mul_144, add_10);
  const tl::Tensor t_146 = tl::scalar_tensor(1.5, pow_13.dtype());  // line 185: tl::scalar_tensor(1.5, pow_13.dtype())
  const tl::Tensor sub_147 = t_146 - 1.0;  // sub, line 185: tl::scalar_tensor(1.5, pow_13.dtype()) - 1.0
  const tl::Tensor pow_148 = tl::pow(add_12, sub_147);  // pow, line 185: tl::pow(add_12, tl::scalar_tensor(1.5, pow_13.dtype()) - 1.0)
  const tl::Tensor t_pow_148 = tl::broadcast_to_shape_of(t_add_12 * tl::where(sub_147.astype(pow_148.dtype()) == 0, 0.0, sub_147.astype(pow_148.dtype()) * tl::pow(add_12.astype(pow_148.dtype()), sub_147.astype(pow_148.dtype()) - 1.0)), pow_148);
  const tl::Tensor t_149 = tl::scalar_tensor(1.5, pow_13.dtype());  // line 185: tl::scalar_tensor(1.5, pow_13.dtype())
  const tl::Tensor mul_150 = t_149 * pow_148;  // mul, line 185: tl::scalar_tensor(1.5, pow_13.dtype()) * tl::pow(add_12, tl::scalar_t...
  const tl::Tensor t_mul_150 = tl::broadcast_to_shape_of(t_pow_148 * t_149, mul_150);
  const tl::Tensor t_151 = tl::scalar_tensor(1.5, pow_13.dtype());  // line 185: tl::scalar_tensor(1.5, pow_13.dtype())
  const tl::Tensor t_152 = t_151 == 0;  // line 185: tl::scalar_tensor(1.5, pow_13.dtype()) == 0
  const tl::Tensor where_153 = tl::where(t_152, 0.0, mul_150);  // where, line 185: tl::where(tl::scalar_tensor(1.5, pow_13.dtype()) == 0, 0.0, tl::scala...
  const tl::Tensor t_where_153 = tl::broadcast_to_shape_of(tl::where(t_152, tl::zeros_like(where_153), t_mul_150), where_153);
  const tl::Tensor mul_154 = sum_to_shape_of_141 * where_153;  // mul, line 185: d_pow_13 * tl::where(tl::scalar_tensor(1.5, pow_13.dtype()) == 0, 0.0...
  const tl::Tensor t_mul_154 = tl::broadcast_to_shape_of(t_sum_to_shape_of_141 * where_153 + t_where_153 * sum_to_shape_of_141, mul_154);
  const tl::Tensor mul_155 = mul_154 * m;  // mul, line 189: d_mul_11 * m
  const tl::Tensor t_mul_155 = tl::broadcast_to_shape_of(t_mul_154 * m + t_m * mul_154, mul_155);
  const tl::Tensor sum_to_shape_of_156 = tl::sum_to_shape_of(mul_155, m);  // sum_to_shape_of, line 189: tl::sum_to_shape_of(d_mul_11 * m, m)
  const tl::Tensor t_sum_to_shape_of_156 = tl::sum_to_shape_of(t_mul_155, m);
  const tl::Tensor add_157 = d_m_1 + sum_to_shape_of_156;  // add, line 189: d_m + (tl::sum_to_shape_of(d_mul_11 * m, m))
  const tl::Tensor t_add_157 = tl::broadcast_to_shape_of(t_d_m_1 + t_sum_to_shape_of_156, add_157);
  const tl::Tensor mul_158 = mul_154 * m;  // mul, line 190: d_mul_11 * m
  const tl::Tensor t_mul_158 = tl::broadcast_to_shape_of(t_mul_154 * m + t_m * mul_154, mul_158);
  const tl::Tensor sum_to_shape_of_159 = tl::sum_to_shape_of(mul_158, m);  // sum_to_shape_of, line 190: tl::sum_to_shape_of(d_mul_11 * m, m)
  const tl::Tensor t_sum_to_shape_of_159 = tl::sum_to_shape_of(t_mul_158, m);
  const tl::Tensor add_160 = add_157 + sum_to_shape_of_159;  // add, line 190: d_m + (tl::sum_to_shape_of(d_mul_11 * m, m))
  const tl::Tensor t_add_160 = tl::broadcast_to_shape_of(t_add_157 + t_sum_to_shape_of_159, add_160);
  const tl::Tensor mul_161 = sum_to_shape_of_145 * m;  // mul, line 194: d_mul_9 * m
  const tl::Tensor t_mul_161 = tl::broadcast_to_shape_of(t_sum_to_shape_of_145 * m + t_m * sum_to_shape_of_145, mul_161);
  const tl::Tensor sum_to_shape_of_162 = tl::sum_to_shape_of(mul_161, m);  // sum_to_shape_of, line 194: tl::sum_to_shape_of(d_mul_9 * m, m)
  const tl::Tensor t_sum_to_shape_of_162 = tl::sum_to_shape_of(t_mul_161, m);
  const tl::Tensor add_163 = add_160 + sum_to_shape_of_162;  // add, line 194: d_m + (tl::sum_to_shape_of(d_mul_9 * m, m))
  const tl::Tensor t_add_163 = tl::broadcast_to_shape_of(t_add_160 + t_sum_to_shape_of_162, add_163);
  const tl::Tensor mul_164 = sum_to_shape_of_145 * m;  // mul, line 195: d_mul_9 * m
  const tl::Tensor t_mul_164 = tl::broadcast_to_shape_of(t_sum_to_shape_of_145 * m + t_m * sum_to_shape_of_145, mul_164);
  const tl::Tensor sum_to_shape_of_165 = tl::sum_to_shape_of(mul_164, m);  // sum_to_shape_of, line 195: tl::sum_to_shape_of(d_mul_9 * m, m)
  const tl::Tensor t_sum_to_shape_of_165 = tl::sum_to_shape_of(t_mul_164, m);
  const tl::Tensor add_166 = add_163 + sum_to_shape_of_165;  // add, line 195: d_m + (tl::sum_to_shape_of(d_mul_9 * m, m))
  const tl::Tensor t_add_166 = tl::broadcast_to_shape_of(t_add_163 + t_sum_to_shape_of_165, add_166);
  const tl::Tensor mul_167 = sum_to_shape_of_138 * sigmoid_6;  // mul, line 197: d_mul_8 * sigmoid_6
  const tl::Tensor t_mul_167 = tl::broadcast_to_shape_of(t_sigmoid_6 * sum_to_shape_of_138, mul_167);
  const tl::Tensor sum_to_shape_of_168 = tl::sum_to_shape_of(mul_167, maximum_7);  // sum_to_shape_of, line 197: tl::sum_to_shape_of(d_mul_8 * sigmoid_6, maximum_7)
  const tl::Tensor t_sum_to_shape_of_168 = tl::sum_to_shape_of(t_mul_167, maximum_7);
  const tl::Tensor mul_169 = sum_to_shape_of_138 * maximum_7;  // mul, line 198: d_mul_8 * maximum_7
  const tl::Tensor t_mul_169 = tl::broadcast_to_shape_of(t_maximum_7 * sum_to_shape_of_138, mul_169);
  const tl::Tensor sum_to_shape_of_170 = tl::sum_to_shape_of(mul_169, sigmoid_6);  // sum_to_shape_of, line 198: tl::sum_to_shape_of(d_mul_8 * maximum_7, sigmoid_6)
  const tl::Tensor t_sum_to_shape_of_170 = tl::sum_to_shape_of(t_mul_169, sigmoid_6);
  const tl::Tensor t_171 = 0.05 == maximum_7;  // line 200: 0.05 == maximum_7
  const tl::Tensor astype_172 = t_171.astype(maximum_7.dtype());  // astype, line 200: (0.05 == maximum_7).astype(maximum_7.dtype())
  const tl::Tensor t_173 = m == maximum_7;  // line 200: m == maximum_7
  const tl::Tensor astype_174 = t_173.astype(maximum_7.dtype());  // astype, line 200: (m == maximum_7).astype(maximum_7.dtype())
  const tl::Tensor mul_175 = 0.5 * astype_174;  // mul, line 200: 0.5 * (m == maximum_7).astype(maximum_7.dtype())
  const tl::Tensor mul_176 = mul_175 * astype_172;  // mul, line 200: 0.5 * (m == maximum_7).astype(maximum_7.dtype()) * (0.05 == maximum_7...
  const tl::Tensor t_177 = m == maximum_7;  // line 200: m == maximum_7
  const tl::Tensor astype_178 = t_177.astype(maximum_7.dtype());  // astype, line 200: (m == maximum_7).astype(maximum_7.dtype())
  const tl::Tensor sub_179 = astype_178 - mul_176;  // sub, line 200: (m == maximum_7).astype(maximum_7.dtype()) - 0.5 * (m == maximum_7).a...
  const tl::Tensor mul_180 = sum_to_shape_of_168 * sub_179;  // mul, line 200: d_maximum_7 * ((m == maximum_7).astype(maximum_7.dtype()) - 0.5 * (m ...
  const tl::Tensor t_mul_180 = tl::broadcast_to_shape_of(t_sum_to_shape_of_168 * sub_179, mul_180);
  const tl::Tensor add_181 = add_166 + mul_180;  // add, line 200: d_m + (d_maximum_7 * ((m == maximum_7).astype(maximum_7.dtype()) - 0....
  const tl::Tensor t_add_181 = tl::broadcast_to_shape_of(t_add_166 + t_mul_180, add_181);
  const tl::Tensor sub_182 = 1.0 - sigmoid_6;  // sub, line 202: 1.0 - sigmoid_6
  const tl::Tensor t_sub_182 = -t_sigmoid_6;
  const tl::Tensor mul_183 = sigmoid_6 * sub_182;  // mul, line 202: sigmoid_6 * (1.0 - sigmoid_6)
  const tl::Tensor t_mul_183 = tl::broadcast_to_shape_of(t_sigmoid_6 * sub_182 + t_sub_182 * sigmoid_6, mul_183);
  const tl::Tensor mul_184 = sum_to_shape_of_170 * mul_183;  // mul, line 202: d_sigmoid_6 * (sigmoid_6 * (1.0 - sigmoid_6))
  const tl::Tensor t_mul_184 = tl::broadcast_to_shape_of(t_sum_to_shape_of_170 * mul_183 + t_mul_183 * sum_to_shape_of_170, mul_184);
  const tl::Tensor add_185 = add_181 + mul_184;  // add, line 202: d_m + (d_sigmoid_6 * (sigmoid_6 * (1.0 - sigmoid_6)))
  const tl::Tensor t_add_185 = tl::broadcast_to_shape_of(t_add_181 + t_mul_184, add_185);
  const tl::Tensor mul_186 = h * h;  // mul, line 204: h * h
  const tl::Tensor t_mul_186 = tl::broadcast_to_shape_of(t_h * h + t_h * h, mul_186);
  const tl::Tensor sub_187 = 1.0 - mul_186;  // sub, line 204: 1.0 - h * h
  const tl::Tensor t_sub_187 = -t_mul_186;
  const tl::Tensor mul_188 = add_97 * sub_187;  // mul, line 204: d_h * (1.0 - h * h)
  const tl::Tensor t_mul_188 = tl::broadcast_to_shape_of(t_add_97 * sub_187 + t_sub_187 * add_97, mul_188);
  const tl::Tensor sum_to_shape_of_189 = tl::sum_to_shape_of(mul_188, matmul_3);  // sum_to_shape_of, line 206: tl::sum_to_shape_of(d_add_4, matmul_3)
  const tl::Tensor t_sum_to_shape_of_189 = tl::sum_to_shape_of(t_mul_188, matmul_3);
  const tl::Tensor matmul_backward_190 = tl::matmul_backward(sum_to_shape_of_189, x, m, 1);  // matmul_backward, line 208: tl::matmul_backward(d_matmul_3, x, m, 1)
  const tl::Tensor t_matmul_backward_190 = tl::matmul_backward(t_sum_to_shape_of_189, x, m, 1);
  const tl::Tensor add_191 = add_185 + matmul_backward_190;  // add, line 208: d_m + (tl::matmul_backward(d_matmul_3, x, m, 1))
  const tl::Tensor t_add_191 = tl::broadcast_to_shape_of(t_add_185 + t_matmul_backward_190, add_191);
  return {add_191, t_add_191};
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
