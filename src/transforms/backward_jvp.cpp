// prod_backward_jvp and cumprod_backward_jvp (tlaloc/ops.hpp): forward mode run over
// the library's own prod_backward and cumprod_backward, so that a Hessian written at
// build time computes what the engine computes when it differentiates the ops they
// record, in the same order.
#include <vector>

#include "tlaloc/derivatives.hpp"
#include "tlaloc/ops.hpp"
#include "transforms/along_defined.hpp"

namespace tlaloc {

namespace transforms {

std::pair<detail::Values, detail::Values> along_defined(const detail::FlatFn& f, std::span<const Tensor> args,
                                                        std::span<const Tensor> tangents) {
  std::vector<Tensor> primals, moving;
  for (std::size_t i = 0; i < args.size(); ++i)
    if (tangents[i].defined()) {
      primals.push_back(args[i]);
      moving.push_back(tangents[i]);
    }
  if (primals.empty()) {
    detail::Values values = f(args);
    return {values, detail::Values(values.size())};
  }
  const auto partial = [&](std::span<const Tensor> p) {
    std::vector<Tensor> all(args.begin(), args.end());
    std::size_t k = 0;
    for (std::size_t i = 0; i < args.size(); ++i)
      if (tangents[i].defined()) all[i] = p[k++];
    return f(all);
  };
  std::vector<Tensor> r = detail::run_jvp(partial, primals, moving);
  const auto half = std::ptrdiff_t(r.size() / 2);
  return {detail::Values(r.begin(), r.begin() + half), detail::Values(r.begin() + half, r.end())};
}

}  // namespace transforms

namespace {
// The tangent of f's one result; undefined, without running f, where no tangent is.
Tensor tangent_of_one(const detail::FlatFn& f, const std::vector<Tensor>& args,
                      const std::vector<Tensor>& tangents) {
  for (const Tensor& t : tangents)
    if (t.defined()) return transforms::along_defined(f, args, tangents).second.at(0);
  return Tensor();
}
}  // namespace

Tensor derivatives::prod_backward_jvp(const Tensor& g, const Tensor& tg, const Tensor& x, const Tensor& tx, Axes axes,
                         bool keepdims) {
  return tangent_of_one(
      [&](std::span<const Tensor> a) { return detail::Values{derivatives::prod_backward(a[0], a[1], axes, keepdims)}; },
      {g, x}, {tg, tx});
}

Tensor derivatives::cumprod_backward_jvp(const Tensor& g, const Tensor& tg, const Tensor& x, const Tensor& tx,
                            const Tensor& y, const Tensor& ty, std::int64_t axis) {
  return tangent_of_one(
      [&](std::span<const Tensor> a) { return detail::Values{derivatives::cumprod_backward(a[0], a[1], a[2], axis)}; },
      {g, x, y}, {tg, tx, ty});
}

}  // namespace tlaloc
