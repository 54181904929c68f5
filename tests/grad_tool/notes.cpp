// Transforms tlaloc-grad leaves to trace at run time, each named in a note on the
// standard error, and the file comes out as written (test grad_tool.notes).
#include <tlaloc/tlaloc.hpp>

#include <functional>

namespace tl = tlaloc;

// A function known only through a std::function has no body to see.
tl::Tensor through_function(const std::function<tl::Tensor(const tl::Tensor&)>& f, const tl::Tensor& x) {
  return tl::grad(f)(x);
}

// A lambda inside a template depends on the template's parameters.
template <class Scale>
tl::Tensor in_template(const tl::Tensor& x) {
  return tl::grad([](const tl::Tensor& v) { return tl::sum(v * Scale(2)); })(x);
}
