// The derivative of the lambda at functions.cpp:124 at `a` along `t_a` (forward mode),
// written by tlaloc-grad at build time: the function's own ops, then their
// tangents beside them (t_v is the derivative of v along t_a).
#include <tlaloc/tlaloc.hpp>
#include <tlaloc/derivatives.hpp>

#include <cstddef>
#include <utility>
#include <vector>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"

namespace tlaloc_generated {
namespace tl = ::tlaloc;

inline std::pair<tl::Tensor, tl::Tensor> jvp_settle_183(const tl::Tensor& a, const tl::Tensor& t_a) {
  tl::check_jvp_arguments({a}, {t_a});
  int n = 0;
  double t = 0.5;
  // The loop at line 128, tangents carried beside the values.
  tl::Tensor s_1 = a;
  tl::Tensor t_s_1 = t_a;
  while (n < 6) {
    const tl::Tensor s_in = s_1;
    const tl::Tensor t_s_in = t_s_1;
    const tl::Tensor cos_3 = tl::cos(s_in);  // cos, line 129: tl::cos(s)
    const tl::Tensor t_cos_3 = t_s_in * -tl::sin(s_in);
    const tl::Tensor mul_4 = cos_3 * a;  // mul, line 129: tl::cos(s) * a
    const tl::Tensor t_mul_4 = tl::broadcast_to_shape_of(t_cos_3 * a + t_a * cos_3, mul_4);
    const tl::Tensor add_5 = mul_4 + t;  // add, line 129: tl::cos(s) * a + t
    const tl::Tensor t_add_5 = t_mul_4;
    n += 1;
    t = t * 0.5;
    s_1 = add_5;
    t_s_1 = t_add_5;
  }
  const tl::Tensor mul_6 = s_1 * s_1;  // mul, line 133: s * s
  const tl::Tensor t_mul_6 = tl::broadcast_to_shape_of(t_s_1 * s_1 + t_s_1 * s_1, mul_6);
  const tl::Tensor sum_7 = tl::sum(mul_6);  // sum, line 133: tl::sum(s * s)
  const tl::Tensor t_sum_7 = tl::sum(t_mul_6);
  return {sum_7, t_sum_7};
}

}  // namespace tlaloc_generated

#pragma GCC diagnostic pop
