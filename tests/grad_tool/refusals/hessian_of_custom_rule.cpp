// expect: 14:10: error: [UNSUPPORTED_CONSTRUCT] tl::hessian of a function with a custom rule (line 15): its gradient calls the rule's backward half, whose body tlaloc-grad cannot see
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

const auto safe_log = tl::custom_vjp(
    [](const tl::Tensor& v) { return tl::log(v); },
    [](const tl::Tensor& v) { return std::pair{tl::log(v), std::vector<tl::Tensor>{v}}; },
    [](const std::vector<tl::Tensor>& res, const tl::Tensor& ct) {
      return std::vector<tl::Tensor>{ct / tl::maximum(res[0], 1e-3)};
    });

tl::Tensor f(const tl::Tensor& w) {
  return tl::hessian([](const tl::Tensor& x) {
    const tl::Tensor s = safe_log(x * x + 0.5) * x;
    return tl::sum(s);
  })(w);
}
