// expect: 10:39: error: [UNSUPPORTED_CONSTRUCT] 'p.at(std::string("w") + "eight")': a tl::nn::Params is read by a name written as a string literal
#include <tlaloc/tlaloc.hpp>

#include <string>

namespace tl = tlaloc;

tl::nn::Params f(const tl::nn::Params& params, const tl::Tensor& x) {
  return tl::grad([&x](const tl::nn::Params& p) {
    return tl::sum(tl::matmul(x, p.at(std::string("w") + "eight")));
  })(params);
}
