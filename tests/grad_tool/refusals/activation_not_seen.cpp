// expect: 9:72: error: [UNSUPPORTED_CONSTRUCT] the std::function 'activation' of 'mlp': tlaloc-grad inlines the lambda such a member was given where the object is a const variable initialized in braces in the file
#include <tlaloc/nn.hpp>
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

// tl::nn::MLP's activation is a std::function: the lambda in it is unknown here.
tl::nn::Params f(const tl::nn::MLP& mlp, const tl::nn::Params& params, const tl::Tensor& x) {
  return tl::grad([&mlp, &x](const tl::nn::Params& p) { return tl::sum(mlp(p, x)); })(params);
}
