// The rules of tl::prod and tl::cumprod on values whose types are known at run time
// only (traced at build time, docs/ENGINE_AT_BUILD_TIME.md): the library functions
// tl::derivatives::prod_backward, prod_jvp, cumprod_backward and cumprod_jvp as one
// op each, the axes as written. Where types are known the functions record the ops
// they are made of, which the engine differentiates again (reduce.cpp).
//
// Each is linear in its first operand, whose rule is the other's op. Differentiated
// in x, prod_backward and cumprod_backward are the library's prod_backward_jvp and
// cumprod_backward_jvp: forward mode run over what they record (transforms layer),
// which these ops stand for too and which tlaloc-grad writes for a Hessian. No rule
// is written for the rest (reverse mode in x, and prod_jvp and cumprod_jvp in x): a
// derivative there is refused, by name. prod_backward and cumprod_backward are called
// in generated gradients, and tlaloc-grad differentiates them there; the JVP
// functions have no build-time rule of their own.
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "ir/op.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/like.hpp"
#include "ops/reduce_axes.hpp"
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

bool keepdims(const Attrs& a) { return a.has("keepdims") && a.get<bool>("keepdims"); }

// The arguments after the tensors as the call writes them: prod's axes and keepdims
// (keepdims only where written or true), or cumprod's axis.
std::vector<std::string> cpp_reduction(const Attrs& a) {
  if (a.has("axis")) return {detail::cpp_attr(a, "axis")};
  const bool keep = detail::cpp_written(a, "keepdims") != nullptr || keepdims(a);
  std::vector<std::string> args;
  if (!detail::every_axis(a) || keep) args.push_back(detail::cpp_axes_of(a));
  if (keep) args.push_back(detail::cpp_attr(a, "keepdims"));
  return args;
}
// tl::derivatives::fn(operands..., reduction...).
detail::CppSpelling cpp_derivative(std::string_view fn) {
  return [name = fmt::format("tl::derivatives::{}", fn)](detail::CppOp& op) {
    return detail::cpp_call(name, op, cpp_reduction(op.attrs()));
  };
}

std::int64_t axis_of(const Attrs& a) { return a.get<std::int64_t>("axis"); }

[[noreturn]] void refuse(const Rule& r, std::string_view what) {
  detail::fail<NotDifferentiableError>(r.op()->name(),
                                       "{} is not written (differentiate prod or cumprod itself)", what);
}

const OpDef* prod_backward_op = nullptr;
const OpDef* prod_jvp_op = nullptr;
const OpDef* prod_backward_jvp_op = nullptr;
const OpDef* cumprod_backward_op = nullptr;
const OpDef* cumprod_jvp_op = nullptr;
const OpDef* cumprod_backward_jvp_op = nullptr;

// share(g, x, ...)'s tangent: share_jvp(g, tg, x, tx, ...), each tangent in place or
// tl::Tensor() where it has none (attribute "tangents" says which it has); none
// where no operand has one.
Tensor along_tangents(const OpDef& jvp, const Rule& r) {
  std::vector<Tensor> in;
  std::vector<std::int64_t> has;
  for (std::size_t i = 0; i < r.num_in(); ++i) in.push_back(r.in(i));
  for (std::size_t i = 0; i < r.num_in(); ++i) {
    has.push_back(r.has_tangent(i) ? 1 : 0);
    if (r.has_tangent(i)) in.push_back(r.tangent(i));
  }
  if (in.size() == r.num_in()) return Tensor();
  Attrs attrs = r.attrs();
  attrs.set("tangents", has);
  return detail::call1(jvp, in, attrs);
}
// Its spelling: each operand followed by its tangent.
std::string cpp_along_tangents(std::string_view fn, detail::CppOp& op) {
  const auto& has = op.attrs().get<std::vector<std::int64_t>>("tangents");
  std::vector<std::string> args;
  std::size_t t = has.size();
  for (std::size_t i = 0; i < has.size(); ++i) {
    args.push_back(op.operand(i));
    args.push_back(has[i] != 0 ? op.operand(t++) : "tl::Tensor()");
  }
  for (std::string& a : cpp_reduction(op.attrs())) args.push_back(std::move(a));
  return fmt::format("tl::derivatives::{}({})", fn, detail::cpp_list(args));
}
// An op standing for a library function that runs the engine (transforms layer):
// recorded at build time only, written as its call. Its result has x's type
// (operand 1, after g).
const OpDef* def_forward_over(std::string name) {
  return &detail::def_op(name)
              .inputs(-1)
              .shape_rule(
                  [](std::span<const TensorType> in, const Attrs&) { return std::vector<TensorType>{in[1]}; })
              .cpp([name](detail::CppOp& op) { return cpp_along_tangents(name, op); });
}

