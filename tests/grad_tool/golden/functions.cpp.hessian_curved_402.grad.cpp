// The derivative of the gradient of the lambda at functions.cpp:397 (functions.cpp.hessian_curved_402_gradient.grad.cpp) at `m` along `t_m` (forward mode),
// written by tlaloc-grad at build time: the function's own ops, then their
// tangents beside them (t_v is the derivative of v along t_m).
#include <tlaloc/tlaloc.hpp>

#include <cstddef>
#include <utility>
#include <vector>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"

namespace tlaloc_generated {
namespace tl = ::tlaloc;

inline std::pair<tl::Tensor, tl::Tensor> hessian_curved_402_gradient_jvp(const tl::Tensor& m, const tl::Tensor& x, const tl::Tensor& b, const double scale, const tl::Tensor& t_m) {
  const tl::Tensor matmul_3 = tl::matmul(x, m);  // matmul, line 17: tl::matmul(x, m)
  const tl::Tensor t_matmul_3 = tl::matmul(x, t_m);
  const tl::Tensor add_4 = matmul_3 + b;  // add, line 18: matmul_3 + b
  const tl::Tensor t_add_4 = tl::broadcast_to(t_matmul_3, add_4.shape());
  const tl::Tensor h = tl::tanh(add_4);  // tanh, line 19: tl::tanh(add_4)
  const tl::Tensor t_h = t_add_4 * (1.0 - h * h);
  const tl::Tensor sigmoid_6 = tl::sigmoid(m);  // sigmoid, line 20: tl::sigmoid(m)
  const tl::Tensor t_sigmoid_6 = t_m * (sigmoid_6 * (1.0 - sigmoid_6));
  const tl::Tensor maximum_7 = tl::maximum(m, 0.05);  // maximum, line 21: tl::maximum(m, 0.05)
  const tl::Tensor t_maximum_7 = tl::broadcast_to(t_m * ((m == maximum_7).astype(maximum_7.dtype()) - 0.5 * (m == maximum_7).astype(maximum_7.dtype()) * (tl::scalar_tensor(0.05, maximum_7.dtype()) == maximum_7).astype(maximum_7.dtype())), maximum_7.shape());
  const tl::Tensor mul_8 = maximum_7 * sigmoid_6;  // mul, line 22: maximum_7 * sigmoid_6
  const tl::Tensor t_mul_8 = tl::broadcast_to(t_maximum_7 * sigmoid_6 + (t_sigmoid_6 * maximum_7), mul_8.shape());
  const tl::Tensor mul_9 = m * m;  // mul, line 23: m * m
  const tl::Tensor t_mul_9 = tl::broadcast_to(t_m * m + (t_m * m), mul_9.shape());
  const tl::Tensor add_10 = mul_9 + 2.0;  // add, line 24: mul_9 + 2.0
  const tl::Tensor t_add_10 = tl::broadcast_to(t_mul_9, add_10.shape());
  const tl::Tensor mul_11 = m * m;  // mul, line 25: m * m
  const tl::Tensor t_mul_11 = tl::broadcast_to(t_m * m + (t_m * m), mul_11.shape());
  const tl::Tensor add_12 = mul_11 + 1.0;  // add, line 26: mul_11 + 1.0
  const tl::Tensor t_add_12 = tl::broadcast_to(t_mul_11, add_12.shape());
  const tl::Tensor pow_13 = tl::pow(add_12, 1.5);  // pow, line 27: tl::pow(add_12, 1.5)
  const tl::Tensor t_pow_13 = tl::broadcast_to(t_add_12 * tl::where(tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype()) == 0, 0.0, tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype()) * tl::pow(add_12.astype(pow_13.dtype()), tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype()) - 1.0)), pow_13.shape());
  const tl::Tensor div_14 = pow_13 / add_10;  // div, line 28: pow_13 / add_10
  const tl::Tensor t_div_14 = tl::broadcast_to(t_pow_13 * tl::reciprocal(add_10) + (t_add_10 * -(div_14 / add_10)), div_14.shape());
  const tl::Tensor r = div_14 + mul_8;  // add, line 29: div_14 + mul_8
  const tl::Tensor t_r = tl::broadcast_to(t_div_14 + t_mul_8, r.shape());
  const tl::Tensor mul_16 = m * 2.0;  // mul, line 30: m * 2.0
  const tl::Tensor t_mul_16 = tl::broadcast_to(t_m * 2.0, mul_16.shape());
  const tl::Tensor log_softmax_17 = tl::log_softmax(mul_16);  // log_softmax, line 31: tl::log_softmax(mul_16)
  const tl::Tensor e_log_softmax_17 = tl::exp(mul_16 - tl::stop_gradient(tl::max(mul_16, {-1}, true)));
  const tl::Tensor z_log_softmax_17 = tl::sum(e_log_softmax_17, {-1}, true);
  const tl::Tensor t_log_softmax_17 = tl::broadcast_to(t_mul_16 - tl::sum(t_mul_16 * e_log_softmax_17, {-1}, true) * tl::reciprocal(z_log_softmax_17), log_softmax_17.shape());
  const tl::Tensor sum_18 = tl::sum(log_softmax_17);  // sum, line 32: tl::sum(log_softmax_17)
  const tl::Tensor t_sum_18 = tl::sum(t_log_softmax_17);
  const tl::Tensor sum_19 = tl::sum(r);  // sum, line 33: tl::sum(r)
  const tl::Tensor t_sum_19 = tl::sum(t_r);
  const tl::Tensor mul_20 = m * 0.5;  // mul, line 34: m * 0.5
  const tl::Tensor t_mul_20 = tl::broadcast_to(t_m * 0.5, mul_20.shape());
  const tl::Tensor exp_21 = tl::exp(mul_20);  // exp, line 35: tl::exp(mul_20)
  const tl::Tensor t_exp_21 = t_mul_20 * exp_21;
  const tl::Tensor mean_22 = tl::mean(exp_21);  // mean, line 36: tl::mean(exp_21)
  const tl::DType stats_mean_22 = tl::stats_dtype(exp_21.dtype());
  const tl::Tensor t_mean_22 = (tl::sum(t_exp_21.astype(stats_mean_22)) * tl::reciprocal(tl::scalar_tensor(double(exp_21.numel() / std::max<std::int64_t>(1, mean_22.numel())), stats_mean_22))).astype(mean_22.dtype());
  const tl::Tensor mul_23 = h * h;  // mul, line 37: h * h
  const tl::Tensor t_mul_23 = tl::broadcast_to(t_h * h + (t_h * h), mul_23.shape());
  const tl::Tensor sum_24 = tl::sum(mul_23);  // sum, line 38: tl::sum(mul_23)
  const tl::Tensor t_sum_24 = tl::sum(t_mul_23);
  const tl::Tensor mul_25 = sum_24 * scale;  // mul, line 39: sum_24 * scale
  const tl::Tensor t_mul_25 = tl::broadcast_to(t_sum_24 * scale, mul_25.shape());
  const tl::Tensor add_26 = mul_25 + mean_22;  // add, line 40: mul_25 + mean_22
  const tl::Tensor t_add_26 = tl::broadcast_to(t_mul_25 + t_mean_22, add_26.shape());
  const tl::Tensor add_27 = add_26 + sum_19;  // add, line 41: add_26 + sum_19
  const tl::Tensor t_add_27 = tl::broadcast_to(t_add_26 + t_sum_19, add_27.shape());
  const tl::Tensor sub_28 = add_27 - sum_18;  // sub, line 42: add_27 - sum_18
  const tl::Tensor t_sub_28 = tl::broadcast_to(t_add_27 - t_sum_18, sub_28.shape());
  if (sub_28.rank() != 0) throw tl::ValueError("tlaloc-grad: the lambda at functions.cpp:397 must return a scalar, got " + tl::shape_string(sub_28.shape()));
  const tl::Tensor t_56 = tl::scalar_tensor(1, sub_28.dtype());  // line 74: tl::scalar_tensor(1, sub_28.dtype())
  const tl::Tensor sum_to_size_57 = tl::sum_to_size(t_56, add_27.shape());  // sum_to_size, line 76: tl::sum_to_size(d_sub_28, add_27.shape())
  const tl::Tensor neg_58 = -t_56;  // neg, line 77: -d_sub_28
  const tl::Tensor sum_to_size_59 = tl::sum_to_size(neg_58, sum_18.shape());  // sum_to_size, line 77: tl::sum_to_size(-d_sub_28, sum_18.shape())
  const tl::Tensor sum_to_size_60 = tl::sum_to_size(sum_to_size_57, add_26.shape());  // sum_to_size, line 79: tl::sum_to_size(d_add_27, add_26.shape())
  const tl::Tensor sum_to_size_61 = tl::sum_to_size(sum_to_size_57, sum_19.shape());  // sum_to_size, line 80: tl::sum_to_size(d_add_27, sum_19.shape())
  const tl::Tensor sum_to_size_62 = tl::sum_to_size(sum_to_size_60, mul_25.shape());  // sum_to_size, line 82: tl::sum_to_size(d_add_26, mul_25.shape())
  const tl::Tensor sum_to_size_63 = tl::sum_to_size(sum_to_size_60, mean_22.shape());  // sum_to_size, line 83: tl::sum_to_size(d_add_26, mean_22.shape())
  const tl::Tensor mul_64 = sum_to_size_62 * scale;  // mul, line 85: d_mul_25 * scale
  const tl::Tensor broadcast_to_65 = tl::broadcast_to(mul_64, mul_23.shape());  // broadcast_to, line 87: tl::broadcast_to(d_sum_24, mul_23.shape())
  const tl::Tensor mul_66 = broadcast_to_65 * h;  // mul, line 89: d_mul_23 * h
  const tl::Tensor t_mul_66 = tl::broadcast_to(t_h * broadcast_to_65, mul_66.shape());
  const tl::Tensor sum_to_size_67 = tl::sum_to_size(mul_66, h.shape());  // sum_to_size, line 89: tl::sum_to_size(d_mul_23 * h, h.shape())
  const tl::Tensor t_sum_to_size_67 = tl::sum_to_size(t_mul_66, h.shape());
  const tl::Tensor mul_68 = broadcast_to_65 * h;  // mul, line 90: d_mul_23 * h
  const tl::Tensor t_mul_68 = tl::broadcast_to(t_h * broadcast_to_65, mul_68.shape());
  const tl::Tensor sum_to_size_69 = tl::sum_to_size(mul_68, h.shape());  // sum_to_size, line 90: tl::sum_to_size(d_mul_23 * h, h.shape())
  const tl::Tensor t_sum_to_size_69 = tl::sum_to_size(t_mul_68, h.shape());
  const tl::Tensor add_70 = sum_to_size_67 + sum_to_size_69;  // add, line 90: d_h + (tl::sum_to_size(d_mul_23 * h, h.shape()))
  const tl::Tensor t_add_70 = tl::broadcast_to(t_sum_to_size_67 + t_sum_to_size_69, add_70.shape());
  const tlaloc::DType u_stats_mean_22 = tl::stats_dtype(exp_21.dtype());
  const tl::Tensor t_71 = tl::scalar_tensor(double(exp_21.numel() / std::max<std::int64_t>(1, mean_22.numel())), u_stats_mean_22);  // line 93: tl::scalar_tensor(double(exp_21.numel() / std::max<std::int64_t>(1, m...
  const tl::Tensor reciprocal_72 = tl::reciprocal(t_71);  // reciprocal, line 93: tl::reciprocal(tl::scalar_tensor(double(exp_21.numel() / std::max<std...
  const tl::Tensor astype_73 = sum_to_size_63.astype(u_stats_mean_22);  // astype, line 93: d_mean_22.astype(stats_mean_22)
  const tl::Tensor mul_74 = astype_73 * reciprocal_72;  // mul, line 93: d_mean_22.astype(stats_mean_22) * tl::reciprocal(tl::scalar_tensor(do...
  const tl::Tensor broadcast_to_75 = tl::broadcast_to(mul_74, exp_21.shape());  // broadcast_to, line 93: tl::broadcast_to(d_mean_22.astype(stats_mean_22) * tl::reciprocal(tl:...
  const tl::Tensor astype_76 = broadcast_to_75.astype(exp_21.dtype());  // astype, line 93: tl::broadcast_to(d_mean_22.astype(stats_mean_22) * tl::reciprocal(tl:...
  const tl::Tensor mul_77 = astype_76 * exp_21;  // mul, line 95: d_exp_21 * exp_21
  const tl::Tensor t_mul_77 = tl::broadcast_to(t_exp_21 * astype_76, mul_77.shape());
  const tl::Tensor mul_78 = mul_77 * 0.5;  // mul, line 97: d_mul_20 * 0.5
  const tl::Tensor t_mul_78 = tl::broadcast_to(t_mul_77 * 0.5, mul_78.shape());
  const tl::Tensor broadcast_to_79 = tl::broadcast_to(sum_to_size_61, r.shape());  // broadcast_to, line 99: tl::broadcast_to(d_sum_19, r.shape())
  const tl::Tensor broadcast_to_80 = tl::broadcast_to(sum_to_size_59, log_softmax_17.shape());  // broadcast_to, line 101: tl::broadcast_to(d_sum_18, log_softmax_17.shape())
  const tl::Tensor max_81 = tl::max(mul_16, {-1}, true);  // max, line 103: tl::max(mul_16, {-1}, true)
  const tl::Tensor t_max_81 = tl::extreme_jvp(t_mul_16, mul_16, max_81, {-1}, true);
  const tl::Tensor t_82 = tl::stop_gradient(tl::max(mul_16, {-1}, true));  // line 103: tl::stop_gradient(tl::max(mul_16, {-1}, true))
  const tl::Tensor sub_83 = mul_16 - t_82;  // sub, line 103: mul_16 - tl::stop_gradient(tl::max(mul_16, {-1}, true))
  const tl::Tensor t_sub_83 = tl::broadcast_to(t_mul_16, sub_83.shape());
  const tl::Tensor u_e_log_softmax_17 = tl::exp(sub_83);  // exp, line 103: tl::exp(mul_16 - tl::stop_gradient(tl::max(mul_16, {-1}, true)))
  const tl::Tensor t_u_e_log_softmax_17 = t_sub_83 * u_e_log_softmax_17;
  const tl::Tensor u_z_log_softmax_17 = tl::sum(u_e_log_softmax_17, {-1}, true);  // sum, line 104: tl::sum(e_log_softmax_17, {-1}, true)
  const tl::Tensor t_u_z_log_softmax_17 = tl::sum(t_u_e_log_softmax_17, {-1}, true);
  const tl::Tensor reciprocal_86 = tl::reciprocal(u_z_log_softmax_17);  // reciprocal, line 105: tl::reciprocal(z_log_softmax_17)
  const tl::Tensor t_reciprocal_86 = t_u_z_log_softmax_17 * -(reciprocal_86 * reciprocal_86);
  const tl::Tensor neg_87 = -broadcast_to_80;  // neg, line 105: -d_log_softmax_17
  const tl::Tensor sum_to_size_88 = tl::sum_to_size(neg_87, u_z_log_softmax_17.shape());  // sum_to_size, line 105: tl::sum_to_size(-d_log_softmax_17, z_log_softmax_17.shape())
  const tl::Tensor mul_89 = sum_to_size_88 * reciprocal_86;  // mul, line 105: tl::sum_to_size(-d_log_softmax_17, z_log_softmax_17.shape()) * tl::re...
  const tl::Tensor t_mul_89 = tl::broadcast_to(t_reciprocal_86 * sum_to_size_88, mul_89.shape());
  const tl::Tensor broadcast_to_90 = tl::broadcast_to(mul_89, u_e_log_softmax_17.shape());  // broadcast_to, line 105: tl::broadcast_to(tl::sum_to_size(-d_log_softmax_17, z_log_softmax_17....
  const tl::Tensor t_broadcast_to_90 = tl::broadcast_to(t_mul_89, u_e_log_softmax_17.shape());
  const tl::Tensor mul_91 = broadcast_to_90 * u_e_log_softmax_17;  // mul, line 105: tl::broadcast_to(tl::sum_to_size(-d_log_softmax_17, z_log_softmax_17....
  const tl::Tensor t_mul_91 = tl::broadcast_to(t_broadcast_to_90 * u_e_log_softmax_17 + (t_u_e_log_softmax_17 * broadcast_to_90), mul_91.shape());
  const tl::Tensor add_92 = broadcast_to_80 + mul_91;  // add, line 105: d_log_softmax_17 + tl::broadcast_to(tl::sum_to_size(-d_log_softmax_17...
  const tl::Tensor t_add_92 = tl::broadcast_to(t_mul_91, add_92.shape());
  const tl::Tensor mul_93 = add_92 * 2.0;  // mul, line 107: d_mul_16 * 2.0
  const tl::Tensor t_mul_93 = tl::broadcast_to(t_add_92 * 2.0, mul_93.shape());
  const tl::Tensor add_94 = mul_78 + mul_93;  // add, line 107: d_m + (d_mul_16 * 2.0)
  const tl::Tensor t_add_94 = tl::broadcast_to(t_mul_78 + t_mul_93, add_94.shape());
  const tl::Tensor sum_to_size_95 = tl::sum_to_size(broadcast_to_79, div_14.shape());  // sum_to_size, line 109: tl::sum_to_size(d_r, div_14.shape())
  const tl::Tensor sum_to_size_96 = tl::sum_to_size(broadcast_to_79, mul_8.shape());  // sum_to_size, line 110: tl::sum_to_size(d_r, mul_8.shape())
  const tl::Tensor reciprocal_97 = tl::reciprocal(add_10);  // reciprocal, line 112: tl::reciprocal(add_10)
  const tl::Tensor t_reciprocal_97 = t_add_10 * -(reciprocal_97 * reciprocal_97);
  const tl::Tensor mul_98 = sum_to_size_95 * reciprocal_97;  // mul, line 112: d_div_14 * tl::reciprocal(add_10)
  const tl::Tensor t_mul_98 = tl::broadcast_to(t_reciprocal_97 * sum_to_size_95, mul_98.shape());
  const tl::Tensor sum_to_size_99 = tl::sum_to_size(mul_98, pow_13.shape());  // sum_to_size, line 112: tl::sum_to_size(d_div_14 * tl::reciprocal(add_10), pow_13.shape())
  const tl::Tensor t_sum_to_size_99 = tl::sum_to_size(t_mul_98, pow_13.shape());
  const tl::Tensor div_100 = div_14 / add_10;  // div, line 113: div_14 / add_10
  const tl::Tensor t_div_100 = tl::broadcast_to(t_div_14 * tl::reciprocal(add_10) + (t_add_10 * -(div_100 / add_10)), div_100.shape());
  const tl::Tensor neg_101 = -div_100;  // neg, line 113: -(div_14 / add_10)
  const tl::Tensor t_neg_101 = -t_div_100;
  const tl::Tensor mul_102 = sum_to_size_95 * neg_101;  // mul, line 113: d_div_14 * -(div_14 / add_10)
  const tl::Tensor t_mul_102 = tl::broadcast_to(t_neg_101 * sum_to_size_95, mul_102.shape());
  const tl::Tensor sum_to_size_103 = tl::sum_to_size(mul_102, add_10.shape());  // sum_to_size, line 113: tl::sum_to_size(d_div_14 * -(div_14 / add_10), add_10.shape())
  const tl::Tensor t_sum_to_size_103 = tl::sum_to_size(t_mul_102, add_10.shape());
  const tl::Tensor t_104 = tl::scalar_tensor(1.5, pow_13.dtype());  // line 115: tl::scalar_tensor(1.5, pow_13.dtype())
  const tl::Tensor astype_105 = t_104.astype(pow_13.dtype());  // astype, line 115: tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype())
  const tl::Tensor sub_106 = astype_105 - 1.0;  // sub, line 115: tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype()) - 1.0
  const tl::Tensor astype_107 = add_12.astype(pow_13.dtype());  // astype, line 115: add_12.astype(pow_13.dtype())
  const tl::Tensor t_astype_107 = t_add_12.astype(pow_13.dtype());
  const tl::Tensor pow_108 = tl::pow(astype_107, sub_106);  // pow, line 115: tl::pow(add_12.astype(pow_13.dtype()), tl::scalar_tensor(1.5, pow_13....
  const tl::Tensor t_pow_108 = tl::broadcast_to(t_astype_107 * tl::where(sub_106.astype(pow_108.dtype()) == 0, 0.0, sub_106.astype(pow_108.dtype()) * tl::pow(astype_107.astype(pow_108.dtype()), sub_106.astype(pow_108.dtype()) - 1.0)), pow_108.shape());
  const tl::Tensor t_109 = tl::scalar_tensor(1.5, pow_13.dtype());  // line 115: tl::scalar_tensor(1.5, pow_13.dtype())
  const tl::Tensor astype_110 = t_109.astype(pow_13.dtype());  // astype, line 115: tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype())
  const tl::Tensor mul_111 = astype_110 * pow_108;  // mul, line 115: tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype()) * tl::p...
  const tl::Tensor t_mul_111 = tl::broadcast_to(t_pow_108 * astype_110, mul_111.shape());
  const tl::Tensor t_112 = tl::scalar_tensor(1.5, pow_13.dtype());  // line 115: tl::scalar_tensor(1.5, pow_13.dtype())
  const tl::Tensor astype_113 = t_112.astype(pow_13.dtype());  // astype, line 115: tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype())
  const tl::Tensor t_114 = astype_113 == 0;  // line 115: tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype()) == 0
  const tl::Tensor where_115 = tl::where(t_114, 0.0, mul_111);  // where, line 115: tl::where(tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype(...
  const tl::Tensor t_where_115 = tl::broadcast_to(tl::where(t_114, tl::zeros_like(where_115), t_mul_111), where_115.shape());
  const tl::Tensor mul_116 = sum_to_size_99 * where_115;  // mul, line 115: d_pow_13 * tl::where(tl::scalar_tensor(1.5, pow_13.dtype()).astype(po...
  const tl::Tensor t_mul_116 = tl::broadcast_to(t_sum_to_size_99 * where_115 + (t_where_115 * sum_to_size_99), mul_116.shape());
  const tl::Tensor mul_117 = mul_116 * m;  // mul, line 119: d_mul_11 * m
  const tl::Tensor t_mul_117 = tl::broadcast_to(t_mul_116 * m + (t_m * mul_116), mul_117.shape());
  const tl::Tensor sum_to_size_118 = tl::sum_to_size(mul_117, m.shape());  // sum_to_size, line 119: tl::sum_to_size(d_mul_11 * m, m.shape())
  const tl::Tensor t_sum_to_size_118 = tl::sum_to_size(t_mul_117, m.shape());
  const tl::Tensor add_119 = add_94 + sum_to_size_118;  // add, line 119: d_m + (tl::sum_to_size(d_mul_11 * m, m.shape()))
  const tl::Tensor t_add_119 = tl::broadcast_to(t_add_94 + t_sum_to_size_118, add_119.shape());
  const tl::Tensor mul_120 = mul_116 * m;  // mul, line 120: d_mul_11 * m
  const tl::Tensor t_mul_120 = tl::broadcast_to(t_mul_116 * m + (t_m * mul_116), mul_120.shape());
  const tl::Tensor sum_to_size_121 = tl::sum_to_size(mul_120, m.shape());  // sum_to_size, line 120: tl::sum_to_size(d_mul_11 * m, m.shape())
  const tl::Tensor t_sum_to_size_121 = tl::sum_to_size(t_mul_120, m.shape());
  const tl::Tensor add_122 = add_119 + sum_to_size_121;  // add, line 120: d_m + (tl::sum_to_size(d_mul_11 * m, m.shape()))
  const tl::Tensor t_add_122 = tl::broadcast_to(t_add_119 + t_sum_to_size_121, add_122.shape());
  const tl::Tensor mul_123 = sum_to_size_103 * m;  // mul, line 124: d_mul_9 * m
  const tl::Tensor t_mul_123 = tl::broadcast_to(t_sum_to_size_103 * m + (t_m * sum_to_size_103), mul_123.shape());
  const tl::Tensor sum_to_size_124 = tl::sum_to_size(mul_123, m.shape());  // sum_to_size, line 124: tl::sum_to_size(d_mul_9 * m, m.shape())
  const tl::Tensor t_sum_to_size_124 = tl::sum_to_size(t_mul_123, m.shape());
  const tl::Tensor add_125 = add_122 + sum_to_size_124;  // add, line 124: d_m + (tl::sum_to_size(d_mul_9 * m, m.shape()))
  const tl::Tensor t_add_125 = tl::broadcast_to(t_add_122 + t_sum_to_size_124, add_125.shape());
  const tl::Tensor mul_126 = sum_to_size_103 * m;  // mul, line 125: d_mul_9 * m
  const tl::Tensor t_mul_126 = tl::broadcast_to(t_sum_to_size_103 * m + (t_m * sum_to_size_103), mul_126.shape());
  const tl::Tensor sum_to_size_127 = tl::sum_to_size(mul_126, m.shape());  // sum_to_size, line 125: tl::sum_to_size(d_mul_9 * m, m.shape())
  const tl::Tensor t_sum_to_size_127 = tl::sum_to_size(t_mul_126, m.shape());
  const tl::Tensor add_128 = add_125 + sum_to_size_127;  // add, line 125: d_m + (tl::sum_to_size(d_mul_9 * m, m.shape()))
  const tl::Tensor t_add_128 = tl::broadcast_to(t_add_125 + t_sum_to_size_127, add_128.shape());
  const tl::Tensor mul_129 = sum_to_size_96 * sigmoid_6;  // mul, line 127: d_mul_8 * sigmoid_6
  const tl::Tensor t_mul_129 = tl::broadcast_to(t_sigmoid_6 * sum_to_size_96, mul_129.shape());
  const tl::Tensor sum_to_size_130 = tl::sum_to_size(mul_129, maximum_7.shape());  // sum_to_size, line 127: tl::sum_to_size(d_mul_8 * sigmoid_6, maximum_7.shape())
  const tl::Tensor t_sum_to_size_130 = tl::sum_to_size(t_mul_129, maximum_7.shape());
  const tl::Tensor mul_131 = sum_to_size_96 * maximum_7;  // mul, line 128: d_mul_8 * maximum_7
  const tl::Tensor t_mul_131 = tl::broadcast_to(t_maximum_7 * sum_to_size_96, mul_131.shape());
  const tl::Tensor sum_to_size_132 = tl::sum_to_size(mul_131, sigmoid_6.shape());  // sum_to_size, line 128: tl::sum_to_size(d_mul_8 * maximum_7, sigmoid_6.shape())
  const tl::Tensor t_sum_to_size_132 = tl::sum_to_size(t_mul_131, sigmoid_6.shape());
  const tl::Tensor t_133 = tl::scalar_tensor(0.05, maximum_7.dtype());  // line 130: tl::scalar_tensor(0.05, maximum_7.dtype())
  const tl::Tensor t_134 = t_133 == maximum_7;  // line 130: tl::scalar_tensor(0.05, maximum_7.dtype()) == maximum_7
  const tl::Tensor astype_135 = t_134.astype(maximum_7.dtype());  // astype, line 130: (tl::scalar_tensor(0.05, maximum_7.dtype()) == maximum_7).astype(maxi...
  const tl::Tensor t_136 = m == maximum_7;  // line 130: m == maximum_7
  const tl::Tensor astype_137 = t_136.astype(maximum_7.dtype());  // astype, line 130: (m == maximum_7).astype(maximum_7.dtype())
  const tl::Tensor mul_138 = 0.5 * astype_137;  // mul, line 130: 0.5 * (m == maximum_7).astype(maximum_7.dtype())
  const tl::Tensor mul_139 = mul_138 * astype_135;  // mul, line 130: 0.5 * (m == maximum_7).astype(maximum_7.dtype()) * (tl::scalar_tensor...
  const tl::Tensor t_140 = m == maximum_7;  // line 130: m == maximum_7
  const tl::Tensor astype_141 = t_140.astype(maximum_7.dtype());  // astype, line 130: (m == maximum_7).astype(maximum_7.dtype())
  const tl::Tensor sub_142 = astype_141 - mul_139;  // sub, line 130: (m == maximum_7).astype(maximum_7.dtype()) - 0.5 * (m == maximum_7).a...
  const tl::Tensor mul_143 = sum_to_size_130 * sub_142;  // mul, line 130: d_maximum_7 * ((m == maximum_7).astype(maximum_7.dtype()) - 0.5 * (m ...
  const tl::Tensor t_mul_143 = tl::broadcast_to(t_sum_to_size_130 * sub_142, mul_143.shape());
  const tl::Tensor add_144 = add_128 + mul_143;  // add, line 130: d_m + (d_maximum_7 * ((m == maximum_7).astype(maximum_7.dtype()) - 0....
  const tl::Tensor t_add_144 = tl::broadcast_to(t_add_128 + t_mul_143, add_144.shape());
  const tl::Tensor sub_145 = 1.0 - sigmoid_6;  // sub, line 132: 1.0 - sigmoid_6
  const tl::Tensor t_sub_145 = tl::broadcast_to(-t_sigmoid_6, sub_145.shape());
  const tl::Tensor mul_146 = sigmoid_6 * sub_145;  // mul, line 132: sigmoid_6 * (1.0 - sigmoid_6)
  const tl::Tensor t_mul_146 = tl::broadcast_to(t_sigmoid_6 * sub_145 + (t_sub_145 * sigmoid_6), mul_146.shape());
  const tl::Tensor mul_147 = sum_to_size_132 * mul_146;  // mul, line 132: d_sigmoid_6 * (sigmoid_6 * (1.0 - sigmoid_6))
  const tl::Tensor t_mul_147 = tl::broadcast_to(t_sum_to_size_132 * mul_146 + (t_mul_146 * sum_to_size_132), mul_147.shape());
  const tl::Tensor add_148 = add_144 + mul_147;  // add, line 132: d_m + (d_sigmoid_6 * (sigmoid_6 * (1.0 - sigmoid_6)))
  const tl::Tensor t_add_148 = tl::broadcast_to(t_add_144 + t_mul_147, add_148.shape());
  const tl::Tensor mul_149 = h * h;  // mul, line 134: h * h
  const tl::Tensor t_mul_149 = tl::broadcast_to(t_h * h + (t_h * h), mul_149.shape());
  const tl::Tensor sub_150 = 1.0 - mul_149;  // sub, line 134: 1.0 - h * h
  const tl::Tensor t_sub_150 = tl::broadcast_to(-t_mul_149, sub_150.shape());
  const tl::Tensor mul_151 = add_70 * sub_150;  // mul, line 134: d_h * (1.0 - h * h)
  const tl::Tensor t_mul_151 = tl::broadcast_to(t_add_70 * sub_150 + (t_sub_150 * add_70), mul_151.shape());
  const tl::Tensor sum_to_size_152 = tl::sum_to_size(mul_151, matmul_3.shape());  // sum_to_size, line 136: tl::sum_to_size(d_add_4, matmul_3.shape())
  const tl::Tensor t_sum_to_size_152 = tl::sum_to_size(t_mul_151, matmul_3.shape());
  const tl::Tensor matmul_backward_153 = tl::matmul_backward(sum_to_size_152, x, m, 1);  // matmul_backward, line 138: tl::matmul_backward(d_matmul_3, x, m, 1)
  const tl::Tensor t_matmul_backward_153 = tl::matmul_backward(t_sum_to_size_152, x, m, 1);
  const tl::Tensor add_154 = add_148 + matmul_backward_153;  // add, line 138: d_m + (tl::matmul_backward(d_matmul_3, x, m, 1))
  const tl::Tensor t_add_154 = tl::broadcast_to(t_add_148 + t_matmul_backward_153, add_154.shape());
  return {add_154, t_add_154};
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
