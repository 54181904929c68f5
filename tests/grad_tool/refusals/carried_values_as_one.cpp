// expect: 10:5: error: [UNSUPPORTED_CONSTRUCT] the AD engine's reverse sweep of the lambda at carried_values_as_one.cpp:8 cannot be written at build time yet (a loop two of whose carried values end an iteration as one value)
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

// Tracing sees one value where both end an iteration: its shares interleave.
tl::Tensor f(const tl::Tensor& w, int n) {
  return tl::grad([n](const tl::Tensor& v) {
    tl::Tensor a = v, b = v * 2.0;
    for (int i = 0; i < n; ++i) {
      const tl::Tensor t = a * b;
      a = t;
      b = t;
    }
    return tl::sum(a + b);
  })(w);
}
