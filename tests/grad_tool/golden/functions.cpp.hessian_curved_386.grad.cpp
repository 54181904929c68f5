// The derivative of the gradient of the lambda at functions.cpp:381 (functions.cpp.hessian_curved_386_gradient.grad.cpp) at `m` along `t_m` (forward mode),
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

inline std::pair<tl::Tensor, tl::Tensor> hessian_curved_386_gradient_jvp(const tl::Tensor& m, const tl::Tensor& x, const tl::Tensor& b, const double scale, const tl::Tensor& t_m) {
  const tl::Tensor matmul_3 = tl::matmul(x, m);  // matmul, line 17: tl::matmul(x, m)
  if (x.rank() != 2 || m.rank() != 2) throw tl::ShapeError("tlaloc-grad: this gradient's matmul takes matrices, got " + tl::shape_string(x.shape()) + " and " + tl::shape_string(m.shape()));
  const tl::Tensor t_matmul_3 = tl::matmul(x, t_m);
  if (x.rank() != 2 || m.rank() != 2) throw tl::ShapeError("tlaloc-grad: this gradient's matmul takes matrices, got " + tl::shape_string(x.shape()) + " and " + tl::shape_string(m.shape()));
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
  const tl::Tensor mul_16 = m * 2.0;  // mul, line 31: m * 2.0
  const tl::Tensor t_mul_16 = tl::broadcast_to(t_m * 2.0, mul_16.shape());
  const tl::Tensor log_softmax_17 = tl::log_softmax(mul_16);  // log_softmax, line 32: tl::log_softmax(mul_16)
  const tl::Tensor e_log_softmax_17 = tl::exp(mul_16 - tl::stop_gradient(tl::max(mul_16, {-1}, true)));
  const tl::Tensor z_log_softmax_17 = tl::sum(e_log_softmax_17, {-1}, true);
  const tl::Tensor t_log_softmax_17 = tl::broadcast_to(t_mul_16 - tl::sum(t_mul_16 * e_log_softmax_17, {-1}, true) * tl::reciprocal(z_log_softmax_17), log_softmax_17.shape());
  const tl::Tensor sum_18 = tl::sum(log_softmax_17);  // sum, line 33: tl::sum(log_softmax_17)
  const tl::Tensor t_sum_18 = tl::sum(t_log_softmax_17);
  const tl::Tensor sum_19 = tl::sum(r);  // sum, line 34: tl::sum(r)
  const tl::Tensor t_sum_19 = tl::sum(t_r);
  const tl::Tensor mul_20 = m * 0.5;  // mul, line 35: m * 0.5
  const tl::Tensor t_mul_20 = tl::broadcast_to(t_m * 0.5, mul_20.shape());
  const tl::Tensor exp_21 = tl::exp(mul_20);  // exp, line 36: tl::exp(mul_20)
  const tl::Tensor t_exp_21 = t_mul_20 * exp_21;
  const tl::Tensor mean_22 = tl::mean(exp_21);  // mean, line 37: tl::mean(exp_21)
  const tl::Tensor t_mean_22 = tl::sum(t_exp_21) * tl::reciprocal(tl::scalar_tensor(double(exp_21.numel() / std::max<std::int64_t>(1, mean_22.numel())), mean_22.dtype()));
  const tl::Tensor mul_23 = h * h;  // mul, line 38: h * h
  const tl::Tensor t_mul_23 = tl::broadcast_to(t_h * h + (t_h * h), mul_23.shape());
  const tl::Tensor sum_24 = tl::sum(mul_23);  // sum, line 39: tl::sum(mul_23)
  const tl::Tensor t_sum_24 = tl::sum(t_mul_23);
  const tl::Tensor mul_25 = sum_24 * scale;  // mul, line 40: sum_24 * scale
  const tl::Tensor t_mul_25 = tl::broadcast_to(t_sum_24 * scale, mul_25.shape());
  const tl::Tensor add_26 = mul_25 + mean_22;  // add, line 41: mul_25 + mean_22
  const tl::Tensor t_add_26 = tl::broadcast_to(t_mul_25 + t_mean_22, add_26.shape());
  const tl::Tensor add_27 = add_26 + sum_19;  // add, line 42: add_26 + sum_19
  const tl::Tensor t_add_27 = tl::broadcast_to(t_add_26 + t_sum_19, add_27.shape());
  const tl::Tensor sub_28 = add_27 - sum_18;  // sub, line 43: add_27 - sum_18
  const tl::Tensor t_sub_28 = tl::broadcast_to(t_add_27 - t_sum_18, sub_28.shape());
  if (sub_28.rank() != 0) throw tl::ValueError("tlaloc-grad: the lambda at functions.cpp:381 must return a scalar, got " + tl::shape_string(sub_28.shape()));
  const tl::Tensor t_29 = tl::scalar_tensor(1, sub_28.dtype());  // line 75: tl::scalar_tensor(1, sub_28.dtype())
  const tl::Tensor sum_to_size_30 = tl::sum_to_size(t_29, add_27.shape());  // sum_to_size, line 77: tl::sum_to_size(d_sub_28, add_27.shape())
  const tl::Tensor neg_31 = -t_29;  // neg, line 78: -d_sub_28
  const tl::Tensor sum_to_size_32 = tl::sum_to_size(neg_31, sum_18.shape());  // sum_to_size, line 78: tl::sum_to_size(-d_sub_28, sum_18.shape())
  const tl::Tensor sum_to_size_33 = tl::sum_to_size(sum_to_size_30, add_26.shape());  // sum_to_size, line 80: tl::sum_to_size(d_add_27, add_26.shape())
  const tl::Tensor sum_to_size_34 = tl::sum_to_size(sum_to_size_30, sum_19.shape());  // sum_to_size, line 81: tl::sum_to_size(d_add_27, sum_19.shape())
  const tl::Tensor sum_to_size_35 = tl::sum_to_size(sum_to_size_33, mul_25.shape());  // sum_to_size, line 83: tl::sum_to_size(d_add_26, mul_25.shape())
  const tl::Tensor sum_to_size_36 = tl::sum_to_size(sum_to_size_33, mean_22.shape());  // sum_to_size, line 84: tl::sum_to_size(d_add_26, mean_22.shape())
  const tl::Tensor mul_37 = sum_to_size_35 * scale;  // mul, line 86: d_mul_25 * scale
  const tl::Tensor broadcast_to_38 = tl::broadcast_to(mul_37, mul_23.shape());  // broadcast_to, line 88: tl::broadcast_to(d_sum_24, mul_23.shape())
  const tl::Tensor mul_39 = broadcast_to_38 * h;  // mul, line 90: d_mul_23 * h
  const tl::Tensor t_mul_39 = tl::broadcast_to(t_h * broadcast_to_38, mul_39.shape());
  const tl::Tensor sum_to_size_40 = tl::sum_to_size(mul_39, h.shape());  // sum_to_size, line 90: tl::sum_to_size(d_mul_23 * h, h.shape())
  const tl::Tensor t_sum_to_size_40 = tl::sum_to_size(t_mul_39, h.shape());
  const tl::Tensor mul_41 = broadcast_to_38 * h;  // mul, line 91: d_mul_23 * h
  const tl::Tensor t_mul_41 = tl::broadcast_to(t_h * broadcast_to_38, mul_41.shape());
  const tl::Tensor sum_to_size_42 = tl::sum_to_size(mul_41, h.shape());  // sum_to_size, line 91: tl::sum_to_size(d_mul_23 * h, h.shape())
  const tl::Tensor t_sum_to_size_42 = tl::sum_to_size(t_mul_41, h.shape());
  const tl::Tensor add_43 = sum_to_size_40 + sum_to_size_42;  // add, line 91: d_h + (tl::sum_to_size(d_mul_23 * h, h.shape()))
  const tl::Tensor t_add_43 = tl::broadcast_to(t_sum_to_size_40 + t_sum_to_size_42, add_43.shape());
  const tl::Tensor t_44 = tl::scalar_tensor(double(exp_21.numel() / std::max<std::int64_t>(1, mean_22.numel())), mean_22.dtype());  // line 93: tl::scalar_tensor(double(exp_21.numel() / std::max<std::int64_t>(1, m...
  const tl::Tensor reciprocal_45 = tl::reciprocal(t_44);  // reciprocal, line 93: tl::reciprocal(tl::scalar_tensor(double(exp_21.numel() / std::max<std...
  const tl::Tensor mul_46 = sum_to_size_36 * reciprocal_45;  // mul, line 93: d_mean_22 * tl::reciprocal(tl::scalar_tensor(double(exp_21.numel() / ...
  const tl::Tensor broadcast_to_47 = tl::broadcast_to(mul_46, exp_21.shape());  // broadcast_to, line 93: tl::broadcast_to(d_mean_22 * tl::reciprocal(tl::scalar_tensor(double(...
  const tl::Tensor mul_48 = broadcast_to_47 * exp_21;  // mul, line 95: d_exp_21 * exp_21
  const tl::Tensor t_mul_48 = tl::broadcast_to(t_exp_21 * broadcast_to_47, mul_48.shape());
  const tl::Tensor mul_49 = mul_48 * 0.5;  // mul, line 97: d_mul_20 * 0.5
  const tl::Tensor t_mul_49 = tl::broadcast_to(t_mul_48 * 0.5, mul_49.shape());
  const tl::Tensor broadcast_to_50 = tl::broadcast_to(sum_to_size_34, r.shape());  // broadcast_to, line 99: tl::broadcast_to(d_sum_19, r.shape())
  const tl::Tensor broadcast_to_51 = tl::broadcast_to(sum_to_size_32, log_softmax_17.shape());  // broadcast_to, line 101: tl::broadcast_to(d_sum_18, log_softmax_17.shape())
  const tl::Tensor max_52 = tl::max(mul_16, {-1}, true);  // max, line 103: tl::max(mul_16, {-1}, true)
  const tl::Tensor hit_max_52 = (mul_16 == max_52).astype(mul_16.dtype());
  const tl::Tensor share_max_52 = hit_max_52 / tl::sum(hit_max_52, {-1}, true);
  const tl::Tensor t_max_52 = tl::sum(t_mul_16 * share_max_52, {-1}, true);
  const tl::Tensor t_53 = tl::stop_gradient(tl::max(mul_16, {-1}, true));  // line 103: tl::stop_gradient(tl::max(mul_16, {-1}, true))
  const tl::Tensor sub_54 = mul_16 - t_53;  // sub, line 103: mul_16 - tl::stop_gradient(tl::max(mul_16, {-1}, true))
  const tl::Tensor t_sub_54 = tl::broadcast_to(t_mul_16, sub_54.shape());
  const tl::Tensor u_e_log_softmax_17 = tl::exp(sub_54);  // exp, line 103: tl::exp(mul_16 - tl::stop_gradient(tl::max(mul_16, {-1}, true)))
  const tl::Tensor t_u_e_log_softmax_17 = t_sub_54 * u_e_log_softmax_17;
  const tl::Tensor u_z_log_softmax_17 = tl::sum(u_e_log_softmax_17, {-1}, true);  // sum, line 104: tl::sum(e_log_softmax_17, {-1}, true)
  const tl::Tensor t_u_z_log_softmax_17 = tl::sum(t_u_e_log_softmax_17, {-1}, true);
  const tl::Tensor reciprocal_57 = tl::reciprocal(u_z_log_softmax_17);  // reciprocal, line 105: tl::reciprocal(z_log_softmax_17)
  const tl::Tensor t_reciprocal_57 = t_u_z_log_softmax_17 * -(reciprocal_57 * reciprocal_57);
  const tl::Tensor neg_58 = -broadcast_to_51;  // neg, line 105: -d_log_softmax_17
  const tl::Tensor sum_to_size_59 = tl::sum_to_size(neg_58, u_z_log_softmax_17.shape());  // sum_to_size, line 105: tl::sum_to_size(-d_log_softmax_17, z_log_softmax_17.shape())
  const tl::Tensor mul_60 = sum_to_size_59 * reciprocal_57;  // mul, line 105: tl::sum_to_size(-d_log_softmax_17, z_log_softmax_17.shape()) * tl::re...
  const tl::Tensor t_mul_60 = tl::broadcast_to(t_reciprocal_57 * sum_to_size_59, mul_60.shape());
  const tl::Tensor broadcast_to_61 = tl::broadcast_to(mul_60, u_e_log_softmax_17.shape());  // broadcast_to, line 105: tl::broadcast_to(tl::sum_to_size(-d_log_softmax_17, z_log_softmax_17....
  const tl::Tensor t_broadcast_to_61 = tl::broadcast_to(t_mul_60, u_e_log_softmax_17.shape());
  const tl::Tensor mul_62 = broadcast_to_61 * u_e_log_softmax_17;  // mul, line 105: tl::broadcast_to(tl::sum_to_size(-d_log_softmax_17, z_log_softmax_17....
  const tl::Tensor t_mul_62 = tl::broadcast_to(t_broadcast_to_61 * u_e_log_softmax_17 + (t_u_e_log_softmax_17 * broadcast_to_61), mul_62.shape());
  const tl::Tensor add_63 = broadcast_to_51 + mul_62;  // add, line 105: d_log_softmax_17 + tl::broadcast_to(tl::sum_to_size(-d_log_softmax_17...
  const tl::Tensor t_add_63 = tl::broadcast_to(t_mul_62, add_63.shape());
  const tl::Tensor mul_64 = add_63 * 2.0;  // mul, line 107: d_mul_16 * 2.0
  const tl::Tensor t_mul_64 = tl::broadcast_to(t_add_63 * 2.0, mul_64.shape());
  const tl::Tensor add_65 = mul_49 + mul_64;  // add, line 107: d_m + (d_mul_16 * 2.0)
  const tl::Tensor t_add_65 = tl::broadcast_to(t_mul_49 + t_mul_64, add_65.shape());
  const tl::Tensor sum_to_size_66 = tl::sum_to_size(broadcast_to_50, div_14.shape());  // sum_to_size, line 109: tl::sum_to_size(d_r, div_14.shape())
  const tl::Tensor sum_to_size_67 = tl::sum_to_size(broadcast_to_50, mul_8.shape());  // sum_to_size, line 110: tl::sum_to_size(d_r, mul_8.shape())
  const tl::Tensor reciprocal_68 = tl::reciprocal(add_10);  // reciprocal, line 112: tl::reciprocal(add_10)
  const tl::Tensor t_reciprocal_68 = t_add_10 * -(reciprocal_68 * reciprocal_68);
  const tl::Tensor mul_69 = sum_to_size_66 * reciprocal_68;  // mul, line 112: d_div_14 * tl::reciprocal(add_10)
  const tl::Tensor t_mul_69 = tl::broadcast_to(t_reciprocal_68 * sum_to_size_66, mul_69.shape());
  const tl::Tensor sum_to_size_70 = tl::sum_to_size(mul_69, pow_13.shape());  // sum_to_size, line 112: tl::sum_to_size(d_div_14 * tl::reciprocal(add_10), pow_13.shape())
  const tl::Tensor t_sum_to_size_70 = tl::sum_to_size(t_mul_69, pow_13.shape());
  const tl::Tensor div_71 = div_14 / add_10;  // div, line 113: div_14 / add_10
  const tl::Tensor t_div_71 = tl::broadcast_to(t_div_14 * tl::reciprocal(add_10) + (t_add_10 * -(div_71 / add_10)), div_71.shape());
  const tl::Tensor neg_72 = -div_71;  // neg, line 113: -(div_14 / add_10)
  const tl::Tensor t_neg_72 = -t_div_71;
  const tl::Tensor mul_73 = sum_to_size_66 * neg_72;  // mul, line 113: d_div_14 * -(div_14 / add_10)
  const tl::Tensor t_mul_73 = tl::broadcast_to(t_neg_72 * sum_to_size_66, mul_73.shape());
  const tl::Tensor sum_to_size_74 = tl::sum_to_size(mul_73, add_10.shape());  // sum_to_size, line 113: tl::sum_to_size(d_div_14 * -(div_14 / add_10), add_10.shape())
  const tl::Tensor t_sum_to_size_74 = tl::sum_to_size(t_mul_73, add_10.shape());
  const tl::Tensor t_75 = tl::scalar_tensor(1.5, pow_13.dtype());  // line 115: tl::scalar_tensor(1.5, pow_13.dtype())
  const tl::Tensor astype_76 = t_75.astype(pow_13.dtype());  // astype, line 115: tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype())
  const tl::Tensor sub_77 = astype_76 - 1.0;  // sub, line 115: tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype()) - 1.0
  const tl::Tensor astype_78 = add_12.astype(pow_13.dtype());  // astype, line 115: add_12.astype(pow_13.dtype())
  const tl::Tensor t_astype_78 = t_add_12.astype(pow_13.dtype());
  const tl::Tensor pow_79 = tl::pow(astype_78, sub_77);  // pow, line 115: tl::pow(add_12.astype(pow_13.dtype()), tl::scalar_tensor(1.5, pow_13....
  const tl::Tensor t_pow_79 = tl::broadcast_to(t_astype_78 * tl::where(sub_77.astype(pow_79.dtype()) == 0, 0.0, sub_77.astype(pow_79.dtype()) * tl::pow(astype_78.astype(pow_79.dtype()), sub_77.astype(pow_79.dtype()) - 1.0)), pow_79.shape());
  const tl::Tensor t_80 = tl::scalar_tensor(1.5, pow_13.dtype());  // line 115: tl::scalar_tensor(1.5, pow_13.dtype())
  const tl::Tensor astype_81 = t_80.astype(pow_13.dtype());  // astype, line 115: tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype())
  const tl::Tensor mul_82 = astype_81 * pow_79;  // mul, line 115: tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype()) * tl::p...
  const tl::Tensor t_mul_82 = tl::broadcast_to(t_pow_79 * astype_81, mul_82.shape());
  const tl::Tensor t_83 = tl::scalar_tensor(1.5, pow_13.dtype());  // line 115: tl::scalar_tensor(1.5, pow_13.dtype())
  const tl::Tensor astype_84 = t_83.astype(pow_13.dtype());  // astype, line 115: tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype())
  const tl::Tensor t_85 = astype_84 == 0;  // line 115: tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype()) == 0
  const tl::Tensor where_86 = tl::where(t_85, 0.0, mul_82);  // where, line 115: tl::where(tl::scalar_tensor(1.5, pow_13.dtype()).astype(pow_13.dtype(...
  const tl::Tensor t_where_86 = tl::broadcast_to(tl::where(t_85, tl::zeros_like(where_86), t_mul_82), where_86.shape());
  const tl::Tensor mul_87 = sum_to_size_70 * where_86;  // mul, line 115: d_pow_13 * tl::where(tl::scalar_tensor(1.5, pow_13.dtype()).astype(po...
  const tl::Tensor t_mul_87 = tl::broadcast_to(t_sum_to_size_70 * where_86 + (t_where_86 * sum_to_size_70), mul_87.shape());
  const tl::Tensor mul_88 = mul_87 * m;  // mul, line 119: d_mul_11 * m
  const tl::Tensor t_mul_88 = tl::broadcast_to(t_mul_87 * m + (t_m * mul_87), mul_88.shape());
  const tl::Tensor sum_to_size_89 = tl::sum_to_size(mul_88, m.shape());  // sum_to_size, line 119: tl::sum_to_size(d_mul_11 * m, m.shape())
  const tl::Tensor t_sum_to_size_89 = tl::sum_to_size(t_mul_88, m.shape());
  const tl::Tensor add_90 = add_65 + sum_to_size_89;  // add, line 119: d_m + (tl::sum_to_size(d_mul_11 * m, m.shape()))
  const tl::Tensor t_add_90 = tl::broadcast_to(t_add_65 + t_sum_to_size_89, add_90.shape());
  const tl::Tensor mul_91 = mul_87 * m;  // mul, line 120: d_mul_11 * m
  const tl::Tensor t_mul_91 = tl::broadcast_to(t_mul_87 * m + (t_m * mul_87), mul_91.shape());
  const tl::Tensor sum_to_size_92 = tl::sum_to_size(mul_91, m.shape());  // sum_to_size, line 120: tl::sum_to_size(d_mul_11 * m, m.shape())
  const tl::Tensor t_sum_to_size_92 = tl::sum_to_size(t_mul_91, m.shape());
  const tl::Tensor add_93 = add_90 + sum_to_size_92;  // add, line 120: d_m + (tl::sum_to_size(d_mul_11 * m, m.shape()))
  const tl::Tensor t_add_93 = tl::broadcast_to(t_add_90 + t_sum_to_size_92, add_93.shape());
  const tl::Tensor mul_94 = sum_to_size_74 * m;  // mul, line 124: d_mul_9 * m
  const tl::Tensor t_mul_94 = tl::broadcast_to(t_sum_to_size_74 * m + (t_m * sum_to_size_74), mul_94.shape());
  const tl::Tensor sum_to_size_95 = tl::sum_to_size(mul_94, m.shape());  // sum_to_size, line 124: tl::sum_to_size(d_mul_9 * m, m.shape())
  const tl::Tensor t_sum_to_size_95 = tl::sum_to_size(t_mul_94, m.shape());
  const tl::Tensor add_96 = add_93 + sum_to_size_95;  // add, line 124: d_m + (tl::sum_to_size(d_mul_9 * m, m.shape()))
  const tl::Tensor t_add_96 = tl::broadcast_to(t_add_93 + t_sum_to_size_95, add_96.shape());
  const tl::Tensor mul_97 = sum_to_size_74 * m;  // mul, line 125: d_mul_9 * m
  const tl::Tensor t_mul_97 = tl::broadcast_to(t_sum_to_size_74 * m + (t_m * sum_to_size_74), mul_97.shape());
  const tl::Tensor sum_to_size_98 = tl::sum_to_size(mul_97, m.shape());  // sum_to_size, line 125: tl::sum_to_size(d_mul_9 * m, m.shape())
  const tl::Tensor t_sum_to_size_98 = tl::sum_to_size(t_mul_97, m.shape());
  const tl::Tensor add_99 = add_96 + sum_to_size_98;  // add, line 125: d_m + (tl::sum_to_size(d_mul_9 * m, m.shape()))
  const tl::Tensor t_add_99 = tl::broadcast_to(t_add_96 + t_sum_to_size_98, add_99.shape());
  const tl::Tensor mul_100 = sum_to_size_67 * sigmoid_6;  // mul, line 127: d_mul_8 * sigmoid_6
  const tl::Tensor t_mul_100 = tl::broadcast_to(t_sigmoid_6 * sum_to_size_67, mul_100.shape());
  const tl::Tensor sum_to_size_101 = tl::sum_to_size(mul_100, maximum_7.shape());  // sum_to_size, line 127: tl::sum_to_size(d_mul_8 * sigmoid_6, maximum_7.shape())
  const tl::Tensor t_sum_to_size_101 = tl::sum_to_size(t_mul_100, maximum_7.shape());
  const tl::Tensor mul_102 = sum_to_size_67 * maximum_7;  // mul, line 128: d_mul_8 * maximum_7
  const tl::Tensor t_mul_102 = tl::broadcast_to(t_maximum_7 * sum_to_size_67, mul_102.shape());
  const tl::Tensor sum_to_size_103 = tl::sum_to_size(mul_102, sigmoid_6.shape());  // sum_to_size, line 128: tl::sum_to_size(d_mul_8 * maximum_7, sigmoid_6.shape())
  const tl::Tensor t_sum_to_size_103 = tl::sum_to_size(t_mul_102, sigmoid_6.shape());
  const tl::Tensor t_104 = tl::scalar_tensor(0.05, maximum_7.dtype());  // line 130: tl::scalar_tensor(0.05, maximum_7.dtype())
  const tl::Tensor t_105 = t_104 == maximum_7;  // line 130: tl::scalar_tensor(0.05, maximum_7.dtype()) == maximum_7
  const tl::Tensor astype_106 = t_105.astype(maximum_7.dtype());  // astype, line 130: (tl::scalar_tensor(0.05, maximum_7.dtype()) == maximum_7).astype(maxi...
  const tl::Tensor t_107 = m == maximum_7;  // line 130: m == maximum_7
  const tl::Tensor astype_108 = t_107.astype(maximum_7.dtype());  // astype, line 130: (m == maximum_7).astype(maximum_7.dtype())
  const tl::Tensor mul_109 = 0.5 * astype_108;  // mul, line 130: 0.5 * (m == maximum_7).astype(maximum_7.dtype())
  const tl::Tensor mul_110 = mul_109 * astype_106;  // mul, line 130: 0.5 * (m == maximum_7).astype(maximum_7.dtype()) * (tl::scalar_tensor...
  const tl::Tensor t_111 = m == maximum_7;  // line 130: m == maximum_7
  const tl::Tensor astype_112 = t_111.astype(maximum_7.dtype());  // astype, line 130: (m == maximum_7).astype(maximum_7.dtype())
  const tl::Tensor sub_113 = astype_112 - mul_110;  // sub, line 130: (m == maximum_7).astype(maximum_7.dtype()) - 0.5 * (m == maximum_7).a...
  const tl::Tensor mul_114 = sum_to_size_101 * sub_113;  // mul, line 130: d_maximum_7 * ((m == maximum_7).astype(maximum_7.dtype()) - 0.5 * (m ...
  const tl::Tensor t_mul_114 = tl::broadcast_to(t_sum_to_size_101 * sub_113, mul_114.shape());
  const tl::Tensor add_115 = add_99 + mul_114;  // add, line 130: d_m + (d_maximum_7 * ((m == maximum_7).astype(maximum_7.dtype()) - 0....
  const tl::Tensor t_add_115 = tl::broadcast_to(t_add_99 + t_mul_114, add_115.shape());
  const tl::Tensor sub_116 = 1.0 - sigmoid_6;  // sub, line 132: 1.0 - sigmoid_6
  const tl::Tensor t_sub_116 = tl::broadcast_to(-t_sigmoid_6, sub_116.shape());
  const tl::Tensor mul_117 = sigmoid_6 * sub_116;  // mul, line 132: sigmoid_6 * (1.0 - sigmoid_6)
  const tl::Tensor t_mul_117 = tl::broadcast_to(t_sigmoid_6 * sub_116 + (t_sub_116 * sigmoid_6), mul_117.shape());
  const tl::Tensor mul_118 = sum_to_size_103 * mul_117;  // mul, line 132: d_sigmoid_6 * (sigmoid_6 * (1.0 - sigmoid_6))
  const tl::Tensor t_mul_118 = tl::broadcast_to(t_sum_to_size_103 * mul_117 + (t_mul_117 * sum_to_size_103), mul_118.shape());
  const tl::Tensor add_119 = add_115 + mul_118;  // add, line 132: d_m + (d_sigmoid_6 * (sigmoid_6 * (1.0 - sigmoid_6)))
  const tl::Tensor t_add_119 = tl::broadcast_to(t_add_115 + t_mul_118, add_119.shape());
  const tl::Tensor mul_120 = h * h;  // mul, line 134: h * h
  const tl::Tensor t_mul_120 = tl::broadcast_to(t_h * h + (t_h * h), mul_120.shape());
  const tl::Tensor sub_121 = 1.0 - mul_120;  // sub, line 134: 1.0 - h * h
  const tl::Tensor t_sub_121 = tl::broadcast_to(-t_mul_120, sub_121.shape());
  const tl::Tensor mul_122 = add_43 * sub_121;  // mul, line 134: d_h * (1.0 - h * h)
  const tl::Tensor t_mul_122 = tl::broadcast_to(t_add_43 * sub_121 + (t_sub_121 * add_43), mul_122.shape());
  const tl::Tensor sum_to_size_123 = tl::sum_to_size(mul_122, matmul_3.shape());  // sum_to_size, line 136: tl::sum_to_size(d_add_4, matmul_3.shape())
  const tl::Tensor t_sum_to_size_123 = tl::sum_to_size(t_mul_122, matmul_3.shape());
  const tl::Tensor dot_general_124 = tl::dot_general(x, sum_to_size_123, tl::DotDims{.lhs_batch = {}, .rhs_batch = {}, .lhs_contract = {0}, .rhs_contract = {0}});  // dot_general, line 138: tl::dot_general(x, d_matmul_3, tl::DotDims{.lhs_batch = {}, .rhs_batc...
  const tl::Tensor t_dot_general_124 = tl::dot_general(x, t_sum_to_size_123, tl::DotDims{.lhs_batch = {}, .rhs_batch = {}, .lhs_contract = {0}, .rhs_contract = {0}});
  const tl::Tensor add_125 = add_119 + dot_general_124;  // add, line 138: d_m + (tl::dot_general(x, d_matmul_3, tl::DotDims{.lhs_batch = {}, .r...
  const tl::Tensor t_add_125 = tl::broadcast_to(t_add_119 + t_dot_general_124, add_125.shape());
  return {add_125, t_add_125};
}

// The Hessian of the lambda at functions.cpp:381 with respect to `m` (tl::hessian), of shape
// m.shape() + m.shape(): the derivative of the gradient along each basis
// vector, stacked on a last axis, as the engine's jacfwd(jacrev(f)).
inline tl::Tensor hessian_curved_386(const tl::Tensor& m, const tl::Tensor& x, const tl::Tensor& b, const double scale) {
  const std::int64_t n = m.numel();
  tl::Shape shape = m.shape();
  shape.insert(shape.end(), m.shape().begin(), m.shape().end());
  std::vector<tl::Tensor> columns;
  for (std::int64_t i = 0; i < n; ++i) {
    const tl::Tensor basis = tl::reshape(tl::one_hot(tl::scalar_tensor(i, tl::DType::i64), n, m.dtype()), m.shape());
    columns.push_back(hessian_curved_386_gradient_jvp(m, x, b, scale, basis).second);
  }
  if (n == 0) return tl::zeros(shape, m.dtype());
  return tl::reshape(tl::stack(columns, -1), shape);
}

}  // namespace tlaloc_generated

#pragma GCC diagnostic pop
