// prod_backward_jvp and cumprod_backward_jvp (tlaloc/ops.hpp): forward mode run over
// the library's own prod_backward and cumprod_backward, so that a Hessian written at
// build time computes what the engine computes when it differentiates the ops they
// record, in the same order. Only the arguments with a tangent are differentiated:
// the engine's zero tangents are absent, not tensors of zeros.
#include <vector>

#include "tlaloc/ops.hpp"
#include "tlaloc/transforms.hpp"

namespace tlaloc {
namespace {

// The derivative of f(args) along the defined ones of `tangents`, the other arguments
// held constant; undefined where no tangent is.
template <class F>
Tensor along_defined(const F& f, const std::vector<Tensor>& args, const std::vector<Tensor>& tangents) {
  std::vector<Tensor> primals, moving;
  for (std::size_t i = 0; i < args.size(); ++i)
    if (tangents[i].defined()) {
      primals.push_back(args[i]);
      moving.push_back(tangents[i]);
    }
  if (primals.empty()) return Tensor();
  const auto partial = [&](const std::vector<Tensor>& p) {
    std::vector<Tensor> all = args;
    std::size_t k = 0;
    for (std::size_t i = 0; i < args.size(); ++i)
      if (tangents[i].defined()) all[i] = p[k++];
    return f(all);
  };
  return jvp(partial, primals, moving).second;
}

}  // namespace

Tensor prod_backward_jvp(const Tensor& g, const Tensor& tg, const Tensor& x, const Tensor& tx, Axes axes,
                         bool keepdims) {
  return along_defined(
      [&](const std::vector<Tensor>& a) { return prod_backward(a[0], a[1], axes, keepdims); }, {g, x},
      {tg, tx});
}

Tensor cumprod_backward_jvp(const Tensor& g, const Tensor& tg, const Tensor& x, const Tensor& tx,
                            const Tensor& y, const Tensor& ty, std::int64_t axis) {
  return along_defined([&](const std::vector<Tensor>& a) { return cumprod_backward(a[0], a[1], a[2], axis); },
                       {g, x, y}, {tg, tx, ty});
}

}  // namespace tlaloc
