// tl::concat and tl::stack of values whose types are known at run time only (traced
// at build time, docs/ENGINE_AT_BUILD_TIME.md): one op each over the listed tensors,
// the axis an attribute (as written where tlaloc-grad reads it). Where types are known
// the functions record StableHLO's concatenate (shape_join.cpp), whose rule these
// mirror: each tensor's share is its slice of the cotangent along the axis, converted
// back to its dtype (the functions promote the tensors to a common dtype first).
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/check.hpp"
#include "ir/op.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/elementwise_rules.hpp"
#include "ops/like.hpp"
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

const OpDef* concat_op = nullptr;
const OpDef* stack_op = nullptr;
const OpDef* part_op = nullptr;  // a listed tensor's slice of concat's cotangent

std::int64_t axis_of(const Attrs& a, std::int64_t rank) {
  return detail::normalize_axis("concat", a.get<std::int64_t>("axis"), rank);
}

// The joined result's type where types are known: `extra` axes added (1 for stack).
std::vector<TensorType> joined_type(std::span<const TensorType> in, const Attrs& a, bool stacked) {
  DType t = in[0].dtype;
  for (const TensorType& x : in) t = detail::promote_for("concat", t, x.dtype);
  Shape s = in[0].shape;
  const std::int64_t axis = axis_of(a, std::int64_t(s.size()) + (stacked ? 1 : 0));
  if (stacked) s.insert(s.begin() + axis, std::int64_t(in.size()));
  for (std::size_t i = 1; i < in.size() && !stacked; ++i)
    s[std::size_t(axis)] += in[i].shape[std::size_t(axis)];
  return {{t, s}};
}

// The tensors' tangents joined alike, zeros for a tensor without one.
std::vector<Tensor> joined_jvp(const Rule& r) {
  std::vector<Tensor> t(r.num_in());
  bool any = false;
  for (std::size_t i = 0; i < t.size(); ++i) {
    any = any || r.has_tangent(i);
    t[i] = r.has_tangent(i) ? r.tangent(i) : zeros_like(r.in(i));
  }
  return {any ? detail::call1(*r.op(), t, r.attrs()) : Tensor()};
}

// `{a, b}, axis`: the list of operands, then the axis.
std::string cpp_joined(detail::CppOp& op, const std::string& fn) {
  std::vector<std::string> items;
  for (std::size_t i = 0; i < op.num_operands(); ++i) items.push_back(op.operand(i));
  return fmt::format("{}({{{}}}, {})", fn, detail::cpp_list(items), detail::cpp_attr(op.attrs(), "axis"));
}

// t's extent along the axis, as C++: `t.shape()[1]`, `t.shape().back()` or `t.size(axis)`.
std::string cpp_extent(const std::string& t, const Attrs& a) {
  const std::string axis = detail::cpp_attr(a, "axis");
  const bool literal = !axis.empty() && axis.find_first_not_of("0123456789") == std::string::npos;
  if (literal) return fmt::format("{}.shape()[{}]", t, axis);
  if (axis == "-1") return t + ".shape().back()";
  return fmt::format("{}.size({})", t, axis);
}
// Where the last listed tensor's part starts and stops along the axis.
std::pair<std::int64_t, std::int64_t> part_bounds(std::span<const Tensor> in, const Attrs& a) {
  const std::int64_t axis = axis_of(a, in[0].rank());
  std::int64_t start = 0;
  for (std::size_t i = 1; i + 1 < in.size(); ++i) start += in[i].shape()[std::size_t(axis)];
  return {start, start + in.back().shape()[std::size_t(axis)]};
}
Tensor part(std::span<const Tensor> in, const Attrs& a) {
  const auto [start, stop] = part_bounds(in, a);
  return slice(in[0], a.get<std::int64_t>("axis"), start, stop);
}

// concat or stack (`stacked`) of the listed tensors, called as `fn`.
OpDef& def_joined(std::string_view name, const std::string& fn, bool stacked) {
  return detail::def_steps(name, -1,
                           [stacked](std::span<const Tensor> in, const Attrs& a) {
                             const std::vector<Tensor> xs(in.begin(), in.end());
                             const auto axis = a.get<std::int64_t>("axis");
                             return stacked ? stack(xs, axis) : concat(xs, axis);
                           })
      .linear()
      .called_as(
          {.names = {fn}, .attributes = {"axis"}, .defaults = {{"axis", std::int64_t{0}}}, .list = true})
      .shape_rule(
          [stacked](std::span<const TensorType> in, const Attrs& a) { return joined_type(in, a, stacked); })
      .jvp(joined_jvp)
      .cpp([fn](detail::CppOp& op) { return cpp_joined(op, "tl::" + fn); });
}

