// The gradient of the lambda at functions.cpp:124 with respect to `a`,
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

inline tl::Tensor grad_settle_135(const tl::Tensor& a) {
  int n = 0;
  double t = 0.5;
  // The loop at line 128, saving what the reverse sweep needs.
  tl::Tensor s_1 = a;
  std::vector<tl::Tensor> saved_s_in;
  std::vector<tl::Tensor> saved_cos_3;
  std::vector<tl::Tensor> saved_mul_4;
  std::vector<tl::Tensor> saved_add_5;
  std::vector<int> saved_n;
  std::vector<double> saved_t;
  std::size_t steps_0 = 0;
  while (n < 6) {
    const tl::Tensor s_in = s_1;
    saved_n.push_back(n);
    saved_t.push_back(t);
    const tl::Tensor cos_3 = tl::cos(s_in);  // cos, line 129: tl::cos(s)
    const tl::Tensor mul_4 = cos_3 * a;  // mul, line 129: tl::cos(s) * a
    const tl::Tensor add_5 = mul_4 + t;  // add, line 129: tl::cos(s) * a + t
    n += 1;
    t = t * 0.5;
    saved_s_in.push_back(s_in);
    saved_cos_3.push_back(cos_3);
    saved_mul_4.push_back(mul_4);
    saved_add_5.push_back(add_5);
    s_1 = add_5;
    ++steps_0;
  }
  const tl::Tensor mul_6 = s_1 * s_1;  // mul, line 133: s * s
  const tl::Tensor sum_7 = tl::sum(mul_6);  // sum, line 133: tl::sum(s * s)
  if (sum_7.rank() != 0) {
    throw tl::ValueError("tlaloc-grad: the lambda at functions.cpp:124 must return a scalar, got " + tl::shape_string(sum_7.shape()));
  }

  // Reverse, written by the AD engine (tl::ad::vjp): d_v is the derivative of the
  // result with respect to v, its shares summed in the engine's order.
  tl::Tensor d_sum_7 = tl::scalar_tensor(1, sum_7.dtype());
  tl::Tensor d_a;
  tl::Tensor d_mul_6;
  tl::Tensor d_s_1_apart;
  tl::Tensor& d_s_1 = steps_0 == 0 ? d_a : d_s_1_apart;
  // sum, line 133
  d_mul_6 = tl::derivatives::sum_backward(d_sum_7, mul_6.shape(), {}, false);
  // mul, line 133
  d_s_1 = d_mul_6 * s_1;
  d_s_1 = d_s_1 + d_mul_6 * s_1;
  // Reverse of the loop at line 128, last iteration first.
  for (std::size_t k0 = steps_0; k0-- > 0;) {
    [[maybe_unused]] const int n = saved_n[k0];
    [[maybe_unused]] const double t = saved_t[k0];
    const tl::Tensor& s_in = saved_s_in[k0];
    const tl::Tensor& cos_3 = saved_cos_3[k0];
    [[maybe_unused]] const tl::Tensor& mul_4 = saved_mul_4[k0];
    [[maybe_unused]] const tl::Tensor& add_5 = saved_add_5[k0];
    tl::Tensor d_mul_4;
    tl::Tensor d_cos_3;
    tl::Tensor d_s_in_apart;
    tl::Tensor& d_s_in = k0 == 0 ? d_a : d_s_in_apart;
    if (d_s_1.defined()) {
      // add, line 129
      d_mul_4 = d_s_1;
    }
    if (d_mul_4.defined()) {
      // mul, line 129
      d_cos_3 = tl::sum_to_shape_of(d_mul_4 * a, cos_3);
      d_a = d_a.defined() ? d_a + tl::sum_to_shape_of(d_mul_4 * cos_3, a) : tl::sum_to_shape_of(d_mul_4 * cos_3, a);
    }
    if (d_cos_3.defined()) {
      // cos, line 129
      d_s_in = d_s_in.defined() ? d_s_in + d_cos_3 * -tl::sin(s_in) : d_cos_3 * -tl::sin(s_in);
    }
    d_s_1 = d_s_in;
  }
  return d_a.defined() ? d_a : tl::zeros_like(a);
}

}  // namespace tlaloc_generated

#pragma GCC diagnostic pop
