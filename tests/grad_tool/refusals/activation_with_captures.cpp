// expect: 9:39: error: [UNSUPPORTED_CONSTRUCT] the std::function 'activation' of 'mlp' is a lambda with captures: tlaloc-grad inlines those that capture nothing
#include <tlaloc/nn.hpp>
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::nn::Params f(const tl::nn::Params& params, const tl::Tensor& x, double slope) {
  const tl::nn::MLP mlp{.sizes = {3, 4, 1},
                        .activation = [slope](const tl::Tensor& h) { return tl::tanh(h) * slope; }};
  return tl::grad([&](const tl::nn::Params& p) { return tl::sum(mlp(p, x)); })(params);
}
