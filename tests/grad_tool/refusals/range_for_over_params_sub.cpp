// expect: 9:5: error: [UNSUPPORTED_CONSTRUCT] a range-for over part of the Params 'p' (its sub(...))
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::nn::Params f(const tl::nn::Params& params, const tl::Tensor& x) {
  return tl::grad([&x](const tl::nn::Params& p) {
    tl::Tensor h = x;
    for (const auto& [name, w] : p.sub("hidden")) h = tl::tanh(tl::matmul(h, w));
    return tl::sum(h);
  })(params);
}
