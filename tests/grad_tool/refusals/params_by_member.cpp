// expect: 9:24: error: [NOT_DIFFERENTIABLE] 'p.tensors()' (not a tl::Tensor) uses 'p', which depends on the differentiated argument
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::nn::Params f(const tl::nn::Params& params, const tl::Tensor& x) {
  return tl::grad([&x](const tl::nn::Params& p) {
    const tl::Tensor h = tl::tanh(tl::matmul(x, p.at("weight")));
    return tl::sum(h * p.tensors()[1]);
  })(params);
}
