// expect: 9:5: error: [UNSUPPORTED_CONSTRUCT] a range-for over the Params 'p' with an initializer, or whose variable
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::nn::Params f(const tl::nn::Params& params, const tl::Tensor& x) {
  return tl::grad([&x](const tl::nn::Params& p) {
    tl::Tensor h = x;
    for (const auto& entry : p) h = tl::tanh(tl::matmul(h, entry.second));
    return tl::sum(h);
  })(params);
}
