// expect: tl::cond: both branches must return the same type
#include <tlaloc/tlaloc.hpp>
#include <vector>
namespace tl = tlaloc;
tl::Tensor f(const tl::Tensor& p, const tl::Tensor& x) {
  return tl::cond(
      p, [&] { return x; }, [&] { return std::vector<tl::Tensor>{x}; });
}
