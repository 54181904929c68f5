// expect: 8:5: error: [UNSUPPORTED_CONSTRUCT] a statement of kind CXXTryStmt
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  return tl::grad([](const tl::Tensor& x) {
    try {
      return tl::sum(x);
    } catch (...) {
      return tl::sum(x * 0.0);
    }
  })(w);
}
