// expect: 12:43: error: [UNSUPPORTED_CONSTRUCT] the field 'state' of tlaloc::nn::BatchNorm2d::Result, a tl::nn::Params: tlaloc-grad follows an aggregate's tensors only
#include <tlaloc/nn.hpp>
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& x, const tl::nn::Params& p, const tl::nn::Params& state) {
  const tl::nn::BatchNorm2d bn{.num_features = 2};
  // The running statistics beside the output are not followed: reading them refuses.
  return tl::grad([&](const tl::Tensor& v) {
    const tl::nn::BatchNorm2d::Result r = bn(p, state, v, true);
    return tl::sum(r.y * r.y) + tl::sum(r.state.at("running_mean"));
  })(x);
}
