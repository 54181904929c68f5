// expect: 11:31: error: [NOT_DIFFERENTIABLE] 'ps' (not a tl::Tensor) uses 'ps', which depends on the differentiated argument
#include <tlaloc/tlaloc.hpp>

#include <vector>

namespace tl = tlaloc;

// tl::concat takes the list whole: its shares would go to no element.
std::vector<tl::Tensor> f(const std::vector<tl::Tensor>& params) {
  return tl::grad([](const std::vector<tl::Tensor>& ps) {
    return tl::sum(tl::concat(ps, 0));
  })(params);
}
