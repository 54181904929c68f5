// The gradient of the lambda at functions.cpp:934 with respect to `m`,
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

inline tl::Tensor grad_peaked_939(const tl::Tensor& m) {
  const tl::Tensor sin_1 = tl::sin(m);  // sin, line 935: tl::sin(m)
  const tl::Tensor s = sin_1 * m;  // mul, line 935: tl::sin(m) * m
  const tl::Tensor min_3 = tl::min(s, -1);  // min, line 937: tl::min(s, -1)
  const tl::Tensor sum_4 = tl::sum(min_3);  // sum, line 937: tl::sum(tl::min(s, -1))
  const tl::Tensor exp_5 = tl::exp(m);  // exp, line 936: tl::exp(m)
  const tl::Tensor max_6 = tl::max(exp_5);  // max, line 936: tl::max(tl::exp(m))
  const tl::Tensor mul_7 = m * m;  // mul, line 936: m * m
  const tl::Tensor min_8 = tl::min(mul_7, {0}, true);  // min, line 936: tl::min(m * m, {0}, true)
  const tl::Tensor max_9 = tl::max(s, {0});  // max, line 936: tl::max(s, {0})
  const tl::Tensor mul_10 = max_9 * min_8;  // mul, line 936: tl::max(s, {0}) * tl::min(m * m, {0}, true)
  const tl::Tensor sum_11 = tl::sum(mul_10);  // sum, line 936: tl::sum(tl::max(s, {0}) * tl::min(m * m, {0}, true))
  const tl::Tensor add_12 = sum_11 + max_6;  // add, line 936: tl::sum(tl::max(s, {0}) * tl::min(m * m, {0}, true)) + tl::max(tl::ex...
  const tl::Tensor add_13 = add_12 + sum_4;  // add, line 936: tl::sum(tl::max(s, {0}) * tl::min(m * m, {0}, true)) + tl::max(tl::ex...
  if (add_13.rank() != 0) {
    throw tl::ValueError("tlaloc-grad: the lambda at functions.cpp:934 must return a scalar, got " + tl::shape_string(add_13.shape()));
  }

  // Reverse, written by the AD engine (tl::ad::vjp): d_v is the derivative of the
  // result with respect to v, its shares summed in the engine's order.
  tl::Tensor d_add_13 = tl::scalar_tensor(1, add_13.dtype());
  tl::Tensor d_add_12;
  tl::Tensor d_sum_4;
  tl::Tensor d_sum_11;
  tl::Tensor d_max_6;
  tl::Tensor d_mul_10;
  tl::Tensor d_max_9;
  tl::Tensor d_min_8;
  tl::Tensor d_s;
  tl::Tensor d_mul_7;
  tl::Tensor d_m;
  tl::Tensor d_exp_5;
  tl::Tensor d_min_3;
  tl::Tensor d_sin_1;
  // add, line 936
  d_add_12 = d_add_13;
  d_sum_4 = d_add_13;
  // add, line 936
  d_sum_11 = d_add_12;
  d_max_6 = d_add_12;
  // sum, line 936
  d_mul_10 = tl::derivatives::sum_backward(d_sum_11, mul_10.shape(), {}, false);
  // mul, line 936
  d_max_9 = tl::sum_to_shape_of(d_mul_10 * min_8, max_9);
  d_min_8 = tl::sum_to_shape_of(d_mul_10 * max_9, min_8);
  // max, line 936
  d_s = tl::derivatives::extreme_backward(d_max_9, s, max_9, {0}, false);
  // min, line 936
  d_mul_7 = tl::derivatives::extreme_backward(d_min_8, mul_7, min_8, {0}, true);
  // mul, line 936
  d_m = d_mul_7 * m;
  d_m = d_m + d_mul_7 * m;
  // max, line 936
  d_exp_5 = tl::derivatives::extreme_backward(d_max_6, exp_5, max_6, {}, false);
  // exp, line 936
  d_m = d_m + d_exp_5 * exp_5;
  // sum, line 937
  d_min_3 = tl::derivatives::sum_backward(d_sum_4, min_3.shape(), {}, false);
  // min, line 937
  d_s = d_s + tl::derivatives::extreme_backward(d_min_3, s, min_3, {-1}, false);
  // mul, line 935
  d_sin_1 = d_s * m;
  d_m = d_m + d_s * sin_1;
  // sin, line 935
  d_m = d_m + d_sin_1 * tl::cos(m);
  return d_m;
}

}  // namespace tlaloc_generated

#pragma GCC diagnostic pop
