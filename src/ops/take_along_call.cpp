// tl::take_along_axis and tl::derivatives::take_along_axis_backward of values whose
// types are known at run time only (traced at build time, docs/ENGINE_AT_BUILD_TIME.md):
// one op each, the axis as written where tlaloc-grad reads it. Where types are known
// tl::take_along_axis broadcasts x and the indices against each other off the axis
// and records the take_along_axis op (indexing.cpp). Each op is linear in its first
// operand, and the other's transpose there.
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "ir/op.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/rule.hpp"
#include "ops/untyped_calls.hpp"
#include "tlaloc/derivatives.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc {
namespace {

using detail::Attrs;
using detail::OpDef;
using detail::Rule;
using detail::TensorType;

std::int64_t axis_of(const Attrs& a) { return a.get<std::int64_t>("axis"); }

const OpDef* take_along_call_op = nullptr;
const OpDef* take_along_backward_op = nullptr;

const bool defined = [] {
  take_along_call_op =
      &detail::def_steps("take_along_axis_call", 2,
                         [](std::span<const Tensor> in, const Attrs& a) {
                           return take_along_axis(in[0], in[1], axis_of(a));
                         })
           .linear({0})
           .called_as({.names = {"take_along_axis"}, .attributes = {"axis"}})
           .type_origin(OpDef::TypeOrigin{OpDef::TypeOrigin::kOwn, 0})
           .shape_rule([](std::span<const TensorType> in, const Attrs& a) {
             const detail::AlongShapes s = detail::along_shapes(in[0].shape, in[1].shape, axis_of(a));
             return std::vector<TensorType>{{in[0].dtype, s.indices}};
           })
           .jvp(detail::linear_jvp({0}))
           .vjp([](const Rule& r) {
             std::vector<Tensor> g(2);
             if (r.wants(0))
               g[0] = detail::call1(*take_along_backward_op, {r.cotangent(), r.in(0), r.in(1)}, r.attrs());
             return g;
           })
           .cpp([](detail::CppOp& op) {
             return detail::cpp_call("tl::take_along_axis", op, {detail::cpp_attr(op.attrs(), "axis")});
           });
  // g put back where x's elements were read (and summed over what was broadcast).
  take_along_backward_op =
      &detail::shaped_like_second(detail::def_steps("take_along_axis_backward", 3,
                                                    [](std::span<const Tensor> in, const Attrs& a) {
                                                      return derivatives::take_along_axis_backward(
                                                          in[0], in[1].shape(), in[2], axis_of(a));
                                                    }))
           .called_as({.names = {"take_along_axis_backward"}, .attributes = {"axis"}, .by_shape = {1}})
           .vjp([](const Rule& r) {
             std::vector<Tensor> g(3);
             if (r.wants(0)) g[0] = detail::call1(*take_along_call_op, {r.cotangent(), r.in(2)}, r.attrs());
             return g;
           })
           .cpp([](detail::CppOp& op) {
             return fmt::format("tl::derivatives::take_along_axis_backward({}, {}.shape(), {}, {})",
                                op.operand(0), op.operand(1), op.operand(2),
                                detail::cpp_attr(op.attrs(), "axis"));
           });
  return true;
}();

}  // namespace

Tensor detail::record_take_along_axis(const Tensor& x, const Tensor& indices, std::int64_t axis) {
  return call1(*take_along_call_op, {x, indices}, {{"axis", axis}});
}

Tensor detail::record_take_along_axis_backward(const Tensor& g, const Tensor& x, const Tensor& indices,
                                               std::int64_t axis) {
  return call1(*take_along_backward_op, {g, x, indices}, {{"axis", axis}});
}

}  // namespace tlaloc
