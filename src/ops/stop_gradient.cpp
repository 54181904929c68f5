// stop_gradient: the identity whose derivative is zero (JAX's lax.stop_gradient).
// Lowering drops it: StableHLO has no derivatives to stop.
#include <fmt/format.h>

#include "ir/op.hpp"
#include "ops/cpp_spelling.hpp"
#include "tlaloc/transforms.hpp"

namespace tlaloc {
namespace {

const detail::OpDef& stop_gradient_op =
    detail::def_op("stop_gradient")
        .inputs(1)
        .shape_rule([](std::span<const detail::TensorType> in, const detail::Attrs&) {
          return std::vector<detail::TensorType>{in[0]};
        })
        .kernel([](std::span<const Tensor> in, const detail::Attrs&, std::span<const detail::TensorType>) {
          return std::vector<Tensor>{in[0]};
        })
        .no_derivative()
        .constant_to_derivatives()
        .called_as({.names = {"stop_gradient"}, .attributes = {}})
        .cpp(detail::cpp_fn("tl::stop_gradient"))
        .lower([](std::span<const Tensor> in, const detail::Attrs&) { return std::vector<Tensor>{in[0]}; });

}  // namespace

Tensor stop_gradient(const Tensor& x) { return detail::call1(stop_gradient_op, {x}); }

}  // namespace tlaloc
