// The gradient of the lambda at functions.cpp:2187 with respect to `m`,
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

inline tl::Tensor grad_skipped_2197(const tl::Tensor& m, const int skip) {
  const tl::Tensor sin_1 = tl::sin(m);  // sin, line 2188: tl::sin(m)
  const tl::Tensor start = sin_1 * 0.5;  // mul, line 2188: tl::sin(m) * 0.5
  // The loop at line 2190, saving what the reverse sweep needs.
  tl::Tensor h_1 = start;
  std::vector<tl::Tensor> saved_h_in;
  std::vector<tl::Tensor> saved_h_2;
  std::vector<tl::Tensor> saved_mul_5;
  std::vector<tl::Tensor> saved_tanh_6;
  std::vector<tl::Tensor> saved_add_7;
  std::vector<bool> saved_cond_1;
  std::vector<int> saved_i;
  std::size_t steps_0 = 0;
  for (int i = 0; i < 4; ++i) {
    const tl::Tensor h_in = h_1;
    saved_i.push_back(i);
    tl::Tensor h_2;
    tl::Tensor mul_5;
    tl::Tensor tanh_6;
    tl::Tensor add_7;
    bool cond_1 = false;
    cond_1 = !(i < skip);  // line 2191
    if (cond_1) {
      mul_5 = h_in * m;  // mul, line 2192: h * m
      tanh_6 = tl::tanh(mul_5);  // tanh, line 2192: tl::tanh(h * m)
      add_7 = tanh_6 + h_in;  // add, line 2192: tl::tanh(h * m) + h
      h_2 = add_7;
    } else {
      h_2 = h_in;
    }
    saved_h_in.push_back(h_in);
    saved_h_2.push_back(h_2);
    saved_mul_5.push_back(mul_5);
    saved_tanh_6.push_back(tanh_6);
    saved_add_7.push_back(add_7);
    saved_cond_1.push_back(cond_1);
    h_1 = h_2;
    ++steps_0;
  }
  const tl::Tensor mul_9 = start * m;  // mul, line 2194: start * m
  const tl::Tensor mul_10 = h_1 * h_1;  // mul, line 2194: h * h
  const tl::Tensor add_11 = mul_10 + mul_9;  // add, line 2194: h * h + start * m
  const tl::Tensor sum_12 = tl::sum(add_11);  // sum, line 2194: tl::sum(h * h + start * m)
  if (sum_12.rank() != 0) {
    throw tl::ValueError("tlaloc-grad: the lambda at functions.cpp:2187 must return a scalar, got " + tl::shape_string(sum_12.shape()));
  }

  // Reverse, written by the AD engine (tl::ad::vjp): d_v is the derivative of the
  // result with respect to v, its shares summed in the engine's order.
  tl::Tensor d_sum_12 = tl::scalar_tensor(1, sum_12.dtype());
  tl::Tensor d_start;
  tl::Tensor d_add_11;
  tl::Tensor d_mul_10;
  tl::Tensor d_mul_9;
  tl::Tensor d_m;
  tl::Tensor d_sin_1;
  tl::Tensor d_h_1_apart;
  tl::Tensor& d_h_1 = h_1.is_same(start) ? d_start : d_h_1_apart;
  // sum, line 2194
  d_add_11 = tl::derivatives::sum_backward(d_sum_12, add_11.shape(), {}, false);
  // add, line 2194
  d_mul_10 = tl::sum_to_shape_of(d_add_11, mul_10);
  d_mul_9 = tl::sum_to_shape_of(d_add_11, mul_9);
  // mul, line 2194
  d_h_1 = d_mul_10 * h_1;
  d_h_1 = d_h_1 + d_mul_10 * h_1;
  // mul, line 2194
  d_start = d_start.defined() ? d_start + d_mul_9 * m : d_mul_9 * m;
  d_m = d_mul_9 * start;
  tl::Tensor d_h_1_next = d_h_1;
  // Reverse of the loop at line 2190, last iteration first.
  for (std::size_t k0 = steps_0; k0-- > 0;) {
    [[maybe_unused]] const int i = saved_i[k0];
    const tl::Tensor& h_in = saved_h_in[k0];
    const tl::Tensor& h_2 = saved_h_2[k0];
    [[maybe_unused]] const tl::Tensor& mul_5 = saved_mul_5[k0];
    const tl::Tensor& tanh_6 = saved_tanh_6[k0];
    [[maybe_unused]] const tl::Tensor& add_7 = saved_add_7[k0];
    const bool cond_1 = saved_cond_1[k0];
    tl::Tensor d_add_7;
    tl::Tensor d_tanh_6;
    tl::Tensor d_mul_5;
    tl::Tensor d_h_in_apart;
    tl::Tensor& d_h_in = h_in.is_same(start) ? d_start : d_h_in_apart;
    tl::Tensor d_h_2_apart;
    tl::Tensor& d_h_2 = cond_1 ? d_h_2_apart : d_h_in;
    const tl::Tensor d_h_1_carried = h_2.is_same(start) ? tl::Tensor() : d_h_1_next;
    if (d_h_1_carried.defined()) d_h_2 = d_h_2.defined() ? d_h_2 + d_h_1_carried : d_h_1_carried;
    if (cond_1) {
      d_add_7 = d_h_1_carried;
      if (d_add_7.defined()) {
        // add, line 2192
        d_tanh_6 = tl::sum_to_shape_of(d_add_7, tanh_6);
        d_h_in = d_h_in.defined() ? d_h_in + tl::sum_to_shape_of(d_add_7, h_in) : tl::sum_to_shape_of(d_add_7, h_in);
      }
      if (d_tanh_6.defined()) {
        // tanh, line 2192
        d_mul_5 = d_tanh_6 * (1.0 - tanh_6 * tanh_6);
      }
      if (d_mul_5.defined()) {
        // mul, line 2192
        d_h_in = d_h_in.defined() ? d_h_in + tl::sum_to_shape_of(d_mul_5 * m, h_in) : tl::sum_to_shape_of(d_mul_5 * m, h_in);
        d_m = d_m + tl::sum_to_shape_of(d_mul_5 * h_in, m);
      }
    }
    d_h_1_next = d_h_in;
  }
  // mul, line 2188
  d_sin_1 = d_start * 0.5;
  // sin, line 2188
  d_m = d_m + d_sin_1 * tl::cos(m);
  return d_m;
}

}  // namespace tlaloc_generated

#pragma GCC diagnostic pop
