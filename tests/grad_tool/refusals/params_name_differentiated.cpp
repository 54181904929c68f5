// expect: 10:39: error: [NOT_DIFFERENTIABLE] 'p.at("w").item<double>() > 0 ? "w" : "v"' (not a tl::Tensor) uses 'p', which depends on the differentiated argument: its derivative would be lost
#include <tlaloc/tlaloc.hpp>

#include <string>

namespace tl = tlaloc;

tl::nn::Params f(const tl::nn::Params& params, const tl::Tensor& x) {
  return tl::grad([&x](const tl::nn::Params& p) {
    return tl::sum(tl::matmul(x, p.at(p.at("w").item<double>() > 0 ? "w" : "v")));
  })(params);
}
