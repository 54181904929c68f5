// tl::slice and tl::derivatives::slice_backward of values whose types are known at run
// time only (traced at build time, docs/ENGINE_AT_BUILD_TIME.md): one op each, their
// arguments after the tensors as attributes in either overload's order (one axis, or
// a box of starts, stops and steps), as written where tlaloc-grad reads them. Where
// types are known tl::slice records StableHLO's slice (shape_slice.cpp). Each op is
// linear, and the other's transpose.
#include <cstdint>
#include <string>
#include <variant>
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
using Ints = std::vector<std::int64_t>;

const std::vector<std::string> kArguments{"axis_or_starts", "start_or_stops", "stop_or_steps", "step"};

// The arguments, in the overload they name: one axis when the first is a number.
struct SliceArguments {
  bool one_axis = false;
  std::int64_t axis = 0, start = 0, stop = 0, step = 1;
  Ints starts, stops, steps;
};
SliceArguments arguments_of(const Attrs& a) {
  SliceArguments s;
  for (const auto& [name, v] : a.items())
    if (name == kArguments[0]) s.one_axis = std::holds_alternative<std::int64_t>(v);
  if (s.one_axis) {
    s.axis = a.get<std::int64_t>(kArguments[0]);
    s.start = a.get<std::int64_t>(kArguments[1]);
    s.stop = a.get<std::int64_t>(kArguments[2]);
    if (a.has(kArguments[3])) s.step = a.get<std::int64_t>(kArguments[3]);
  } else {
    s.starts = a.get<Ints>(kArguments[0]);
    s.stops = a.get<Ints>(kArguments[1]);
    if (a.has(kArguments[2])) s.steps = a.get<Ints>(kArguments[2]);
  }
  return s;
}

Tensor sliced(const Tensor& x, const Attrs& attrs) {
  const SliceArguments s = arguments_of(attrs);
  return s.one_axis ? slice(x, s.axis, s.start, s.stop, s.step) : slice(x, s.starts, s.stops, s.steps);
}
Tensor spread(const Tensor& g, const Shape& shape, const Attrs& attrs) {
  const SliceArguments s = arguments_of(attrs);
  return s.one_axis ? derivatives::slice_backward(g, shape, s.axis, s.start, s.stop, s.step)
                    : derivatives::slice_backward(g, shape, s.starts, s.stops, s.steps);
}
Shape taken(const Shape& shape, const Attrs& attrs) {
  const SliceArguments s = arguments_of(attrs);
  return s.one_axis ? detail::sliced_shape(shape, s.axis, s.start, s.stop, s.step)
                    : detail::sliced_shape(shape, s.starts, s.stops, s.steps);
}

// The arguments as C++: as written, or each list naming its type (`{0}, {5}, {2}`
// alone would pick the one-axis overload).
std::string cpp_arguments(const Attrs& a) {
  std::vector<std::string> out;
  for (const std::string& name : kArguments)
    for (const auto& [key, v] : a.items()) {
      if (key != name) continue;
      const auto* list = std::get_if<Ints>(&v);
      out.push_back(list != nullptr ? "std::vector<std::int64_t>" + detail::cpp_ints(*list)
                                    : detail::cpp_attr(a, name));
    }
  return detail::cpp_list(out);
}

const OpDef* slice_call_op = nullptr;
const OpDef* slice_backward_op = nullptr;

const bool defined = [] {
  slice_call_op =
      &detail::def_steps("slice_call", 1,
                         [](std::span<const Tensor> in, const Attrs& a) { return sliced(in[0], a); })
           .linear()
           .called_as({.names = {"slice"}, .attributes = kArguments, .passes_on = true})
           .type_origin(OpDef::TypeOrigin{OpDef::TypeOrigin::kOwn, 0})
           .shape_rule([](std::span<const TensorType> in, const Attrs& attrs) {
             return std::vector<TensorType>{{in[0].dtype, taken(in[0].shape, attrs)}};
           })
           .jvp(detail::linear_jvp({0}))
           .vjp([](const Rule& r) {
             return std::vector<Tensor>{
                 detail::call1(*slice_backward_op, {r.cotangent(), r.in(0)}, r.attrs())};
           })
           .cpp([](detail::CppOp& op) {
             return fmt::format("tl::slice({}, {})", op.operand(0), cpp_arguments(op.attrs()));
           });
  // g put back into zeros of x's shape; g itself where the slice takes all of x.
  slice_backward_op =
      &detail::shaped_like_second(detail::def_steps("slice_backward", 2,
                                                    [](std::span<const Tensor> in, const Attrs& a) {
                                                      return spread(in[0], in[1].shape(), a);
                                                    }))
           .called_as(
               {.names = {"slice_backward"}, .attributes = kArguments, .passes_on = true, .by_shape = {1}})
           .vjp([](const Rule& r) {
             std::vector<Tensor> g(2);
             if (r.wants(0)) g[0] = detail::call1(*slice_call_op, {r.cotangent()}, r.attrs());
             return g;
           })
           .cpp([](detail::CppOp& op) {
             return fmt::format("tl::derivatives::slice_backward({}, {}.shape(), {})", op.operand(0),
                                op.operand(1), cpp_arguments(op.attrs()));
           });
  return true;
}();

}  // namespace

Tensor detail::record_slice(const Tensor& x, const Attrs& arguments) {
  return call1(*slice_call_op, {x}, arguments);
}

}  // namespace tlaloc
