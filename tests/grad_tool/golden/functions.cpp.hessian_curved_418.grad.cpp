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
  const tl::Tensor t_add_4 = tl::broadcast_to(t_matmul_3, add_4.shape());
  const tl::Tensor h = tl::tanh(add_4);  // tanh, line 20: tl::tanh(add_4)
  const tl::Tensor t_h = t_add_4 * (1.0 - h * h);
  const tl::Tensor sigmoid_6 = tl::sigmoid(m);  // sigmoid, line 21: tl::sigmoid(m)
  const tl::Tensor t_sigmoid_6 = t_m * (sigmoid_6 * (1.0 - sigmoid_6));
  const tl::Tensor maximum_7 = tl::maximum(m, 0.05);  // maximum, line 22: tl::maximum(m, 0.05)
  const tl::Tensor t_maximum_7 = tl::broadcast_to(t_m * ((m == maximum_7).astype(maximum_7.dtype()) - 0.5 * (m == maximum_7).astype(maximum_7.dtype()) * (tl::scalar_tensor(0.05, maximum_7.dtype()) == maximum_7).astype(maximum_7.dtype())), maximum_7.shape());
  const tl::Tensor mul_8 = maximum_7 * sigmoid_6;  // mul, line 23: maximum_7 * sigmoid_6
  const tl::Tensor t_mul_8 = tl::broadcast_to(t_maximum_7 * sigmoid_6 + (t_sigmoid_6 * maximum_7), mul_8.shape());
  const tl::Tensor mul_9 = m * m;  // mul, line 24: m * m
  const tl::Tensor t_mul_9 = tl::broadcast_to(t_m * m + (t_m * m), mul_9.shape());
  const tl::Tensor add_10 = mul_9 + 2.0;  // add, line 25: mul_9 + 2.0
  const tl::Tensor t_add_10 = tl::broadcast_to(t_mul_9, add_10.shape());
  const tl::Tensor mul_11 = m * m;  // mul, line 26: m * m
  const tl::Tensor t_mul_11 = tl::broadcast_to(t_m * m + (t_m * m), mul_11.shape());
  const tl::Tensor add_12 = mul_11 + 1.0;  // add, line 27: mul_11 + 1.0
  const tl::Tensor t_add_12 = tl::broadcast_to(t_mul_11, add_12.shape());
  const tl::Tensor pow_13 = tl::pow(add_12, 1.5);  // pow, line 28: tl::pow(add_12, 1.5)
  const tl::Tensor t_pow_13 = tl::broadcast_to(t_add_12 * tl::where(tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype()) == 0, 0.0, tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype()) * tl::pow(add_12.astype(pow_13.dtype()), tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype()) - 1.0)), pow_13.shape());
  const tl::Tensor div_14 = pow_13 / add_10;  // div, line 29: pow_13 / add_10
  const tl::Tensor t_div_14 = tl::broadcast_to(t_pow_13 * tl::reciprocal(add_10) + (t_add_10 * -(div_14 / add_10)), div_14.shape());
  const tl::Tensor r = div_14 + mul_8;  // add, line 30: div_14 + mul_8
  const tl::Tensor t_r = tl::broadcast_to(t_div_14 + t_mul_8, r.shape());
  const int64_t log_softmax_axis = -1;
  const tl::Tensor mul_16 = m * 2.0;  // mul, line 32: m * 2.0
  const tl::Tensor t_mul_16 = tl::broadcast_to(t_m * 2.0, mul_16.shape());
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
  const tl::Tensor t_shifted = tl::broadcast_to(t_xf_1_1, shifted.shape());
  const tl::Tensor exp_23 = tl::exp(shifted);  // exp, line 48: tl::exp(shifted)
  const tl::Tensor t_exp_23 = t_shifted * exp_23;
  const tl::Tensor sum_24 = tl::sum(exp_23, log_softmax_a, true);  // sum, line 49: tl::sum(exp_23, log_softmax_a, true)
  const tl::Tensor t_sum_24 = tl::sum(t_exp_23, log_softmax_a, true);
  const tl::Tensor log_25 = tl::log(sum_24);  // log, line 50: tl::log(sum_24)
  const tl::Tensor t_log_25 = t_sum_24 * tl::reciprocal(sum_24);
  const tl::Tensor sub_26 = shifted - log_25;  // sub, line 51: shifted - log_25
  const tl::Tensor t_sub_26 = tl::broadcast_to(t_shifted - t_log_25, sub_26.shape());
  const tl::Tensor reshape_27 = tl::reshape(sub_26, mul_16.shape());  // reshape, line 52: tl::reshape(sub_26, mul_16.shape())
  const tl::Tensor t_reshape_27 = tl::reshape(t_sub_26, mul_16.shape());
  const tl::Tensor sum_28 = tl::sum(reshape_27);  // sum, line 53: tl::sum(reshape_27)
  const tl::Tensor t_sum_28 = tl::sum(t_reshape_27);
  const tl::Tensor sum_29 = tl::sum(r);  // sum, line 54: tl::sum(r)
  const tl::Tensor t_sum_29 = tl::sum(t_r);
  const bool mean_keepdims = false;
  const tlaloc::Axes mean_axes = {};
  const tl::Tensor mul_30 = m * 0.5;  // mul, line 57: m * 0.5
  const tl::Tensor t_mul_30 = tl::broadcast_to(t_m * 0.5, mul_30.shape());
  const tl::Tensor exp_31 = tl::exp(mul_30);  // exp, line 58: tl::exp(mul_30)
  const tl::Tensor t_exp_31 = t_mul_30 * exp_31;
  const int64_t mean_n = ::tlaloc::detail::reduced_count("mean", exp_31.shape(), mean_axes);
  const tl::Tensor astype_32 = exp_31.astype(::tlaloc::stats_dtype(exp_31.dtype()));  // astype, line 60: exp_31.astype(::tlaloc::stats_dtype(exp_31.dtype()))
  const tl::Tensor t_astype_32 = t_exp_31.astype(::tlaloc::stats_dtype(exp_31.dtype()));
  const tl::Tensor sum_33 = tl::sum(astype_32, mean_axes, mean_keepdims);  // sum, line 61: tl::sum(astype_32, mean_axes, mean_keepdims)
  const tl::Tensor t_sum_33 = tl::sum(t_astype_32, mean_axes, mean_keepdims);
  const tl::Tensor div_34 = sum_33 / double(mean_n);  // div, line 62: sum_33 / double(mean_n)
  const tl::Tensor t_div_34 = tl::broadcast_to(t_sum_33 * tl::reciprocal(tl::scalar_tensor(double(mean_n), div_34.dtype())), div_34.shape());
  const tl::Tensor astype_35 = div_34.astype(::tlaloc::detail::floating_dtype(exp_31.dtype()));  // astype, line 63: div_34.astype(::tlaloc::detail::floating_dtype(exp_31.dtype()))
  const tl::Tensor t_astype_35 = t_div_34.astype(::tlaloc::detail::floating_dtype(exp_31.dtype()));
  const tl::Tensor mul_36 = h * h;  // mul, line 64: h * h
  const tl::Tensor t_mul_36 = tl::broadcast_to(t_h * h + (t_h * h), mul_36.shape());
  const tl::Tensor sum_37 = tl::sum(mul_36);  // sum, line 65: tl::sum(mul_36)
  const tl::Tensor t_sum_37 = tl::sum(t_mul_36);
  const tl::Tensor mul_38 = sum_37 * scale;  // mul, line 66: sum_37 * scale
  const tl::Tensor t_mul_38 = tl::broadcast_to(t_sum_37 * scale, mul_38.shape());
  const tl::Tensor add_39 = mul_38 + astype_35;  // add, line 67: mul_38 + astype_35
  const tl::Tensor t_add_39 = tl::broadcast_to(t_mul_38 + t_astype_35, add_39.shape());
  const tl::Tensor add_40 = add_39 + sum_29;  // add, line 68: add_39 + sum_29
  const tl::Tensor t_add_40 = tl::broadcast_to(t_add_39 + t_sum_29, add_40.shape());
  const tl::Tensor sub_41 = add_40 - sum_28;  // sub, line 69: add_40 - sum_28
  const tl::Tensor t_sub_41 = tl::broadcast_to(t_add_40 - t_sum_28, sub_41.shape());
  if (sub_41.rank() != 0) throw tl::ValueError("tlaloc-grad: the lambda at functions.cpp:413 must return a scalar, got " + tl::shape_string(sub_41.shape()));
  const tl::Tensor t_83 = tl::scalar_tensor(1, sub_41.dtype());  // line 112: tl::scalar_tensor(1, sub_41.dtype())
  const tl::Tensor sum_to_size_84 = tl::sum_to_size(t_83, add_40.shape());  // sum_to_size, line 114: tl::sum_to_size(d_sub_41, add_40.shape())
  const tl::Tensor neg_85 = -t_83;  // neg, line 115: -d_sub_41
  const tl::Tensor sum_to_size_86 = tl::sum_to_size(neg_85, sum_28.shape());  // sum_to_size, line 115: tl::sum_to_size(-d_sub_41, sum_28.shape())
  const tl::Tensor sum_to_size_87 = tl::sum_to_size(sum_to_size_84, add_39.shape());  // sum_to_size, line 117: tl::sum_to_size(d_add_40, add_39.shape())
  const tl::Tensor sum_to_size_88 = tl::sum_to_size(sum_to_size_84, sum_29.shape());  // sum_to_size, line 118: tl::sum_to_size(d_add_40, sum_29.shape())
  const tl::Tensor sum_to_size_89 = tl::sum_to_size(sum_to_size_87, mul_38.shape());  // sum_to_size, line 120: tl::sum_to_size(d_add_39, mul_38.shape())
  const tl::Tensor sum_to_size_90 = tl::sum_to_size(sum_to_size_87, astype_35.shape());  // sum_to_size, line 121: tl::sum_to_size(d_add_39, astype_35.shape())
  const tl::Tensor mul_91 = sum_to_size_89 * scale;  // mul, line 123: d_mul_38 * scale
  const tl::Tensor broadcast_to_92 = tl::broadcast_to(mul_91, mul_36.shape());  // broadcast_to, line 125: tl::broadcast_to(d_sum_37, mul_36.shape())
  const tl::Tensor mul_93 = broadcast_to_92 * h;  // mul, line 127: d_mul_36 * h
  const tl::Tensor t_mul_93 = tl::broadcast_to(t_h * broadcast_to_92, mul_93.shape());
  const tl::Tensor sum_to_size_94 = tl::sum_to_size(mul_93, h.shape());  // sum_to_size, line 127: tl::sum_to_size(d_mul_36 * h, h.shape())
  const tl::Tensor t_sum_to_size_94 = tl::sum_to_size(t_mul_93, h.shape());
  const tl::Tensor mul_95 = broadcast_to_92 * h;  // mul, line 128: d_mul_36 * h
  const tl::Tensor t_mul_95 = tl::broadcast_to(t_h * broadcast_to_92, mul_95.shape());
  const tl::Tensor sum_to_size_96 = tl::sum_to_size(mul_95, h.shape());  // sum_to_size, line 128: tl::sum_to_size(d_mul_36 * h, h.shape())
  const tl::Tensor t_sum_to_size_96 = tl::sum_to_size(t_mul_95, h.shape());
  const tl::Tensor add_97 = sum_to_size_94 + sum_to_size_96;  // add, line 128: d_h + (tl::sum_to_size(d_mul_36 * h, h.shape()))
  const tl::Tensor t_add_97 = tl::broadcast_to(t_sum_to_size_94 + t_sum_to_size_96, add_97.shape());
  const tl::Tensor astype_98 = sum_to_size_90.astype(div_34.dtype());  // astype, line 130: d_astype_35.astype(div_34.dtype())
  const tl::Tensor t_99 = tl::scalar_tensor(double(mean_n), div_34.dtype());  // line 132: tl::scalar_tensor(double(mean_n), div_34.dtype())
  const tl::Tensor reciprocal_100 = tl::reciprocal(t_99);  // reciprocal, line 132: tl::reciprocal(tl::scalar_tensor(double(mean_n), div_34.dtype()))
  const tl::Tensor mul_101 = astype_98 * reciprocal_100;  // mul, line 132: d_div_34 * tl::reciprocal(tl::scalar_tensor(double(mean_n), div_34.dt...
  const tl::Tensor sum_backward_102 = tl::sum_backward(mul_101, astype_32.shape(), mean_axes, mean_keepdims);  // sum_backward, line 134: tl::sum_backward(d_sum_33, astype_32.shape(), mean_axes, mean_keepdims)
  const tl::Tensor astype_103 = sum_backward_102.astype(exp_31.dtype());  // astype, line 136: d_astype_32.astype(exp_31.dtype())
  const tl::Tensor mul_104 = astype_103 * exp_31;  // mul, line 138: d_exp_31 * exp_31
  const tl::Tensor t_mul_104 = tl::broadcast_to(t_exp_31 * astype_103, mul_104.shape());
  const tl::Tensor mul_105 = mul_104 * 0.5;  // mul, line 140: d_mul_30 * 0.5
  const tl::Tensor t_mul_105 = tl::broadcast_to(t_mul_104 * 0.5, mul_105.shape());
  const tl::Tensor broadcast_to_106 = tl::broadcast_to(sum_to_size_88, r.shape());  // broadcast_to, line 142: tl::broadcast_to(d_sum_29, r.shape())
  const tl::Tensor broadcast_to_107 = tl::broadcast_to(sum_to_size_86, reshape_27.shape());  // broadcast_to, line 144: tl::broadcast_to(d_sum_28, reshape_27.shape())
  const tl::Tensor reshape_108 = tl::reshape(broadcast_to_107, sub_26.shape());  // reshape, line 146: tl::reshape(d_reshape_27, sub_26.shape())
  const tl::Tensor sum_to_size_109 = tl::sum_to_size(reshape_108, shifted.shape());  // sum_to_size, line 148: tl::sum_to_size(d_sub_26, shifted.shape())
  const tl::Tensor neg_110 = -reshape_108;  // neg, line 149: -d_sub_26
  const tl::Tensor sum_to_size_111 = tl::sum_to_size(neg_110, log_25.shape());  // sum_to_size, line 149: tl::sum_to_size(-d_sub_26, log_25.shape())
  const tl::Tensor reciprocal_112 = tl::reciprocal(sum_24);  // reciprocal, line 151: tl::reciprocal(sum_24)
  const tl::Tensor t_reciprocal_112 = t_sum_24 * -(reciprocal_112 * reciprocal_112);
  const tl::Tensor mul_113 = sum_to_size_111 * reciprocal_112;  // mul, line 151: d_log_25 * tl::reciprocal(sum_24)
  const tl::Tensor t_mul_113 = tl::broadcast_to(t_reciprocal_112 * sum_to_size_111, mul_113.shape());
  const tl::Tensor sum_backward_114 = tl::sum_backward(mul_113, exp_23.shape(), log_softmax_a, true);  // sum_backward, line 153: tl::sum_backward(d_sum_24, exp_23.shape(), log_softmax_a, true)
  const tl::Tensor t_sum_backward_114 = tl::sum_backward(t_mul_113, exp_23.shape(), log_softmax_a, true);
  const tl::Tensor mul_115 = sum_backward_114 * exp_23;  // mul, line 155: d_exp_23 * exp_23
  const tl::Tensor t_mul_115 = tl::broadcast_to(t_sum_backward_114 * exp_23 + (t_exp_23 * sum_backward_114), mul_115.shape());
  const tl::Tensor add_116 = sum_to_size_109 + mul_115;  // add, line 155: d_shifted + (d_exp_23 * exp_23)
  const tl::Tensor t_add_116 = tl::broadcast_to(t_mul_115, add_116.shape());
  const tl::Tensor sum_to_size_117 = tl::sum_to_size(add_116, xf_1_1.shape());  // sum_to_size, line 157: tl::sum_to_size(d_shifted, xf_1.shape())
  const tl::Tensor t_sum_to_size_117 = tl::sum_to_size(t_add_116, xf_1_1.shape());
  tl::Tensor d_xf_2;
  tl::Tensor t_d_xf_2;
  tl::Tensor reshape_119;
  tl::Tensor t_reshape_119;
  bool cond_1 = false;
  cond_1 = u_cond_0;  // line 158
  if (cond_1) {
    d_xf_2 = sum_to_size_117;
    t_d_xf_2 = t_sum_to_size_117;
  } else {
    reshape_119 = tl::reshape(sum_to_size_117, xf.shape());  // reshape, line 164: tl::reshape(d_reshape_18, xf.shape())
    t_reshape_119 = tl::reshape(t_sum_to_size_117, xf.shape());
    d_xf_2 = reshape_119;
    t_d_xf_2 = t_reshape_119;
  }
  const tl::Tensor astype_121 = d_xf_2.astype(mul_16.dtype());  // astype, line 167: d_xf.astype(mul_16.dtype())
  const tl::Tensor t_astype_121 = t_d_xf_2.astype(mul_16.dtype());
  const tl::Tensor mul_122 = astype_121 * 2.0;  // mul, line 169: d_mul_16 * 2.0
  const tl::Tensor t_mul_122 = tl::broadcast_to(t_astype_121 * 2.0, mul_122.shape());
  const tl::Tensor add_123 = mul_105 + mul_122;  // add, line 169: d_m + (d_mul_16 * 2.0)
  const tl::Tensor t_add_123 = tl::broadcast_to(t_mul_105 + t_mul_122, add_123.shape());
  const tl::Tensor sum_to_size_124 = tl::sum_to_size(broadcast_to_106, div_14.shape());  // sum_to_size, line 171: tl::sum_to_size(d_r, div_14.shape())
  const tl::Tensor sum_to_size_125 = tl::sum_to_size(broadcast_to_106, mul_8.shape());  // sum_to_size, line 172: tl::sum_to_size(d_r, mul_8.shape())
  const tl::Tensor reciprocal_126 = tl::reciprocal(add_10);  // reciprocal, line 174: tl::reciprocal(add_10)
  const tl::Tensor t_reciprocal_126 = t_add_10 * -(reciprocal_126 * reciprocal_126);
  const tl::Tensor mul_127 = sum_to_size_124 * reciprocal_126;  // mul, line 174: d_div_14 * tl::reciprocal(add_10)
  const tl::Tensor t_mul_127 = tl::broadcast_to(t_reciprocal_126 * sum_to_size_124, mul_127.shape());
  const tl::Tensor sum_to_size_128 = tl::sum_to_size(mul_127, pow_13.shape());  // sum_to_size, line 174: tl::sum_to_size(d_div_14 * tl::reciprocal(add_10), pow_13.shape())
  const tl::Tensor t_sum_to_size_128 = tl::sum_to_size(t_mul_127, pow_13.shape());
  const tl::Tensor div_129 = div_14 / add_10;  // div, line 175: div_14 / add_10
  const tl::Tensor t_div_129 = tl::broadcast_to(t_div_14 * tl::reciprocal(add_10) + (t_add_10 * -(div_129 / add_10)), div_129.shape());
  const tl::Tensor neg_130 = -div_129;  // neg, line 175: -(div_14 / add_10)
  const tl::Tensor t_neg_130 = -t_div_129;
  const tl::Tensor mul_131 = sum_to_size_124 * neg_130;  // mul, line 175: d_div_14 * -(div_14 / add_10)
  const tl::Tensor t_mul_131 = tl::broadcast_to(t_neg_130 * sum_to_size_124, mul_131.shape());
  const tl::Tensor sum_to_size_132 = tl::sum_to_size(mul_131, add_10.shape());  // sum_to_size, line 175: tl::sum_to_size(d_div_14 * -(div_14 / add_10), add_10.shape())
  const tl::Tensor t_sum_to_size_132 = tl::sum_to_size(t_mul_131, add_10.shape());
  const tl::Tensor t_133 = tl::scalar_tensor(1.5, pow_13.dtype());  // line 177: tl::scalar_tensor(1.5, pow_13.dtype())
  const tl::Tensor astype_134 = t_133.astype(pow_13.dtype());  // astype, line 177: tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype())
  const tl::Tensor sub_135 = astype_134 - 1.0;  // sub, line 177: tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype()) - 1.0
  const tl::Tensor astype_136 = add_12.astype(pow_13.dtype());  // astype, line 177: add_12.astype(pow_13.dtype())
  const tl::Tensor t_astype_136 = t_add_12.astype(pow_13.dtype());
  const tl::Tensor pow_137 = tl::pow(astype_136, sub_135);  // pow, line 177: tl::pow(add_12.astype(pow_13.dtype()), tl::scalar_tensor(1.5, pow_13....
  const tl::Tensor t_pow_137 = tl::broadcast_to(t_astype_136 * tl::where(sub_135.astype(pow_137.dtype()) == 0, 0.0, sub_135.astype(pow_137.dtype()) * tl::pow(astype_136.astype(pow_137.dtype()), sub_135.astype(pow_137.dtype()) - 1.0)), pow_137.shape());
  const tl::Tensor t_138 = tl::scalar_tensor(1.5, pow_13.dtype());  // line 177: tl::scalar_tensor(1.5, pow_13.dtype())
  const tl::Tensor astype_139 = t_138.astype(pow_13.dtype());  // astype, line 177: tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype())
  const tl::Tensor mul_140 = astype_139 * pow_137;  // mul, line 177: tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype()) * tl::p...
  const tl::Tensor t_mul_140 = tl::broadcast_to(t_pow_137 * astype_139, mul_140.shape());
  const tl::Tensor t_141 = tl::scalar_tensor(1.5, pow_13.dtype());  // line 177: tl::scalar_tensor(1.5, pow_13.dtype())
  const tl::Tensor astype_142 = t_141.astype(pow_13.dtype());  // astype, line 177: tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype())
  const tl::Tensor t_143 = astype_142 == 0;  // line 177: tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype()) == 0
  const tl::Tensor where_144 = tl::where(t_143, 0.0, mul_140);  // where, line 177: tl::where(tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype(...
  const tl::Tensor t_where_144 = tl::broadcast_to(tl::where(t_143, tl::zeros_like(where_144), t_mul_140), where_144.shape());
  const tl::Tensor mul_145 = sum_to_size_128 * where_144;  // mul, line 177: d_pow_13 * tl::where(tl::scalar_tensor(1.5, pow_13.dtype()).astype(po...
  const tl::Tensor t_mul_145 = tl::broadcast_to(t_sum_to_size_128 * where_144 + (t_where_144 * sum_to_size_128), mul_145.shape());
  const tl::Tensor mul_146 = mul_145 * m;  // mul, line 181: d_mul_11 * m
  const tl::Tensor t_mul_146 = tl::broadcast_to(t_mul_145 * m + (t_m * mul_145), mul_146.shape());
  const tl::Tensor sum_to_size_147 = tl::sum_to_size(mul_146, m.shape());  // sum_to_size, line 181: tl::sum_to_size(d_mul_11 * m, m.shape())
  const tl::Tensor t_sum_to_size_147 = tl::sum_to_size(t_mul_146, m.shape());
  const tl::Tensor add_148 = add_123 + sum_to_size_147;  // add, line 181: d_m + (tl::sum_to_size(d_mul_11 * m, m.shape()))
  const tl::Tensor t_add_148 = tl::broadcast_to(t_add_123 + t_sum_to_size_147, add_148.shape());
  const tl::Tensor mul_149 = mul_145 * m;  // mul, line 182: d_mul_11 * m
  const tl::Tensor t_mul_149 = tl::broadcast_to(t_mul_145 * m + (t_m * mul_145), mul_149.shape());
  const tl::Tensor sum_to_size_150 = tl::sum_to_size(mul_149, m.shape());  // sum_to_size, line 182: tl::sum_to_size(d_mul_11 * m, m.shape())
  const tl::Tensor t_sum_to_size_150 = tl::sum_to_size(t_mul_149, m.shape());
  const tl::Tensor add_151 = add_148 + sum_to_size_150;  // add, line 182: d_m + (tl::sum_to_size(d_mul_11 * m, m.shape()))
  const tl::Tensor t_add_151 = tl::broadcast_to(t_add_148 + t_sum_to_size_150, add_151.shape());
  const tl::Tensor mul_152 = sum_to_size_132 * m;  // mul, line 186: d_mul_9 * m
  const tl::Tensor t_mul_152 = tl::broadcast_to(t_sum_to_size_132 * m + (t_m * sum_to_size_132), mul_152.shape());
  const tl::Tensor sum_to_size_153 = tl::sum_to_size(mul_152, m.shape());  // sum_to_size, line 186: tl::sum_to_size(d_mul_9 * m, m.shape())
  const tl::Tensor t_sum_to_size_153 = tl::sum_to_size(t_mul_152, m.shape());
  const tl::Tensor add_154 = add_151 + sum_to_size_153;  // add, line 186: d_m + (tl::sum_to_size(d_mul_9 * m, m.shape()))
  const tl::Tensor t_add_154 = tl::broadcast_to(t_add_151 + t_sum_to_size_153, add_154.shape());
  const tl::Tensor mul_155 = sum_to_size_132 * m;  // mul, line 187: d_mul_9 * m
  const tl::Tensor t_mul_155 = tl::broadcast_to(t_sum_to_size_132 * m + (t_m * sum_to_size_132), mul_155.shape());
  const tl::Tensor sum_to_size_156 = tl::sum_to_size(mul_155, m.shape());  // sum_to_size, line 187: tl::sum_to_size(d_mul_9 * m, m.shape())
  const tl::Tensor t_sum_to_size_156 = tl::sum_to_size(t_mul_155, m.shape());
  const tl::Tensor add_157 = add_154 + sum_to_size_156;  // add, line 187: d_m + (tl::sum_to_size(d_mul_9 * m, m.shape()))
  const tl::Tensor t_add_157 = tl::broadcast_to(t_add_154 + t_sum_to_size_156, add_157.shape());
  const tl::Tensor mul_158 = sum_to_size_125 * sigmoid_6;  // mul, line 189: d_mul_8 * sigmoid_6
  const tl::Tensor t_mul_158 = tl::broadcast_to(t_sigmoid_6 * sum_to_size_125, mul_158.shape());
  const tl::Tensor sum_to_size_159 = tl::sum_to_size(mul_158, maximum_7.shape());  // sum_to_size, line 189: tl::sum_to_size(d_mul_8 * sigmoid_6, maximum_7.shape())
  const tl::Tensor t_sum_to_size_159 = tl::sum_to_size(t_mul_158, maximum_7.shape());
  const tl::Tensor mul_160 = sum_to_size_125 * maximum_7;  // mul, line 190: d_mul_8 * maximum_7
  const tl::Tensor t_mul_160 = tl::broadcast_to(t_maximum_7 * sum_to_size_125, mul_160.shape());
  const tl::Tensor sum_to_size_161 = tl::sum_to_size(mul_160, sigmoid_6.shape());  // sum_to_size, line 190: tl::sum_to_size(d_mul_8 * maximum_7, sigmoid_6.shape())
  const tl::Tensor t_sum_to_size_161 = tl::sum_to_size(t_mul_160, sigmoid_6.shape());
  const tl::Tensor t_162 = tl::scalar_tensor(0.05, maximum_7.dtype());  // line 192: tl::scalar_tensor(0.05, maximum_7.dtype())
  const tl::Tensor t_163 = t_162 == maximum_7;  // line 192: tl::scalar_tensor(0.05, maximum_7.dtype()) == maximum_7
  const tl::Tensor astype_164 = t_163.astype(maximum_7.dtype());  // astype, line 192: (tl::scalar_tensor(0.05, maximum_7.dtype()) == maximum_7).astype(maxi...
  const tl::Tensor t_165 = m == maximum_7;  // line 192: m == maximum_7
  const tl::Tensor astype_166 = t_165.astype(maximum_7.dtype());  // astype, line 192: (m == maximum_7).astype(maximum_7.dtype())
  const tl::Tensor mul_167 = 0.5 * astype_166;  // mul, line 192: 0.5 * (m == maximum_7).astype(maximum_7.dtype())
  const tl::Tensor mul_168 = mul_167 * astype_164;  // mul, line 192: 0.5 * (m == maximum_7).astype(maximum_7.dtype()) * (tl::scalar_tensor...
  const tl::Tensor t_169 = m == maximum_7;  // line 192: m == maximum_7
  const tl::Tensor astype_170 = t_169.astype(maximum_7.dtype());  // astype, line 192: (m == maximum_7).astype(maximum_7.dtype())
  const tl::Tensor sub_171 = astype_170 - mul_168;  // sub, line 192: (m == maximum_7).astype(maximum_7.dtype()) - 0.5 * (m == maximum_7).a...
  const tl::Tensor mul_172 = sum_to_size_159 * sub_171;  // mul, line 192: d_maximum_7 * ((m == maximum_7).astype(maximum_7.dtype()) - 0.5 * (m ...
  const tl::Tensor t_mul_172 = tl::broadcast_to(t_sum_to_size_159 * sub_171, mul_172.shape());
  const tl::Tensor add_173 = add_157 + mul_172;  // add, line 192: d_m + (d_maximum_7 * ((m == maximum_7).astype(maximum_7.dtype()) - 0....
  const tl::Tensor t_add_173 = tl::broadcast_to(t_add_157 + t_mul_172, add_173.shape());
  const tl::Tensor sub_174 = 1.0 - sigmoid_6;  // sub, line 194: 1.0 - sigmoid_6
  const tl::Tensor t_sub_174 = tl::broadcast_to(-t_sigmoid_6, sub_174.shape());
  const tl::Tensor mul_175 = sigmoid_6 * sub_174;  // mul, line 194: sigmoid_6 * (1.0 - sigmoid_6)
  const tl::Tensor t_mul_175 = tl::broadcast_to(t_sigmoid_6 * sub_174 + (t_sub_174 * sigmoid_6), mul_175.shape());
  const tl::Tensor mul_176 = sum_to_size_161 * mul_175;  // mul, line 194: d_sigmoid_6 * (sigmoid_6 * (1.0 - sigmoid_6))
  const tl::Tensor t_mul_176 = tl::broadcast_to(t_sum_to_size_161 * mul_175 + (t_mul_175 * sum_to_size_161), mul_176.shape());
  const tl::Tensor add_177 = add_173 + mul_176;  // add, line 194: d_m + (d_sigmoid_6 * (sigmoid_6 * (1.0 - sigmoid_6)))
  const tl::Tensor t_add_177 = tl::broadcast_to(t_add_173 + t_mul_176, add_177.shape());
  const tl::Tensor mul_178 = h * h;  // mul, line 196: h * h
  const tl::Tensor t_mul_178 = tl::broadcast_to(t_h * h + (t_h * h), mul_178.shape());
  const tl::Tensor sub_179 = 1.0 - mul_178;  // sub, line 196: 1.0 - h * h
  const tl::Tensor t_sub_179 = tl::broadcast_to(-t_mul_178, sub_179.shape());
  const tl::Tensor mul_180 = add_97 * sub_179;  // mul, line 196: d_h * (1.0 - h * h)
  const tl::Tensor t_mul_180 = tl::broadcast_to(t_add_97 * sub_179 + (t_sub_179 * add_97), mul_180.shape());
  const tl::Tensor sum_to_size_181 = tl::sum_to_size(mul_180, matmul_3.shape());  // sum_to_size, line 198: tl::sum_to_size(d_add_4, matmul_3.shape())
  const tl::Tensor t_sum_to_size_181 = tl::sum_to_size(t_mul_180, matmul_3.shape());
  const tl::Tensor matmul_backward_182 = tl::matmul_backward(sum_to_size_181, x, m, 1);  // matmul_backward, line 200: tl::matmul_backward(d_matmul_3, x, m, 1)
  const tl::Tensor t_matmul_backward_182 = tl::matmul_backward(t_sum_to_size_181, x, m, 1);
  const tl::Tensor add_183 = add_177 + matmul_backward_182;  // add, line 200: d_m + (tl::matmul_backward(d_matmul_3, x, m, 1))
  const tl::Tensor t_add_183 = tl::broadcast_to(t_add_177 + t_matmul_backward_182, add_183.shape());
  return {add_183, t_add_183};
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
