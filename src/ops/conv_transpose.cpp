// conv_transpose2d of values whose types are known at run time only (traced at build
// time, docs/ENGINE_AT_BUILD_TIME.md): one op, whose kernel and lowering are
// tl::conv_transpose2d's own steps on the types then known (where types are known,
// tl::conv_transpose2d records those steps: conv.cpp). Its rules: the product rule,
// and the op conv_transpose2d_backward for each operand's share.
#include <array>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "core/check.hpp"
#include "ir/op.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/like.hpp"
#include "ops/product_share.hpp"
#include "ops/rule.hpp"
#include "ops/untyped_calls.hpp"
#include "tlaloc/derivatives.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc {
namespace {

using detail::Attrs;
using detail::TensorType;
using Options = ConvTranspose2dOptions;

// The options field by field, as the op records them.
Attrs options_attrs(const Options& o) {
  using detail::pair_attr;
  return {{"stride", pair_attr(o.stride)},
          {"padding", pair_attr(o.padding)},
          {"output_padding", pair_attr(o.output_padding)},
          {"dilation", pair_attr(o.dilation)},
          {"groups", o.groups}};
}
Options options_of(const Attrs& a) {
  const auto pair = [&](std::string_view name) { return detail::attr_pair("conv_transpose2d", a, name); };
  return {pair("stride"), pair("padding"), pair("output_padding"), pair("dilation"),
          a.get<std::int64_t>("groups")};
}
// The options as an argument: as written (tlaloc-grad records them so), or field by field.
std::string cpp_options(const Attrs& a) {
  if (const std::string* written = detail::cpp_written(a, "options")) return *written;
  const Options o = options_of(a);
  const auto pair = detail::cpp_pair;
  return fmt::format(
      "tl::ConvTranspose2dOptions{{.stride = {}, .padding = {}, .output_padding = {}, .dilation = {}, "
      ".groups = {}}}",
      pair(o.stride), pair(o.padding), pair(o.output_padding), pair(o.dilation), o.groups);
}

// x [N, C, H, W] and w [C, O/groups, kH, kW] give [N, O, H', W']; the kernel checks
// the rest, as tl::conv_transpose2d does.
std::vector<TensorType> result_type(std::span<const TensorType> in, const Attrs& attrs) {
  const Shape &x = in[0].shape, &w = in[1].shape;
  if (x.size() != 4 || w.size() != 4)
    detail::fail<ShapeError>("conv_transpose2d",
                             "needs x [N, C, H, W] and w [C, O/groups, kH, kW], got x {} and w {}",
                             shape_string(x), shape_string(w));
  const Options o = options_of(attrs);
  Shape out{x[0], w[1] * o.groups, 0, 0};
  for (std::size_t d = 0; d < 2; ++d)
    out[d + 2] = (x[d + 2] - 1) * o.stride[d] - 2 * o.padding[d] + o.dilation[d] * (w[d + 2] - 1) +
                 o.output_padding[d] + 1;
  return {{promote_types(in[0].dtype, in[1].dtype), out}};
}

Tensor share(const Tensor& g, const Tensor& x, const Tensor& w, const Attrs& attrs, int operand) {
  return derivatives::conv_transpose2d_backward(g, x, w, options_of(attrs), operand);
}
extern const detail::OpDef& conv_transpose2d_backward_op;

Tensor run(std::span<const Tensor> in, const Attrs& attrs) {
  return conv_transpose2d(in[0], in[1], options_of(attrs));
}

const detail::OpDef& conv_transpose2d_op =
    detail::def_steps("conv_transpose2d", 2, run)
        .multilinear()
        .called_as({.names = {"conv_transpose2d"},
                    .attributes = {"options"},
                    .defaults = {{"options", detail::Written{"{}"}}}})
        .shape_rule(result_type)
        .jvp([](const detail::Rule& r) {
          Tensor t;
          if (r.has_tangent(0)) t = detail::call1(*r.op(), {r.tangent(0), r.in(1)}, r.attrs());
          if (r.has_tangent(1))
            t = detail::add_tangents(t, detail::call1(*r.op(), {r.in(0), r.tangent(1)}, r.attrs()));
          return std::vector<Tensor>{t};
        })
        .vjp([](const detail::Rule& r) {
          std::vector<Tensor> g(2);
          for (int k = 0; k < 2; ++k)
            if (r.wants(std::size_t(k)))
              g[std::size_t(k)] = detail::share_or_op(conv_transpose2d_backward_op, share, r.cotangent(),
                                                      r.in(0), r.in(1), r.attrs(), k);
          return g;
        })
        .cpp([](detail::CppOp& op) {
          return detail::cpp_call("tl::conv_transpose2d", op, {cpp_options(op.attrs())});
        });

Tensor product(const Tensor& x, const Tensor& w, const Attrs& attrs) {
  return detail::call1(conv_transpose2d_op, {x, w}, attrs);
}
const detail::OpDef& conv_transpose2d_backward_op =
    detail::def_product_share("conv_transpose2d_backward", share, product)
        .called_as({.names = {"conv_transpose2d_backward"}, .attributes = {"options", "operand"}})
        .cpp([](detail::CppOp& op) {
          return detail::cpp_call("tl::derivatives::conv_transpose2d_backward", op,
                                  {cpp_options(op.attrs()), detail::cpp_attr(op.attrs(), "operand")});
        });

}  // namespace

namespace detail {
Tensor record_conv_transpose2d(const Tensor& x, const Tensor& w, const ConvTranspose2dOptions& opt) {
  return call1(conv_transpose2d_op, {x, w}, options_attrs(opt));
}
}  // namespace detail

}  // namespace tlaloc
