// expect: 12:10: error: [UNSUPPORTED_CONSTRUCT] tl::jvp inside a function tlaloc-grad differentiates
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor inner(const tl::Tensor& v) { return tl::sum(tl::tanh(v) * v); }

// A transform inside the differentiated function, here in a function it calls (the
// traced tl::grad would differentiate the jvp's ops): tlaloc-grad writes no nesting
// but tl::hessian's and tl::jvp(tl::grad(f), x, t)'s.
tl::Tensor directional(const tl::Tensor& v) {
  return tl::jvp(inner, v, v).second;
}

tl::Tensor f(const tl::Tensor& w) { return tl::grad(directional)(w); }
