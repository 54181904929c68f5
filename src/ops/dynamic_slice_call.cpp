// tl::dynamic_slice and tl::dynamic_update_slice of values whose types are known at
// run time only (traced at build time, docs/ENGINE_AT_BUILD_TIME.md): one op each,
// their starts (and sizes) as attributes, as written where tlaloc-grad reads them.
// Where types are known the functions record StableHLO's ops (shape_slice.cpp), whose
// rules these mirror: a window's transpose puts it back into zeros, and an update's
// transpose gives x the cotangent with the window zeroed and the update the window.
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "ir/op.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/like.hpp"
#include "ops/rule.hpp"
#include "ops/untyped_calls.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc {
namespace {

using detail::Attrs;
using detail::OpDef;
using detail::Rule;
using detail::TensorType;
using Ints = std::vector<std::int64_t>;

const OpDef* window_op = nullptr;       // tl::dynamic_slice(x, starts, sizes)
const OpDef* update_op = nullptr;       // tl::dynamic_update_slice(x, update, starts)
const OpDef* window_like_op = nullptr;  // tl::dynamic_slice(g, starts, like.shape())

Attrs starts_of(const Attrs& a) {
  Attrs out;
  for (const auto& [name, v] : a.items())
    if (name == "starts") out.set(name, v);
  return out;
}
// g put back where the window of `starts` took it, into zeros of x's type.
Tensor put_back(const Tensor& g, const Tensor& x, const Attrs& attrs) {
  return detail::call1(*update_op, {zeros_like(x), g}, starts_of(attrs));
}

Tensor window(std::span<const Tensor> in, const Attrs& a) {
  return dynamic_slice(in[0], a.get<Ints>("starts"), a.get<Ints>("sizes"));
}
Tensor window_like(std::span<const Tensor> in, const Attrs& a) {
  return dynamic_slice(in[0], a.get<Ints>("starts"), in[1].shape());
}
Tensor updated(std::span<const Tensor> in, const Attrs& a) {
  return dynamic_update_slice(in[0], in[1], a.get<Ints>("starts"));
}
const bool defined = [] {
  window_op = &detail::def_steps("dynamic_slice_call", 1, window)
                   .linear()
                   .called_as({.names = {"dynamic_slice"}, .attributes = {"starts", "sizes"}})
                   .type_origin(OpDef::TypeOrigin{OpDef::TypeOrigin::kOwn, 0})
                   .shape_rule([](std::span<const TensorType> in, const Attrs& a) {
                     return std::vector<TensorType>{{in[0].dtype, a.get<Ints>("sizes")}};
                   })
                   .jvp(detail::linear_jvp({0}))
                   .vjp([](const Rule& r) {
                     return std::vector<Tensor>{put_back(r.cotangent(), r.in(0), r.attrs())};
                   })
                   .cpp([](detail::CppOp& op) {
                     return detail::cpp_call(
                         "tl::dynamic_slice", op,
                         {detail::cpp_attr(op.attrs(), "starts"), detail::cpp_attr(op.attrs(), "sizes")});
                   });
  // The window of g of like's shape: the update's share of the cotangent.
  window_like_op =
      &detail::shaped_like_second(detail::def_steps("dynamic_slice_like", 2, window_like))
           .vjp([](const Rule& r) {
             std::vector<Tensor> g(2);
             if (r.wants(0)) g[0] = put_back(r.cotangent(), r.in(0), r.attrs());
             return g;
           })
           .cpp([](detail::CppOp& op) {
             return fmt::format("tl::dynamic_slice({}, {}, {}.shape())", op.operand(0),
                                detail::cpp_attr(op.attrs(), "starts"), op.operand(1));
           });
  update_op =
      &detail::def_steps("dynamic_update_slice_call", 2, updated)
           .linear({0, 1})
           .called_as({.names = {"dynamic_update_slice"}, .attributes = {"starts"}, .converted = {{1, 0}}})
           .type_origin(OpDef::TypeOrigin{0, 0})
           .shape_rule(
               [](std::span<const TensorType> in, const Attrs&) { return std::vector<TensorType>{in[0]}; })
           .jvp(detail::linear_jvp({0, 1}))
           .vjp([](const Rule& r) {
             std::vector<Tensor> g(2);
             if (r.wants(0))
               g[0] = detail::call1(*update_op, {r.cotangent(), zeros_like(r.in(1))}, r.attrs());
             if (r.wants(1)) g[1] = detail::call1(*window_like_op, {r.cotangent(), r.in(1)}, r.attrs());
             return g;
           })
           .cpp([](detail::CppOp& op) {
             return detail::cpp_call("tl::dynamic_update_slice", op,
                                     {detail::cpp_attr(op.attrs(), "starts")});
           });
  return true;
}();

}  // namespace

Tensor detail::record_dynamic_slice(const Tensor& x, const Ints& starts, const Shape& sizes) {
  return call1(*window_op, {x}, {{"starts", starts}, {"sizes", sizes}});
}
Tensor detail::record_dynamic_update_slice(const Tensor& x, const Tensor& update, const Ints& starts) {
  return call1(*update_op, {x, astype_like(update, x)}, {{"starts", starts}});
}

}  // namespace tlaloc
