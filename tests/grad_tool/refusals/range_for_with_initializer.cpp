// expect: 11:5: error: [UNSUPPORTED_CONSTRUCT] a range-for over the list 'ps' with an initializer
#include <tlaloc/tlaloc.hpp>

#include <vector>

namespace tl = tlaloc;

std::vector<tl::Tensor> f(const std::vector<tl::Tensor>& params, const tl::Tensor& x) {
  return tl::grad([&x](const std::vector<tl::Tensor>& ps) {
    tl::Tensor h = x;
    for (double scale = 0.5; const tl::Tensor& w : ps) h = tl::tanh(tl::matmul(h, w) * scale);
    return tl::sum(h);
  })(params);
}
