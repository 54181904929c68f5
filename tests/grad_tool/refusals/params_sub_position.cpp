// expect: 9:34: error: [UNSUPPORTED_CONSTRUCT] 'p.sub("hidden").entries()[0].second': a position
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::nn::Params f(const tl::nn::Params& params, const tl::Tensor& x) {
  return tl::grad([&x](const tl::nn::Params& p) {
    const tl::Tensor h = x;
    return tl::sum(tl::matmul(h, p.sub("hidden").entries()[0].second));
  })(params);
}
