// expect: 11:56: error: [UNSUPPORTED_CONSTRUCT] tl::scan's function takes 'std::span<const tl::Tensor>': tlaloc-grad writes scans whose function takes its carry and its slices each as a tl::Tensor or a std::vector<tl::Tensor>
#include <tlaloc/tlaloc.hpp>

#include <span>
#include <vector>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& xs) {
  return tl::grad([](const tl::Tensor& v) {
    auto [last, ys] = tl::scan([](const tl::Tensor& c, std::span<const tl::Tensor> x) { return std::pair{c * x[0], c}; },
                               tl::sum(v), std::vector<tl::Tensor>{v});
    return tl::sum(last) + tl::sum(ys);
  })(xs);
}