const bool defined = [] {
  concat_op = &def_joined("concat_call", "concat", false).vjp([](const Rule& r) {
    std::vector<Tensor> g(r.num_in());
    for (std::size_t i = 0; i < g.size(); ++i) {
      if (!r.wants(i)) continue;
      std::vector<Tensor> in{r.cotangent()};
      for (std::size_t j = 0; j <= i; ++j) in.push_back(r.in(j));
      g[i] = detail::astype_like(detail::call1(*part_op, in, r.attrs()), r.in(i));
    }
    return g;
  });
  // (g, x_0, ..., x_i): x_i's part of g, after the parts of the tensors before it.
  part_op =
      &detail::def_steps("concat_part", -1, part)
           .linear({0})
           .type_origin(OpDef::TypeOrigin{OpDef::TypeOrigin::kOwn, 0})
           .shape_rule([](std::span<const TensorType> in, const Attrs& a) {
             Shape s = in[0].shape;
             const auto axis = std::size_t(axis_of(a, std::int64_t(s.size())));
             s[axis] = in.back().shape[axis];
             return std::vector<TensorType>{{in[0].dtype, s}};
           })
           .jvp([](const Rule& r) {
             if (!r.has_tangent(0)) return std::vector<Tensor>(1);
             std::vector<Tensor> in{r.tangent(0)};
             for (std::size_t j = 1; j < r.num_in(); ++j) in.push_back(r.in(j));
             return std::vector<Tensor>{detail::call1(*r.op(), in, r.attrs())};
           })
           .vjp([](const Rule& r) {
             std::vector<Tensor> g(r.num_in());
             if (!r.wants(0)) return g;
             std::vector<Tensor> in;
             for (std::size_t j = 0; j < r.num_in(); ++j) in.push_back(r.in(j));
             const auto [start, stop] = part_bounds(in, r.attrs());
             g[0] = derivatives::slice_backward(r.cotangent(), r.in(0).shape(), r.attr<std::int64_t>("axis"),
                                                start, stop);
             return g;
           })
           .cpp([](detail::CppOp& op) {
             std::string start = "0", stop;
             const std::size_t last = op.num_operands() - 1;
             for (std::size_t j = 1; j < last; ++j) {
               const std::string e = cpp_extent(op.operand(j), op.attrs());
               start = j == 1 ? e : start + " + " + e;
             }
             const std::string e = cpp_extent(op.operand(last), op.attrs());
             stop = last == 1 ? e : start + " + " + e;
             return fmt::format("tl::slice({}, {}, {}, {})", op.operand(0),
                                detail::cpp_attr(op.attrs(), "axis"), start, stop);
           });
  // stack expands each tensor's axes, then concatenates: a tensor's share is its
  // slice of the cotangent reshaped back.
  stack_op = &def_joined("stack_call", "stack", true).vjp([](const Rule& r) {
    std::vector<Tensor> g(r.num_in());
    for (std::size_t i = 0; i < g.size(); ++i) {
      if (!r.wants(i)) continue;
      Attrs one_axis;
      for (const auto& [name, v] : r.attrs().items())
        if (name == "axis") one_axis.set("axis_or_starts", v);
      one_axis.set("start_or_stops", std::int64_t(i));
      one_axis.set("stop_or_steps", std::int64_t(i + 1));
      const Tensor sliced = detail::record_slice(r.cotangent(), one_axis);
      g[i] = detail::astype_like(detail::reshape_like(sliced, r.in(i)), r.in(i));
    }
    return g;
  });
  return true;
}();

}  // namespace

Tensor detail::record_concat(const std::vector<Tensor>& xs, std::int64_t axis) {
  return call1(*concat_op, xs, {{"axis", axis}});
}
Tensor detail::record_stack(const std::vector<Tensor>& xs, std::int64_t axis) {
  return call1(*stack_op, xs, {{"axis", axis}});
}

}  // namespace tlaloc
