// expect: 11:72: error: [UNSUPPORTED_CONSTRUCT] 'ps[1]' inside tl::fori_loop's body: read the list's
#include <tlaloc/tlaloc.hpp>

#include <vector>

namespace tl = tlaloc;

std::vector<tl::Tensor> f(const std::vector<tl::Tensor>& params) {
  return tl::grad([](const std::vector<tl::Tensor>& ps) {
    return tl::sum(tl::fori_loop(
        0, 3, [&](const tl::Tensor&, const tl::Tensor& c) { return c * ps[1]; }, ps[0]));
  })(params);
}
