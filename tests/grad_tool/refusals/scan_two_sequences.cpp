// expect: 10:23: error: [UNSUPPORTED_CONSTRUCT] tl::scan over a std::vector<tl::Tensor> of sequences: tlaloc-grad writes scans over one tl::Tensor (the carry may be a tl::Tensor or a std::vector<tl::Tensor>)
#include <tlaloc/tlaloc.hpp>

#include <vector>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& xs) {
  return tl::grad([](const tl::Tensor& v) {
    auto [last, ys] = tl::scan(
        [](const tl::Tensor& c, const std::vector<tl::Tensor>& pair) {
          return std::pair<tl::Tensor, tl::Tensor>{c + pair[0] * pair[1], c};
        },
        tl::sum(v), std::vector<tl::Tensor>{v, v * 2.0});
    return tl::sum(last) + tl::sum(ys);
  })(xs);
}
