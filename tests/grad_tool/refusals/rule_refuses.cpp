// expect: 10:19: error: [NOT_DIFFERENTIABLE] the reverse sweep of the lambda at rule_refuses.cpp:10: tl::prod_backward: the reverse derivative of prod_backward in x is not written
#include <tlaloc/derivatives.hpp>
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  // prod's share differentiated in x by reverse mode: its op's rule refuses, by name
  // (tl::hessian, forward over reverse, is written).
  return tl::grad([](const tl::Tensor& x) { return tl::sum(tl::derivatives::prod_backward(tl::ones_like(x), x)); })(w);
}
