// expect: 8:37: error: [UNSUPPORTED_CONSTRUCT] parameter or capture 'mlp' of type
#include <tlaloc/nn.hpp>
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

// tl::nn::MLP holds its activation in a std::function: not an aggregate of numbers.
tl::nn::Params f(const tl::nn::MLP& mlp, const tl::nn::Params& params, const tl::Tensor& x) {
  return tl::grad([&mlp, &x](const tl::nn::Params& p) { return tl::sum(mlp(p, x)); })(params);
}
