// expect: tl::while_loop: the carry must be a tl::Tensor or a std::vector<tl::Tensor>
#include <tlaloc/tlaloc.hpp>
namespace tl = tlaloc;
double f() {
  return tl::while_loop([](double c) { return tl::scalar_tensor(c < 3, tl::DType::boolean); },
                        [](double c) { return c + 1; }, 0.0);
}
