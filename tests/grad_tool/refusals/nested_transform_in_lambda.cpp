// expect: 11:73: error: [UNSUPPORTED_CONSTRUCT] tl::grad inside a function tlaloc-grad differentiates
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

namespace {
const auto energy = [](const tl::Tensor& v) { return tl::sum(v * v * v); };
// A lambda written outside every function differentiated, and called by one: its
// body, lowered where it is called, is searched for transforms as that function's
// own is.
const auto force = [](const tl::Tensor& v) { return tl::tanh(v) * 0.5 + tl::grad(energy)(v); };
}  // namespace

tl::Tensor f(const tl::Tensor& w) {
  return tl::grad([](const tl::Tensor& x) { return tl::sum(force(x) * x); })(w);
}
