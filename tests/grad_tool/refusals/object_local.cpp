// expect: 10:43: error: [UNSUPPORTED_CONSTRUCT] local 'scaled' of type
#include <tlaloc/tlaloc.hpp>

#include <functional>

namespace tl = tlaloc;

tl::Tensor f(const tl::Tensor& w) {
  return tl::grad([](const tl::Tensor& x) {
    std::function<tl::Tensor(tl::Tensor)> scaled = [](tl::Tensor t) { return t * 2.0; };
    return tl::sum(scaled(x));
  })(w);
}
