// tl::pad and its transpose tl::derivatives::pad_backward on values whose types are
// known at run time only (traced at build time, docs/ENGINE_AT_BUILD_TIME.md): one
// op each, the widths, the mode and the value as written where tlaloc-grad reads
// them. Where types are known tl::pad records a StableHLO pad (constant mode) or, in
// edge mode, slices, broadcasts and a concatenation (shape_slice.cpp).
//
// An edge pad's transpose gives x one share per border, which the engine adds to
// x's cotangent one at a time; pad_backward, given the cotangent x has so far as a
// third operand, adds them in that order, and tlaloc-grad writes it so
// (OpDef::adds_parts_to_so_far).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "ir/op.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/rule.hpp"
#include "ops/scalar_attr.hpp"
#include "ops/untyped_calls.hpp"
#include "tlaloc/derivatives.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc {
namespace {

using detail::Attrs;
using detail::OpDef;
using detail::Rule;
using detail::TensorType;
using Widths = std::vector<std::pair<std::int64_t, std::int64_t>>;

// Attributes known: the widths as pairs flattened, the mode as its name ("edge"), the
// value as a scalar; mode and value may be left out (constant, 0).
Widths widths_of(const Attrs& a) {
  const auto& flat = a.get<std::vector<std::int64_t>>("widths");
  if (flat.size() % 2 != 0) detail::fail<ValueError>("pad", "widths {} are not pairs", flat);
  Widths w;
  for (std::size_t i = 0; i < flat.size(); i += 2) w.emplace_back(flat[i], flat[i + 1]);
  return w;
}
PadMode mode_of(const Attrs& a) {
  if (!a.has("mode")) return PadMode::constant;
  const std::string& m = a.get<std::string>("mode");
  if (m != "constant" && m != "edge") detail::fail<ValueError>("pad", "no pad mode '{}'", m);
  return m == "edge" ? PadMode::edge : PadMode::constant;
}
Scalar value_of(const Attrs& a) {
  return a.has("value") ? detail::scalar_attr("pad", a, "value") : Scalar(0);
}

// The attributes in C++, as the public functions take them.
std::string cpp_widths(const Attrs& a) {
  if (const std::string* written = detail::cpp_written(a, "widths")) return *written;
  std::vector<std::string> pairs;
  for (const auto& [lo, hi] : widths_of(a)) pairs.push_back(fmt::format("{{{}, {}}}", lo, hi));
  return fmt::format("{{{}}}", detail::cpp_list(pairs));
}
std::vector<std::string> cpp_pad_arguments(const Attrs& a) {
  std::vector<std::string> args{cpp_widths(a)};
  if (a.has("mode")) {
    const std::string* written = detail::cpp_written(a, "mode");
    args.push_back(written != nullptr ? *written
                                      : fmt::format("tl::PadMode::{}", a.get<std::string>("mode")));
  }
  if (a.has("value")) args.push_back(detail::cpp_attr(a, "value"));
  return args;
}

// Whether the mode is constant: left out, or spelled tl::PadMode::constant.
bool constant_mode(const Attrs& a) {
  if (!a.has("mode")) return true;
  if (const std::string* written = detail::cpp_written(a, "mode"))
    return written->ends_with("PadMode::constant") &&
           written->find_first_not_of("abcdefghijklmnopqrstuvwxyzPM_:") == std::string::npos;
  return a.get<std::string>("mode") == "constant";
}
// Whether the widths are all known and not all zero: the pad changes its operand.
bool widths_change(const Attrs& a) {
  if (const std::string* written = detail::cpp_written(a, "widths"))
    return written->find_first_not_of("{}, 0123456789") == std::string::npos &&
           written->find_first_of("123456789") != std::string::npos;
  for (const auto& [lo, hi] : widths_of(a))
    if (lo != 0 || hi != 0) return true;
  return false;
}

// The widths and the mode alone: what a tangent's pad, and the transpose, take.
Attrs without_value(const Attrs& a) {
  Attrs out;
  for (const auto& [key, v] : a.items())
    if (key != "value") out.set(key, v);
  return out;
}

const OpDef* pad_call_op = nullptr;
const OpDef* pad_backward_op = nullptr;

const bool defined = [] {
  // x padded; the value is a constant, so the tangent is the tangent padded with zeros.
  pad_call_op =
      &detail::def_steps("pad_call", 1,
                         [](std::span<const Tensor> in, const Attrs& a) {
                           return pad(in[0], widths_of(a), mode_of(a), value_of(a));
                         })
           .called_as({.names = {"pad"},
                       .attributes = {"widths", "mode", "value"},
                       .passes_on = true,
                       .changes = widths_change})
           .type_origin(OpDef::TypeOrigin{OpDef::TypeOrigin::kOwn, 0})
           .shape_rule([](std::span<const TensorType> in, const Attrs& a) {
             return std::vector<TensorType>{
                 {in[0].dtype, detail::padded_shape("pad", in[0].shape, widths_of(a))}};
           })
           .jvp([](const Rule& r) {
             return std::vector<Tensor>{
                 r.has_tangent(0) ? detail::call1(*pad_call_op, {r.tangent(0)}, without_value(r.attrs()))
                                  : Tensor()};
           })
           .vjp([](const Rule& r) {
             return std::vector<Tensor>{r.wants(0) ? detail::call1(*pad_backward_op, {r.cotangent(), r.in(0)},
                                                                   without_value(r.attrs()))
                                                   : Tensor()};
           })
           .cpp([](detail::CppOp& op) {
             return detail::cpp_call("tl::pad", op, cpp_pad_arguments(op.attrs()));
           });
  // pad_backward(g, x, [so_far]): g without the border (constant mode), or with each
  // border summed into the element it repeats (edge mode), x's shape, added to so_far
  // where given (in edge mode one border at a time). Linear in g and so_far; the
  // transpose in g pads with zeros or those copies, so_far's share is the cotangent.
  pad_backward_op =
      &detail::def_steps("pad_backward", -1,
                         [](std::span<const Tensor> in, const Attrs& a) {
                           return derivatives::pad_backward(in[0], in[1].shape(), widths_of(a), mode_of(a),
                                                            in.size() > 2 ? in[2] : Tensor());
                         })
           .linear({0, 2})
           .type_origin(OpDef::TypeOrigin{1, 0})
           .shape_rule([](std::span<const TensorType> in, const Attrs&) {
             return std::vector<TensorType>{{in[0].dtype, in[1].shape}};
           })
           .called_as({.names = {"pad_backward"}, .attributes = {"widths", "mode"}, .by_shape = {1}})
           .adds_parts_to_so_far(
               [](std::size_t operands, const Attrs& a) { return operands == 2 && !constant_mode(a); })
           // The call on the tangents of g and so_far; where so_far has none, without it
           // (not zeros, which would turn a -0 into +0), and where g has none, so_far's.
           .jvp([](const Rule& r) {
             const bool so_far = r.num_in() > 2 && r.has_tangent(2);
             if (!r.has_tangent(0)) return std::vector<Tensor>{so_far ? r.tangent(2) : Tensor()};
             std::vector<Tensor> in{r.tangent(0), r.in(1)};
             if (so_far) in.push_back(r.tangent(2));
             return std::vector<Tensor>{detail::call1(*pad_backward_op, in, r.attrs())};
           })
           .vjp([](const Rule& r) {
             std::vector<Tensor> g(r.num_in());
             if (r.wants(0)) g[0] = detail::call1(*pad_call_op, {r.cotangent()}, r.attrs());
             if (r.num_in() > 2 && r.wants(2)) g[2] = r.cotangent();
             return g;
           })
           .cpp([](detail::CppOp& op) {
             std::vector<std::string> args{op.operand(0), op.operand(1) + ".shape()"};
             for (std::string& a : cpp_pad_arguments(op.attrs())) args.push_back(std::move(a));
             if (op.num_operands() > 2) {
               if (args.size() < 4) args.push_back("tl::PadMode::constant");
               args.push_back(op.operand(2));
             }
             return fmt::format("tl::derivatives::pad_backward({})", detail::cpp_list(args));
           });
  return true;
}();

}  // namespace

Attrs detail::pad_attrs(const Widths& widths, PadMode mode, Scalar value) {
  std::vector<std::int64_t> flat;
  for (const auto& [lo, hi] : widths) {
    flat.push_back(lo);
    flat.push_back(hi);
  }
  detail::AttrValue v = value.to_int() != 0;
  if (value.kind() == Scalar::Kind::floating) v = value.to_double();
  if (value.kind() == Scalar::Kind::integer) v = value.to_int();
  return {{"widths", flat}, {"mode", std::string(mode == PadMode::edge ? "edge" : "constant")}, {"value", v}};
}

Tensor detail::record_pad(const Tensor& x, const Widths& widths, PadMode mode, Scalar value) {
  return call1(*pad_call_op, {x}, pad_attrs(widths, mode, value));
}

}  // namespace tlaloc
