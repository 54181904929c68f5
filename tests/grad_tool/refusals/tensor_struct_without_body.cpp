// expect: 14:31: error: [UNSUPPORTED_CONSTRUCT] 'split(v)' of type Halves: tlaloc-grad follows an aggregate of tensors made in braces, held in a variable, or returned by a function with a visible body
#include <tlaloc/tlaloc.hpp>

namespace tl = tlaloc;

struct Halves {
  tl::Tensor low, high;
};
// Declared only: its body is compiled elsewhere.
Halves split(const tl::Tensor& x);

tl::Tensor f(const tl::Tensor& x) {
  return tl::grad([](const tl::Tensor& v) {
    return tl::sum(tl::square(split(v).high));
  })(x);
}
