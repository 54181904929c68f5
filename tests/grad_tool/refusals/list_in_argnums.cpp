// expect: 9:19: error: [UNSUPPORTED_CONSTRUCT] parameter 0 is a std::vector<tl::Tensor>: tl::argnums
#include <tlaloc/tlaloc.hpp>

#include <vector>

namespace tl = tlaloc;

std::vector<tl::Tensor> f(const std::vector<tl::Tensor>& params, const tl::Tensor& x) {
  return tl::grad([](const std::vector<tl::Tensor>& ps, const tl::Tensor& y) { return tl::sum(ps[0] * y); },
                  tl::argnums{0, 1})(params, x);
}
