// expect: 11:64: error: [UNSUPPORTED_CONSTRUCT] 's[k]': the elements of a std::vector<tl::Tensor> the function builds are read at indices known at compile time
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w, int k) {
  return tl::grad([&](const tl::Tensor& x) {
    const auto out = tl::fori_loop(
        0, 3,
        [&](const tl::Tensor&, const std::vector<tl::Tensor>& s) {
          return std::vector<tl::Tensor>{s[0] * s[1], s[1] + s[k]};
        },
        std::vector<tl::Tensor>{x, x * 2.0});
    return tl::sum(out[0]);
  })(w);
}
