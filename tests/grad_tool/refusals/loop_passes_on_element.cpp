// expect: 11:5: error: [UNSUPPORTED_CONSTRUCT] the AD engine's reverse sweep of the lambda at loop_passes_on_element.cpp:9 cannot be written at build time yet (a loop passing on a list's element read at an index computed at run time)
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

// An iteration may carry on an element of the differentiated list read at an index
// known at run time only, whose shares tracing sums with its other reads'.
std::vector<tl::Tensor> f(const std::vector<tl::Tensor>& ws) {
  return tl::grad([](const std::vector<tl::Tensor>& ps) {
    tl::Tensor h = ps[0];
    for (std::size_t i = 0; i < ps.size(); ++i) {
      h = tl::sin(h) * ps[0];
      if (i == 1) h = ps[i];
    }
    return tl::sum(h);
  })(ws);
}
