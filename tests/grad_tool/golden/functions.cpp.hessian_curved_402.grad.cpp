// The derivative of the gradient of the lambda at functions.cpp:397 (functions.cpp.hessian_curved_402_gradient.grad.cpp) at `m` along `t_m` (forward mode),
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

inline std::pair<tl::Tensor, tl::Tensor> hessian_curved_402_gradient_jvp(const tl::Tensor& m, const tl::Tensor& x, const tl::Tensor& b, const double scale, const tl::Tensor& t_m) {
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
  const tl::Tensor max_24 = tl::max(xf_1_1, log_softmax_a, true);  // max, line 46: ::tlaloc::max(xf_1, log_softmax_a, true)
  const tl::Tensor t_max_24 = tl::extreme_jvp(t_xf_1_1, xf_1_1, max_24, log_softmax_a, true);
  const tl::Tensor u_t_21 = ::tlaloc::stop_gradient(::tlaloc::max(xf_1_1, log_softmax_a, true));  // line 46: ::tlaloc::stop_gradient(::tlaloc::max(xf_1, log_softmax_a, true))
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
  if (sub_41.rank() != 0) throw tl::ValueError("tlaloc-grad: the lambda at functions.cpp:397 must return a scalar, got " + tl::shape_string(sub_41.shape()));
  const tl::Tensor t_84 = tl::scalar_tensor(1, sub_41.dtype());  // line 112: tl::scalar_tensor(1, sub_41.dtype())
  const tl::Tensor sum_to_size_85 = tl::sum_to_size(t_84, add_40.shape());  // sum_to_size, line 114: tl::sum_to_size(d_sub_41, add_40.shape())
  const tl::Tensor neg_86 = -t_84;  // neg, line 115: -d_sub_41
  const tl::Tensor sum_to_size_87 = tl::sum_to_size(neg_86, sum_28.shape());  // sum_to_size, line 115: tl::sum_to_size(-d_sub_41, sum_28.shape())
  const tl::Tensor sum_to_size_88 = tl::sum_to_size(sum_to_size_85, add_39.shape());  // sum_to_size, line 117: tl::sum_to_size(d_add_40, add_39.shape())
  const tl::Tensor sum_to_size_89 = tl::sum_to_size(sum_to_size_85, sum_29.shape());  // sum_to_size, line 118: tl::sum_to_size(d_add_40, sum_29.shape())
  const tl::Tensor sum_to_size_90 = tl::sum_to_size(sum_to_size_88, mul_38.shape());  // sum_to_size, line 120: tl::sum_to_size(d_add_39, mul_38.shape())
  const tl::Tensor sum_to_size_91 = tl::sum_to_size(sum_to_size_88, astype_35.shape());  // sum_to_size, line 121: tl::sum_to_size(d_add_39, astype_35.shape())
  const tl::Tensor mul_92 = sum_to_size_90 * scale;  // mul, line 123: d_mul_38 * scale
  const tl::Tensor broadcast_to_93 = tl::broadcast_to(mul_92, mul_36.shape());  // broadcast_to, line 125: tl::broadcast_to(d_sum_37, mul_36.shape())
  const tl::Tensor mul_94 = broadcast_to_93 * h;  // mul, line 127: d_mul_36 * h
  const tl::Tensor t_mul_94 = tl::broadcast_to(t_h * broadcast_to_93, mul_94.shape());
  const tl::Tensor sum_to_size_95 = tl::sum_to_size(mul_94, h.shape());  // sum_to_size, line 127: tl::sum_to_size(d_mul_36 * h, h.shape())
  const tl::Tensor t_sum_to_size_95 = tl::sum_to_size(t_mul_94, h.shape());
  const tl::Tensor mul_96 = broadcast_to_93 * h;  // mul, line 128: d_mul_36 * h
  const tl::Tensor t_mul_96 = tl::broadcast_to(t_h * broadcast_to_93, mul_96.shape());
  const tl::Tensor sum_to_size_97 = tl::sum_to_size(mul_96, h.shape());  // sum_to_size, line 128: tl::sum_to_size(d_mul_36 * h, h.shape())
  const tl::Tensor t_sum_to_size_97 = tl::sum_to_size(t_mul_96, h.shape());
  const tl::Tensor add_98 = sum_to_size_95 + sum_to_size_97;  // add, line 128: d_h + (tl::sum_to_size(d_mul_36 * h, h.shape()))
  const tl::Tensor t_add_98 = tl::broadcast_to(t_sum_to_size_95 + t_sum_to_size_97, add_98.shape());
  const tl::Tensor astype_99 = sum_to_size_91.astype(div_34.dtype());  // astype, line 130: d_astype_35.astype(div_34.dtype())
  const tl::Tensor t_100 = tl::scalar_tensor(double(mean_n), div_34.dtype());  // line 132: tl::scalar_tensor(double(mean_n), div_34.dtype())
  const tl::Tensor reciprocal_101 = tl::reciprocal(t_100);  // reciprocal, line 132: tl::reciprocal(tl::scalar_tensor(double(mean_n), div_34.dtype()))
  const tl::Tensor mul_102 = astype_99 * reciprocal_101;  // mul, line 132: d_div_34 * tl::reciprocal(tl::scalar_tensor(double(mean_n), div_34.dt...
  const tl::Tensor sum_backward_103 = tl::sum_backward(mul_102, astype_32.shape(), mean_axes, mean_keepdims);  // sum_backward, line 134: tl::sum_backward(d_sum_33, astype_32.shape(), mean_axes, mean_keepdims)
  const tl::Tensor astype_104 = sum_backward_103.astype(exp_31.dtype());  // astype, line 136: d_astype_32.astype(exp_31.dtype())
  const tl::Tensor mul_105 = astype_104 * exp_31;  // mul, line 138: d_exp_31 * exp_31
  const tl::Tensor t_mul_105 = tl::broadcast_to(t_exp_31 * astype_104, mul_105.shape());
  const tl::Tensor mul_106 = mul_105 * 0.5;  // mul, line 140: d_mul_30 * 0.5
  const tl::Tensor t_mul_106 = tl::broadcast_to(t_mul_105 * 0.5, mul_106.shape());
  const tl::Tensor broadcast_to_107 = tl::broadcast_to(sum_to_size_89, r.shape());  // broadcast_to, line 142: tl::broadcast_to(d_sum_29, r.shape())
  const tl::Tensor broadcast_to_108 = tl::broadcast_to(sum_to_size_87, reshape_27.shape());  // broadcast_to, line 144: tl::broadcast_to(d_sum_28, reshape_27.shape())
  const tl::Tensor reshape_109 = tl::reshape(broadcast_to_108, sub_26.shape());  // reshape, line 146: tl::reshape(d_reshape_27, sub_26.shape())
  const tl::Tensor sum_to_size_110 = tl::sum_to_size(reshape_109, shifted.shape());  // sum_to_size, line 148: tl::sum_to_size(d_sub_26, shifted.shape())
  const tl::Tensor neg_111 = -reshape_109;  // neg, line 149: -d_sub_26
  const tl::Tensor sum_to_size_112 = tl::sum_to_size(neg_111, log_25.shape());  // sum_to_size, line 149: tl::sum_to_size(-d_sub_26, log_25.shape())
  const tl::Tensor reciprocal_113 = tl::reciprocal(sum_24);  // reciprocal, line 151: tl::reciprocal(sum_24)
  const tl::Tensor t_reciprocal_113 = t_sum_24 * -(reciprocal_113 * reciprocal_113);
  const tl::Tensor mul_114 = sum_to_size_112 * reciprocal_113;  // mul, line 151: d_log_25 * tl::reciprocal(sum_24)
  const tl::Tensor t_mul_114 = tl::broadcast_to(t_reciprocal_113 * sum_to_size_112, mul_114.shape());
  const tl::Tensor sum_backward_115 = tl::sum_backward(mul_114, exp_23.shape(), log_softmax_a, true);  // sum_backward, line 153: tl::sum_backward(d_sum_24, exp_23.shape(), log_softmax_a, true)
  const tl::Tensor t_sum_backward_115 = tl::sum_backward(t_mul_114, exp_23.shape(), log_softmax_a, true);
  const tl::Tensor mul_116 = sum_backward_115 * exp_23;  // mul, line 155: d_exp_23 * exp_23
  const tl::Tensor t_mul_116 = tl::broadcast_to(t_sum_backward_115 * exp_23 + (t_exp_23 * sum_backward_115), mul_116.shape());
  const tl::Tensor add_117 = sum_to_size_110 + mul_116;  // add, line 155: d_shifted + (d_exp_23 * exp_23)
  const tl::Tensor t_add_117 = tl::broadcast_to(t_mul_116, add_117.shape());
  const tl::Tensor sum_to_size_118 = tl::sum_to_size(add_117, xf_1_1.shape());  // sum_to_size, line 157: tl::sum_to_size(d_shifted, xf_1.shape())
  const tl::Tensor t_sum_to_size_118 = tl::sum_to_size(t_add_117, xf_1_1.shape());
  tl::Tensor d_xf_2;
  tl::Tensor t_d_xf_2;
  tl::Tensor reshape_120;
  tl::Tensor t_reshape_120;
  bool cond_1 = false;
  cond_1 = u_cond_0;  // line 158
  if (cond_1) {
    d_xf_2 = sum_to_size_118;
    t_d_xf_2 = t_sum_to_size_118;
  } else {
    reshape_120 = tl::reshape(sum_to_size_118, xf.shape());  // reshape, line 164: tl::reshape(d_reshape_18, xf.shape())
    t_reshape_120 = tl::reshape(t_sum_to_size_118, xf.shape());
    d_xf_2 = reshape_120;
    t_d_xf_2 = t_reshape_120;
  }
  const tl::Tensor astype_122 = d_xf_2.astype(mul_16.dtype());  // astype, line 167: d_xf.astype(mul_16.dtype())
  const tl::Tensor t_astype_122 = t_d_xf_2.astype(mul_16.dtype());
  const tl::Tensor mul_123 = astype_122 * 2.0;  // mul, line 169: d_mul_16 * 2.0
  const tl::Tensor t_mul_123 = tl::broadcast_to(t_astype_122 * 2.0, mul_123.shape());
  const tl::Tensor add_124 = mul_106 + mul_123;  // add, line 169: d_m + (d_mul_16 * 2.0)
  const tl::Tensor t_add_124 = tl::broadcast_to(t_mul_106 + t_mul_123, add_124.shape());
  const tl::Tensor sum_to_size_125 = tl::sum_to_size(broadcast_to_107, div_14.shape());  // sum_to_size, line 171: tl::sum_to_size(d_r, div_14.shape())
  const tl::Tensor sum_to_size_126 = tl::sum_to_size(broadcast_to_107, mul_8.shape());  // sum_to_size, line 172: tl::sum_to_size(d_r, mul_8.shape())
  const tl::Tensor reciprocal_127 = tl::reciprocal(add_10);  // reciprocal, line 174: tl::reciprocal(add_10)
  const tl::Tensor t_reciprocal_127 = t_add_10 * -(reciprocal_127 * reciprocal_127);
  const tl::Tensor mul_128 = sum_to_size_125 * reciprocal_127;  // mul, line 174: d_div_14 * tl::reciprocal(add_10)
  const tl::Tensor t_mul_128 = tl::broadcast_to(t_reciprocal_127 * sum_to_size_125, mul_128.shape());
  const tl::Tensor sum_to_size_129 = tl::sum_to_size(mul_128, pow_13.shape());  // sum_to_size, line 174: tl::sum_to_size(d_div_14 * tl::reciprocal(add_10), pow_13.shape())
  const tl::Tensor t_sum_to_size_129 = tl::sum_to_size(t_mul_128, pow_13.shape());
  const tl::Tensor div_130 = div_14 / add_10;  // div, line 175: div_14 / add_10
  const tl::Tensor t_div_130 = tl::broadcast_to(t_div_14 * tl::reciprocal(add_10) + (t_add_10 * -(div_130 / add_10)), div_130.shape());
  const tl::Tensor neg_131 = -div_130;  // neg, line 175: -(div_14 / add_10)
  const tl::Tensor t_neg_131 = -t_div_130;
  const tl::Tensor mul_132 = sum_to_size_125 * neg_131;  // mul, line 175: d_div_14 * -(div_14 / add_10)
  const tl::Tensor t_mul_132 = tl::broadcast_to(t_neg_131 * sum_to_size_125, mul_132.shape());
  const tl::Tensor sum_to_size_133 = tl::sum_to_size(mul_132, add_10.shape());  // sum_to_size, line 175: tl::sum_to_size(d_div_14 * -(div_14 / add_10), add_10.shape())
  const tl::Tensor t_sum_to_size_133 = tl::sum_to_size(t_mul_132, add_10.shape());
  const tl::Tensor t_134 = tl::scalar_tensor(1.5, pow_13.dtype());  // line 177: tl::scalar_tensor(1.5, pow_13.dtype())
  const tl::Tensor astype_135 = t_134.astype(pow_13.dtype());  // astype, line 177: tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype())
  const tl::Tensor sub_136 = astype_135 - 1.0;  // sub, line 177: tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype()) - 1.0
  const tl::Tensor astype_137 = add_12.astype(pow_13.dtype());  // astype, line 177: add_12.astype(pow_13.dtype())
  const tl::Tensor t_astype_137 = t_add_12.astype(pow_13.dtype());
  const tl::Tensor pow_138 = tl::pow(astype_137, sub_136);  // pow, line 177: tl::pow(add_12.astype(pow_13.dtype()), tl::scalar_tensor(1.5, pow_13....
  const tl::Tensor t_pow_138 = tl::broadcast_to(t_astype_137 * tl::where(sub_136.astype(pow_138.dtype()) == 0, 0.0, sub_136.astype(pow_138.dtype()) * tl::pow(astype_137.astype(pow_138.dtype()), sub_136.astype(pow_138.dtype()) - 1.0)), pow_138.shape());
  const tl::Tensor t_139 = tl::scalar_tensor(1.5, pow_13.dtype());  // line 177: tl::scalar_tensor(1.5, pow_13.dtype())
  const tl::Tensor astype_140 = t_139.astype(pow_13.dtype());  // astype, line 177: tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype())
  const tl::Tensor mul_141 = astype_140 * pow_138;  // mul, line 177: tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype()) * tl::p...
  const tl::Tensor t_mul_141 = tl::broadcast_to(t_pow_138 * astype_140, mul_141.shape());
  const tl::Tensor t_142 = tl::scalar_tensor(1.5, pow_13.dtype());  // line 177: tl::scalar_tensor(1.5, pow_13.dtype())
  const tl::Tensor astype_143 = t_142.astype(pow_13.dtype());  // astype, line 177: tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype())
  const tl::Tensor t_144 = astype_143 == 0;  // line 177: tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype()) == 0
  const tl::Tensor where_145 = tl::where(t_144, 0.0, mul_141);  // where, line 177: tl::where(tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype(...
  const tl::Tensor t_where_145 = tl::broadcast_to(tl::where(t_144, tl::zeros_like(where_145), t_mul_141), where_145.shape());
  const tl::Tensor mul_146 = sum_to_size_129 * where_145;  // mul, line 177: d_pow_13 * tl::where(tl::scalar_tensor(1.5, pow_13.dtype()).astype(po...
  const tl::Tensor t_mul_146 = tl::broadcast_to(t_sum_to_size_129 * where_145 + (t_where_145 * sum_to_size_129), mul_146.shape());
  const tl::Tensor mul_147 = mul_146 * m;  // mul, line 181: d_mul_11 * m
  const tl::Tensor t_mul_147 = tl::broadcast_to(t_mul_146 * m + (t_m * mul_146), mul_147.shape());
  const tl::Tensor sum_to_size_148 = tl::sum_to_size(mul_147, m.shape());  // sum_to_size, line 181: tl::sum_to_size(d_mul_11 * m, m.shape())
  const tl::Tensor t_sum_to_size_148 = tl::sum_to_size(t_mul_147, m.shape());
  const tl::Tensor add_149 = add_124 + sum_to_size_148;  // add, line 181: d_m + (tl::sum_to_size(d_mul_11 * m, m.shape()))
  const tl::Tensor t_add_149 = tl::broadcast_to(t_add_124 + t_sum_to_size_148, add_149.shape());
  const tl::Tensor mul_150 = mul_146 * m;  // mul, line 182: d_mul_11 * m
  const tl::Tensor t_mul_150 = tl::broadcast_to(t_mul_146 * m + (t_m * mul_146), mul_150.shape());
  const tl::Tensor sum_to_size_151 = tl::sum_to_size(mul_150, m.shape());  // sum_to_size, line 182: tl::sum_to_size(d_mul_11 * m, m.shape())
  const tl::Tensor t_sum_to_size_151 = tl::sum_to_size(t_mul_150, m.shape());
  const tl::Tensor add_152 = add_149 + sum_to_size_151;  // add, line 182: d_m + (tl::sum_to_size(d_mul_11 * m, m.shape()))
  const tl::Tensor t_add_152 = tl::broadcast_to(t_add_149 + t_sum_to_size_151, add_152.shape());
  const tl::Tensor mul_153 = sum_to_size_133 * m;  // mul, line 186: d_mul_9 * m
  const tl::Tensor t_mul_153 = tl::broadcast_to(t_sum_to_size_133 * m + (t_m * sum_to_size_133), mul_153.shape());
  const tl::Tensor sum_to_size_154 = tl::sum_to_size(mul_153, m.shape());  // sum_to_size, line 186: tl::sum_to_size(d_mul_9 * m, m.shape())
  const tl::Tensor t_sum_to_size_154 = tl::sum_to_size(t_mul_153, m.shape());
  const tl::Tensor add_155 = add_152 + sum_to_size_154;  // add, line 186: d_m + (tl::sum_to_size(d_mul_9 * m, m.shape()))
  const tl::Tensor t_add_155 = tl::broadcast_to(t_add_152 + t_sum_to_size_154, add_155.shape());
  const tl::Tensor mul_156 = sum_to_size_133 * m;  // mul, line 187: d_mul_9 * m
  const tl::Tensor t_mul_156 = tl::broadcast_to(t_sum_to_size_133 * m + (t_m * sum_to_size_133), mul_156.shape());
  const tl::Tensor sum_to_size_157 = tl::sum_to_size(mul_156, m.shape());  // sum_to_size, line 187: tl::sum_to_size(d_mul_9 * m, m.shape())
  const tl::Tensor t_sum_to_size_157 = tl::sum_to_size(t_mul_156, m.shape());
  const tl::Tensor add_158 = add_155 + sum_to_size_157;  // add, line 187: d_m + (tl::sum_to_size(d_mul_9 * m, m.shape()))
  const tl::Tensor t_add_158 = tl::broadcast_to(t_add_155 + t_sum_to_size_157, add_158.shape());
  const tl::Tensor mul_159 = sum_to_size_126 * sigmoid_6;  // mul, line 189: d_mul_8 * sigmoid_6
  const tl::Tensor t_mul_159 = tl::broadcast_to(t_sigmoid_6 * sum_to_size_126, mul_159.shape());
  const tl::Tensor sum_to_size_160 = tl::sum_to_size(mul_159, maximum_7.shape());  // sum_to_size, line 189: tl::sum_to_size(d_mul_8 * sigmoid_6, maximum_7.shape())
  const tl::Tensor t_sum_to_size_160 = tl::sum_to_size(t_mul_159, maximum_7.shape());
  const tl::Tensor mul_161 = sum_to_size_126 * maximum_7;  // mul, line 190: d_mul_8 * maximum_7
  const tl::Tensor t_mul_161 = tl::broadcast_to(t_maximum_7 * sum_to_size_126, mul_161.shape());
  const tl::Tensor sum_to_size_162 = tl::sum_to_size(mul_161, sigmoid_6.shape());  // sum_to_size, line 190: tl::sum_to_size(d_mul_8 * maximum_7, sigmoid_6.shape())
  const tl::Tensor t_sum_to_size_162 = tl::sum_to_size(t_mul_161, sigmoid_6.shape());
  const tl::Tensor t_163 = tl::scalar_tensor(0.05, maximum_7.dtype());  // line 192: tl::scalar_tensor(0.05, maximum_7.dtype())
  const tl::Tensor t_164 = t_163 == maximum_7;  // line 192: tl::scalar_tensor(0.05, maximum_7.dtype()) == maximum_7
  const tl::Tensor astype_165 = t_164.astype(maximum_7.dtype());  // astype, line 192: (tl::scalar_tensor(0.05, maximum_7.dtype()) == maximum_7).astype(maxi...
  const tl::Tensor t_166 = m == maximum_7;  // line 192: m == maximum_7
  const tl::Tensor astype_167 = t_166.astype(maximum_7.dtype());  // astype, line 192: (m == maximum_7).astype(maximum_7.dtype())
  const tl::Tensor mul_168 = 0.5 * astype_167;  // mul, line 192: 0.5 * (m == maximum_7).astype(maximum_7.dtype())
  const tl::Tensor mul_169 = mul_168 * astype_165;  // mul, line 192: 0.5 * (m == maximum_7).astype(maximum_7.dtype()) * (tl::scalar_tensor...
  const tl::Tensor t_170 = m == maximum_7;  // line 192: m == maximum_7
  const tl::Tensor astype_171 = t_170.astype(maximum_7.dtype());  // astype, line 192: (m == maximum_7).astype(maximum_7.dtype())
  const tl::Tensor sub_172 = astype_171 - mul_169;  // sub, line 192: (m == maximum_7).astype(maximum_7.dtype()) - 0.5 * (m == maximum_7).a...
  const tl::Tensor mul_173 = sum_to_size_160 * sub_172;  // mul, line 192: d_maximum_7 * ((m == maximum_7).astype(maximum_7.dtype()) - 0.5 * (m ...
  const tl::Tensor t_mul_173 = tl::broadcast_to(t_sum_to_size_160 * sub_172, mul_173.shape());
  const tl::Tensor add_174 = add_158 + mul_173;  // add, line 192: d_m + (d_maximum_7 * ((m == maximum_7).astype(maximum_7.dtype()) - 0....
  const tl::Tensor t_add_174 = tl::broadcast_to(t_add_158 + t_mul_173, add_174.shape());
  const tl::Tensor sub_175 = 1.0 - sigmoid_6;  // sub, line 194: 1.0 - sigmoid_6
  const tl::Tensor t_sub_175 = tl::broadcast_to(-t_sigmoid_6, sub_175.shape());
  const tl::Tensor mul_176 = sigmoid_6 * sub_175;  // mul, line 194: sigmoid_6 * (1.0 - sigmoid_6)
  const tl::Tensor t_mul_176 = tl::broadcast_to(t_sigmoid_6 * sub_175 + (t_sub_175 * sigmoid_6), mul_176.shape());
  const tl::Tensor mul_177 = sum_to_size_162 * mul_176;  // mul, line 194: d_sigmoid_6 * (sigmoid_6 * (1.0 - sigmoid_6))
  const tl::Tensor t_mul_177 = tl::broadcast_to(t_sum_to_size_162 * mul_176 + (t_mul_176 * sum_to_size_162), mul_177.shape());
  const tl::Tensor add_178 = add_174 + mul_177;  // add, line 194: d_m + (d_sigmoid_6 * (sigmoid_6 * (1.0 - sigmoid_6)))
  const tl::Tensor t_add_178 = tl::broadcast_to(t_add_174 + t_mul_177, add_178.shape());
  const tl::Tensor mul_179 = h * h;  // mul, line 196: h * h
  const tl::Tensor t_mul_179 = tl::broadcast_to(t_h * h + (t_h * h), mul_179.shape());
  const tl::Tensor sub_180 = 1.0 - mul_179;  // sub, line 196: 1.0 - h * h
  const tl::Tensor t_sub_180 = tl::broadcast_to(-t_mul_179, sub_180.shape());
  const tl::Tensor mul_181 = add_98 * sub_180;  // mul, line 196: d_h * (1.0 - h * h)
  const tl::Tensor t_mul_181 = tl::broadcast_to(t_add_98 * sub_180 + (t_sub_180 * add_98), mul_181.shape());
  const tl::Tensor sum_to_size_182 = tl::sum_to_size(mul_181, matmul_3.shape());  // sum_to_size, line 198: tl::sum_to_size(d_add_4, matmul_3.shape())
  const tl::Tensor t_sum_to_size_182 = tl::sum_to_size(t_mul_181, matmul_3.shape());
  const tl::Tensor matmul_backward_183 = tl::matmul_backward(sum_to_size_182, x, m, 1);  // matmul_backward, line 200: tl::matmul_backward(d_matmul_3, x, m, 1)
  const tl::Tensor t_matmul_backward_183 = tl::matmul_backward(t_sum_to_size_182, x, m, 1);
  const tl::Tensor add_184 = add_178 + matmul_backward_183;  // add, line 200: d_m + (tl::matmul_backward(d_matmul_3, x, m, 1))
  const tl::Tensor t_add_184 = tl::broadcast_to(t_add_178 + t_matmul_backward_183, add_184.shape());
  return {add_184, t_add_184};
}

// The Hessian of the lambda at functions.cpp:397 with respect to `m` (tl::hessian), of shape
// m.shape() + m.shape(): the derivative of the gradient along each basis
// vector, stacked on a last axis, as the engine's jacfwd(jacrev(f)).
inline tl::Tensor hessian_curved_402(const tl::Tensor& m, const tl::Tensor& x, const tl::Tensor& b, const double scale) {
  const std::int64_t n = m.numel();
  tl::Shape shape = m.shape();
  shape.insert(shape.end(), m.shape().begin(), m.shape().end());
  std::vector<tl::Tensor> columns;
  for (std::int64_t i = 0; i < n; ++i) {
    const tl::Tensor basis = tl::reshape(tl::one_hot(tl::scalar_tensor(i, tl::DType::i64), n, m.dtype()), m.shape());
    columns.push_back(hessian_curved_402_gradient_jvp(m, x, b, scale, basis).second);
  }
  if (n == 0) return tl::zeros(shape, m.dtype());
  return tl::reshape(tl::stack(columns, -1), shape);
}

}  // namespace tlaloc_generated

#pragma GCC diagnostic pop
