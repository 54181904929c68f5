// The gradient of the lambda at functions.cpp:229 with respect to `m`,
// written by tlaloc-grad at build time: the function's own ops, then their
// derivatives in reverse order (an undefined tensor is a zero cotangent).
#include <tlaloc/tlaloc.hpp>
#include <tlaloc/derivatives.hpp>

#include <cstddef>
#include <utility>
#include <vector>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"

namespace tlaloc_generated {
namespace tl = ::tlaloc;

inline tl::Tensor grad_stepped_236(const tl::Tensor& m) {
  const tl::Tensor mul_1 = m * 0.5;  // mul, line 233: m * 0.5
  // The tl::fori_loop at line 230, saving what the reverse sweep needs.
  tl::Tensor out = mul_1;
  std::vector<tl::Tensor> saved_c_in;
  std::vector<tl::Tensor> saved_i;
  std::vector<tl::Tensor> saved_astype_5;
  std::vector<tl::Tensor> saved_mul_6;
  std::vector<tl::Tensor> saved_mul_7;
  std::vector<tl::Tensor> saved_sin_8;
  std::vector<tl::Tensor> saved_mul_9;
  std::vector<tl::Tensor> saved_add_10;
  std::size_t steps_0 = 0;
  for (std::int64_t step_0 = 0; step_0 < 4; ++step_0) {
    const tl::Tensor c_in = out;
    const tl::Tensor i = tl::scalar_tensor(step_0, tl::DType::i64);  // line 230: the step index
    const tl::Tensor astype_5 = i.astype(tl::DType::f64);  // astype, line 232: i.astype(tl::DType::f64)
    const tl::Tensor mul_6 = m * astype_5;  // mul, line 232: m * i.astype(tl::DType::f64)
    const tl::Tensor mul_7 = mul_6 * 0.1;  // mul, line 232: m * i.astype(tl::DType::f64) * 0.1
    const tl::Tensor sin_8 = tl::sin(c_in);  // sin, line 232: tl::sin(c)
    const tl::Tensor mul_9 = sin_8 * m;  // mul, line 232: tl::sin(c) * m
    const tl::Tensor add_10 = mul_9 + mul_7;  // add, line 232: tl::sin(c) * m + m * i.astype(tl::DType::f64) * 0.1
    saved_c_in.push_back(c_in);
    saved_i.push_back(i);
    saved_astype_5.push_back(astype_5);
    saved_mul_6.push_back(mul_6);
    saved_mul_7.push_back(mul_7);
    saved_sin_8.push_back(sin_8);
    saved_mul_9.push_back(mul_9);
    saved_add_10.push_back(add_10);
    out = add_10;
    ++steps_0;
  }
  // The tl::fori_loop at line 234, saving what the reverse sweep needs.
  tl::Tensor c = m;
  std::vector<tl::Tensor> saved_c_in_1;
  std::vector<tl::Tensor> saved_t_13;
  std::vector<tl::Tensor> saved_mul_14;
  std::size_t steps_1 = 0;
  for (std::int64_t step_1 = 2; step_1 < 2; ++step_1) {
    const tl::Tensor c_in_1 = c;
    const tl::Tensor t_13 = tl::scalar_tensor(step_1, tl::DType::i64);  // line 234: the step index
    const tl::Tensor mul_14 = c_in_1 * m;  // mul, line 234: c * m
    saved_c_in_1.push_back(c_in_1);
    saved_t_13.push_back(t_13);
    saved_mul_14.push_back(mul_14);
    c = mul_14;
    ++steps_1;
  }
  const tl::Tensor sum_15 = tl::sum(c);  // sum, line 234: tl::sum(tl::fori_loop(2, 2, [&](const tl::Tensor&, const tl::Tensor& ...
  const tl::Tensor mul_16 = out * out;  // mul, line 234: out * out
  const tl::Tensor sum_17 = tl::sum(mul_16);  // sum, line 234: tl::sum(out * out)
  const tl::Tensor add_18 = sum_17 + sum_15;  // add, line 234: tl::sum(out * out) + tl::sum(tl::fori_loop(2, 2, [&](const tl::Tensor...
  if (add_18.rank() != 0) {
    throw tl::ValueError("tlaloc-grad: the lambda at functions.cpp:229 must return a scalar, got " + tl::shape_string(add_18.shape()));
  }

  // Reverse, written by the AD engine (tl::ad::vjp): d_v is the derivative of the
  // result with respect to v, its shares summed in the engine's order.
  tl::Tensor d_add_18 = tl::scalar_tensor(1, add_18.dtype());
  tl::Tensor d_sum_17;
  tl::Tensor d_sum_15;
  tl::Tensor d_mul_16;
  tl::Tensor d_out;
  tl::Tensor d_c;
  tl::Tensor d_m;
  tl::Tensor d_mul_1;
  // add, line 234
  d_sum_17 = tl::sum_to_shape_of(d_add_18, sum_17);
  d_sum_15 = tl::sum_to_shape_of(d_add_18, sum_15);
  // sum, line 234
  d_mul_16 = tl::derivatives::sum_backward(d_sum_17, mul_16.shape(), {}, false);
  // mul, line 234
  d_out = d_mul_16 * out;
  d_out = d_out + d_mul_16 * out;
  // sum, line 234
  d_c = tl::derivatives::sum_backward(d_sum_15, c.shape(), {}, false);
  // Reverse of the tl::fori_loop at line 234, last iteration first: the carried value's cotangent
  // and the sums of each iteration's shares, added after it (the engine's rule for the traced loop).
  if (steps_1 > 0) {
    tl::Tensor d_c_carry = d_c;
    tl::Tensor d_m_sum1 = tl::zeros_like(m);
    for (std::size_t k1 = steps_1; k1-- > 0;) {
      const tl::Tensor& c_in_1 = saved_c_in_1[k1];
      [[maybe_unused]] const tl::Tensor& t_13 = saved_t_13[k1];
      [[maybe_unused]] const tl::Tensor& mul_14 = saved_mul_14[k1];
      tl::Tensor d_c_in_1;
      tl::Tensor d_m_step1;
      // mul, line 234
      d_c_in_1 = tl::sum_to_shape_of(d_c_carry * m, c_in_1);
      d_m_step1 = tl::sum_to_shape_of(d_c_carry * c_in_1, m);
      d_c_carry = d_c_in_1;
      d_m_sum1 = d_m_sum1 + d_m_step1;
    }
    d_m = d_c_carry;
    d_m = d_m + d_m_sum1;
  } else {
    d_m = d_c;
  }
  // Reverse of the tl::fori_loop at line 230, last iteration first: the carried value's cotangent
  // and the sums of each iteration's shares, added after it (the engine's rule for the traced loop).
  if (steps_0 > 0) {
    tl::Tensor d_out_carry = d_out;
    tl::Tensor d_m_sum0 = tl::zeros_like(m);
    for (std::size_t k0 = steps_0; k0-- > 0;) {
      const tl::Tensor& c_in = saved_c_in[k0];
      [[maybe_unused]] const tl::Tensor& i = saved_i[k0];
      const tl::Tensor& astype_5 = saved_astype_5[k0];
      [[maybe_unused]] const tl::Tensor& mul_6 = saved_mul_6[k0];
      const tl::Tensor& mul_7 = saved_mul_7[k0];
      const tl::Tensor& sin_8 = saved_sin_8[k0];
      const tl::Tensor& mul_9 = saved_mul_9[k0];
      [[maybe_unused]] const tl::Tensor& add_10 = saved_add_10[k0];
      tl::Tensor d_mul_9;
      tl::Tensor d_mul_7;
      tl::Tensor d_sin_8;
      tl::Tensor d_c_in;
      tl::Tensor d_mul_6;
      tl::Tensor d_m_step0;
      // add, line 232
      d_mul_9 = tl::sum_to_shape_of(d_out_carry, mul_9);
      d_mul_7 = tl::sum_to_shape_of(d_out_carry, mul_7);
      // mul, line 232
      d_sin_8 = tl::sum_to_shape_of(d_mul_9 * m, sin_8);
      d_m_step0 = tl::sum_to_shape_of(d_mul_9 * sin_8, m);
      // sin, line 232
      d_c_in = d_sin_8 * tl::cos(c_in);
      // mul, line 232
      d_mul_6 = d_mul_7 * 0.1;
      // mul, line 232
      d_m_step0 = d_m_step0 + tl::sum_to_shape_of(d_mul_6 * astype_5, m);
      d_out_carry = d_c_in;
      d_m_sum0 = d_m_sum0 + d_m_step0;
    }
    d_mul_1 = d_out_carry;
    d_m = d_m + d_m_sum0;
  } else {
    d_mul_1 = d_out;
  }
  // mul, line 233
  d_m = d_m + d_mul_1 * 0.5;
  return d_m;
}

}  // namespace tlaloc_generated

#pragma GCC diagnostic pop