const bool defined = [] {
  // prod_backward(g, x, axes, keepdims): x's shape; its transpose in g is prod_jvp.
  prod_backward_op =
      &detail::shaped_like_second(detail::def_steps("prod_backward", 2,
                                                    [](std::span<const Tensor> in, const Attrs& a) {
                                                      return derivatives::prod_backward(
                                                          in[0], in[1], detail::axes_of(a), keepdims(a));
                                                    }))
           .called_as({.names = {"prod_backward"},
                       .attributes = {"axes", "keepdims"},
                       .defaults = {{"keepdims", false}}})
           .jvp([](const Rule& r) { return std::vector<Tensor>{along_tangents(*prod_backward_jvp_op, r)}; })
           .vjp([](const Rule& r) {
             if (r.wants(1)) refuse(r, "the reverse derivative of prod_backward in x");
             std::vector<Tensor> g(2);
             if (r.wants(0)) g[0] = detail::call1(*prod_jvp_op, {r.cotangent(), r.in(1)}, r.attrs());
             return g;
           })
           .cpp(cpp_derivative("prod_backward"));
  // prod_jvp(t, x, axes, keepdims): the reduction's shape; its transpose in t is
  // prod_backward.
  prod_jvp_op =
      &detail::def_steps("prod_jvp", 2,
                         [](std::span<const Tensor> in, const Attrs& a) {
                           return derivatives::prod_jvp(in[0], in[1], detail::axes_of(a), keepdims(a));
                         })
           .linear({0})
           .shape_rule([](std::span<const TensorType> in, const Attrs& a) {
             return std::vector<TensorType>{
                 {in[0].dtype,
                  detail::reduction_shape("prod_jvp", in[1].shape, detail::axes_of(a), keepdims(a))}};
           })
           .jvp([](const Rule& r) {
             if (r.has_tangent(1)) refuse(r, "the derivative of prod_jvp in x");
             return std::vector<Tensor>{r.has_tangent(0) ? detail::with_first(*prod_jvp_op, r.tangent(0), r)
                                                         : Tensor()};
           })
           .vjp([](const Rule& r) {
             if (r.wants(1)) refuse(r, "the reverse derivative of prod_jvp in x");
             std::vector<Tensor> g(2);
             if (r.wants(0)) g[0] = detail::call1(*prod_backward_op, {r.cotangent(), r.in(1)}, r.attrs());
             return g;
           })
           .cpp(cpp_derivative("prod_jvp"));
  prod_backward_jvp_op = def_forward_over("prod_backward_jvp");

  // cumprod_backward(g, x, y, axis) and cumprod_jvp(t, x, y, axis): x's shape, each
  // the other's transpose in its first operand.
  const auto scan_steps = [](auto fn) {
    return [fn](std::span<const Tensor> in, const Attrs& a) { return fn(in[0], in[1], in[2], axis_of(a)); };
  };
  cumprod_backward_op =
      &detail::shaped_like_second(
           detail::def_steps("cumprod_backward", 3, scan_steps(derivatives::cumprod_backward)))
           .called_as({.names = {"cumprod_backward"}, .attributes = {"axis"}})
           .jvp(
               [](const Rule& r) { return std::vector<Tensor>{along_tangents(*cumprod_backward_jvp_op, r)}; })
           .vjp([](const Rule& r) {
             if (r.wants(1) || r.wants(2)) refuse(r, "the reverse derivative of cumprod_backward in x");
             std::vector<Tensor> g(3);
             if (r.wants(0)) g[0] = detail::with_first(*cumprod_jvp_op, r.cotangent(), r);
             return g;
           })
           .cpp(cpp_derivative("cumprod_backward"));
  cumprod_jvp_op =
      &detail::shaped_like_second(detail::def_steps("cumprod_jvp", 3, scan_steps(derivatives::cumprod_jvp)))
           .jvp([](const Rule& r) {
             if (r.has_tangent(1) || r.has_tangent(2)) refuse(r, "the derivative of cumprod_jvp in x");
             return std::vector<Tensor>{
                 r.has_tangent(0) ? detail::with_first(*cumprod_jvp_op, r.tangent(0), r) : Tensor()};
           })
           .vjp([](const Rule& r) {
             if (r.wants(1) || r.wants(2)) refuse(r, "the reverse derivative of cumprod_jvp in x");
             std::vector<Tensor> g(3);
             if (r.wants(0)) g[0] = detail::with_first(*cumprod_backward_op, r.cotangent(), r);
             return g;
           })
           .cpp(cpp_derivative("cumprod_jvp"));
  cumprod_backward_jvp_op = def_forward_over("cumprod_backward_jvp");
  return true;
}();

}  // namespace

Tensor detail::prod_backward_like(const Tensor& g, const Tensor& x, const Attrs& reduction) {
  if (unresolved(g, reduction) || is_untyped(x)) return call1(*prod_backward_op, {g, x}, reduction);
  return derivatives::prod_backward(g, x, axes_of(reduction), keepdims(reduction));
}
Tensor detail::prod_jvp_like(const Tensor& t, const Tensor& x, const Attrs& reduction) {
  if (unresolved(t, reduction) || is_untyped(x)) return call1(*prod_jvp_op, {t, x}, reduction);
  return derivatives::prod_jvp(t, x, axes_of(reduction), keepdims(reduction));
}
Tensor detail::cumprod_backward_like(const Tensor& g, const Tensor& x, const Tensor& y, const Attrs& scan) {
  if (unresolved(g, scan) || is_untyped(x) || is_untyped(y))
    return call1(*cumprod_backward_op, {g, x, y}, scan);
  return derivatives::cumprod_backward(g, x, y, axis_of(scan));
}
Tensor detail::cumprod_jvp_like(const Tensor& t, const Tensor& x, const Tensor& y, const Attrs& scan) {
  if (unresolved(t, scan) || is_untyped(x) || is_untyped(y)) return call1(*cumprod_jvp_op, {t, x, y}, scan);
  return derivatives::cumprod_jvp(t, x, y, axis_of(scan));
}

}  // namespace tlaloc
