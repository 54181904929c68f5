// expect: 7:10: error: [UNSUPPORTED_CONSTRUCT] tl::hessian of a function with tl::prod (line 8): its share, tl::prod_backward, has no forward rule
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  return tl::hessian([](const tl::Tensor& x) {
    return tl::sum(tl::prod(x * x + 0.5, {0}));
  })(w);
}
