// expect: 8:58: error: [NOT_DIFFERENTIABLE] 'std::vector<tl::Tensor>(2, x)' (not a tl::Tensor) uses 'x', which depends on the differentiated argument: its derivative would be lost
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  return tl::grad([](const tl::Tensor& x) {
    return tl::sum(tl::concat(std::vector<tl::Tensor>(2, x), 0));
  })(w);
}
