// expect: 9:10: error: [UNSUPPORTED_CONSTRUCT] tl::hessian of a function of a std::vector<tl::Tensor>
#include <tlaloc/tlaloc.hpp>

#include <vector>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w, const std::vector<tl::Tensor>& coefs) {
  return tl::hessian([&coefs](const tl::Tensor& x) { return tl::sum(x * x * coefs[0]); })(w);
}
