// max_pool2d and avg_pool2d of values whose types are known at run time only (traced
// at build time, docs/ENGINE_AT_BUILD_TIME.md): one op each, whose kernel and lowering
// are the public function's own steps on the types then known (where types are known,
// the functions record the pool op: pool.cpp). Their rules are the library's
// derivative functions (tlaloc/derivatives.hpp), each an op too, with rules of its
// own: each is linear in its first operand, and the transpose of another.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/check.hpp"
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

Attrs options_attrs(const Pool2dOptions& o) {
  using detail::pair_attr;
  return {
      {"kernel", pair_attr(o.kernel)}, {"stride", pair_attr(o.stride)}, {"padding", pair_attr(o.padding)}};
}
Pool2dOptions options_of(const Attrs& a) {
  const auto pair = [&](std::string_view name) { return detail::attr_pair("pool2d", a, name); };
  return {pair("kernel"), pair("stride"), pair("padding")};
}
// The options as an argument: as written (tlaloc-grad records them so), or field by field.
std::string cpp_options(const Attrs& a) {
  if (const std::string* written = detail::cpp_written(a, "options")) return *written;
  const Pool2dOptions o = options_of(a);
  const auto pair = detail::cpp_pair;
  return fmt::format("tl::Pool2dOptions{{.kernel = {}, .stride = {}, .padding = {}}}", pair(o.kernel),
                     pair(o.stride), pair(o.padding));
}
OpDef::PublicCall called(std::string fn) { return {.names = {std::move(fn)}, .attributes = {"options"}}; }

// x's pooled shape [N, C, H', W']; the kernels check the rest, as the functions do.
Shape pooled(const Shape& x, const Attrs& attrs) {
  if (x.size() != 4) detail::fail<ShapeError>("pool2d", "needs x [N, C, H, W], got {}", shape_string(x));
  const Pool2dOptions o = options_of(attrs);
  Shape out{x[0], x[1], 0, 0};
  for (std::size_t d = 0; d < 2; ++d) {
    const std::int64_t s = o.stride[d] == 0 ? o.kernel[d] : o.stride[d];
    out[d + 2] = s < 1 ? 0 : (x[d + 2] + 2 * o.padding[d] - o.kernel[d]) / s + 1;
  }
  return out;
}

// An op of the operands `in` whose value and spelling are `fn`'s.
using Fn = Tensor (*)(std::span<const Tensor> in, const Pool2dOptions& opt);
OpDef& def_call(std::string_view name, int inputs, Fn fn, std::string spelled) {
  return detail::def_steps(
             name, inputs,
             [fn](std::span<const Tensor> in, const Attrs& attrs) { return fn(in, options_of(attrs)); })
      .cpp([spelled = std::move(spelled)](detail::CppOp& op) {
        return detail::cpp_call(spelled, op, {cpp_options(op.attrs())});
      });
}

const OpDef *max_pool2d_op = nullptr, *max_backward_op = nullptr, *max_jvp_op = nullptr;
const OpDef *avg_pool2d_op = nullptr, *avg_backward_op = nullptr, *avg_jvp_op = nullptr;

// An op linear in its first operand, whose other operands only route it: its tangent
// is the op of the first operand's tangent, its transpose the op `*transpose`.
OpDef& routing(OpDef& def, const OpDef* const* transpose) {
  return def.linear({0})
      .jvp([](const Rule& r) {
        return std::vector<Tensor>{r.has_tangent(0) ? detail::with_first(*r.op(), r.tangent(0), r)
                                                    : Tensor()};
      })
      .vjp([transpose](const Rule& r) {
        std::vector<Tensor> g(r.num_in());
        if (r.wants(0)) g[0] = detail::with_first(**transpose, r.cotangent(), r);
        return g;
      });
}

// max pooling routes each window's derivative to its maximum (none flows to x or y):
// max_pool2d_backward(g, x, y) and max_pool2d_jvp(t, x, y), each the other's transpose.
// A generated gradient calls the first, which tlaloc-grad differentiates again for
// tl::hessian; the tangents' functions are its output only, never read back.
const bool max_ops = [] {
  max_pool2d_op =
      &def_call(
           "max_pool2d", 1,
           [](std::span<const Tensor> in, const Pool2dOptions& o) { return max_pool2d(in[0], o); },
           "tl::max_pool2d")
           .called_as(called("max_pool2d"))
           .type_origin(OpDef::TypeOrigin{OpDef::TypeOrigin::kOwn, 0})
           .shape_rule([](std::span<const TensorType> in, const Attrs& attrs) {
             return std::vector<TensorType>{{in[0].dtype, pooled(in[0].shape, attrs)}};
           })
           .jvp([](const Rule& r) {
             if (!r.has_tangent(0)) return std::vector<Tensor>(1);
             return std::vector<Tensor>{
                 detail::call1(*max_jvp_op, {r.tangent(0), r.in(0), r.out(0)}, r.attrs())};
           })
           .vjp([](const Rule& r) {
             return std::vector<Tensor>{
                 detail::call1(*max_backward_op, {r.cotangent(), r.in(0), r.out(0)}, r.attrs())};
           });
  max_backward_op = &routing(def_call(
                                 "max_pool2d_backward", 3,
                                 [](std::span<const Tensor> in, const Pool2dOptions& o) {
                                   return derivatives::max_pool2d_backward(in[0], in[1], in[2], o);
                                 },
                                 "tl::derivatives::max_pool2d_backward")
                                 .called_as(called("max_pool2d_backward"))
                                 .type_origin(OpDef::TypeOrigin{1, 0})
                                 .shape_rule([](std::span<const TensorType> in, const Attrs&) {
                                   return std::vector<TensorType>{{in[0].dtype, in[1].shape}};
                                 }),
                             &max_jvp_op);
  max_jvp_op = &routing(def_call(
                            "max_pool2d_jvp", 3,
                            [](std::span<const Tensor> in, const Pool2dOptions& o) {
                              return derivatives::max_pool2d_jvp(in[0], in[1], in[2], o);
                            },
                            "tl::derivatives::max_pool2d_jvp")
                            .type_origin(OpDef::TypeOrigin{2, 0})
                            .shape_rule([](std::span<const TensorType> in, const Attrs&) {
                              return std::vector<TensorType>{{in[0].dtype, in[2].shape}};
                            }),
                        &max_backward_op);
  return true;
}();

// avg_pool2d is linear: its tangent avg_pool2d_jvp(t), its transpose
// avg_pool2d_backward(g, x), which reads x for its shape (a generated gradient calls
// it, and tlaloc-grad differentiates it again for tl::hessian); the two are each
// other's transposes.
Tensor avg_backward(std::span<const Tensor> in, const Pool2dOptions& o) {
  return derivatives::avg_pool2d_backward(in[0], in[1].shape(), o);
}
std::vector<TensorType> pooled_type(std::span<const TensorType> in, const Attrs& attrs) {
  return std::vector<TensorType>{{in[0].dtype, pooled(in[0].shape, attrs)}};
}
const bool avg_ops = [] {
  const auto tangent = [](const Rule& r) {
    return std::vector<Tensor>{r.has_tangent(0) ? detail::with_first(*avg_jvp_op, r.tangent(0), r)
                                                : Tensor()};
  };
  avg_pool2d_op =
      &def_call(
           "avg_pool2d", 1,
           [](std::span<const Tensor> in, const Pool2dOptions& o) { return avg_pool2d(in[0], o); },
           "tl::avg_pool2d")
           .called_as(called("avg_pool2d"))
           .linear()
           .shape_rule([](std::span<const TensorType> in, const Attrs& attrs) {
             const DType t = is_floating(in[0].dtype) ? in[0].dtype : DType::f32;
             return std::vector<TensorType>{{t, pooled(in[0].shape, attrs)}};
           })
           .jvp(tangent)
           .vjp([](const Rule& r) {
             return std::vector<Tensor>{detail::call1(*avg_backward_op, {r.cotangent(), r.in(0)}, r.attrs())};
           });
  avg_jvp_op =
      &def_call(
           "avg_pool2d_jvp", 1,
           [](std::span<const Tensor> in, const Pool2dOptions& o) {
             return derivatives::avg_pool2d_jvp(in[0], o);
           },
           "tl::derivatives::avg_pool2d_jvp")
           .linear()
           .type_origin(OpDef::TypeOrigin{OpDef::TypeOrigin::kOwn, 0})
           .shape_rule(pooled_type)
           .jvp(tangent)
           .vjp([](const Rule& r) {
             return std::vector<Tensor>{detail::call1(*avg_backward_op, {r.cotangent(), r.in(0)}, r.attrs())};
           });
  avg_backward_op =
      &detail::shaped_like_second(detail::def_steps("avg_pool2d_backward", 2,
                                                    [](std::span<const Tensor> in, const Attrs& attrs) {
                                                      return avg_backward(in, options_of(attrs));
                                                    }))
           .called_as({.names = {"avg_pool2d_backward"}, .attributes = {"options"}, .by_shape = {1}})
           .cpp([](detail::CppOp& op) {
             return fmt::format("tl::derivatives::avg_pool2d_backward({}, {}.shape(), {})", op.operand(0),
                                op.operand(1), cpp_options(op.attrs()));
           })
           .vjp([](const Rule& r) {
             std::vector<Tensor> g(2);
             if (r.wants(0)) g[0] = detail::call1(*avg_jvp_op, {r.cotangent()}, r.attrs());
             return g;
           });
  return true;
}();

}  // namespace

namespace detail {
Tensor record_max_pool2d(const Tensor& x, const Pool2dOptions& opt) {
  return call1(*max_pool2d_op, {x}, options_attrs(opt));
}
Tensor record_avg_pool2d(const Tensor& x, const Pool2dOptions& opt) {
  return call1(*avg_pool2d_op, {x}, options_attrs(opt));
}
}  // namespace detail

}  // namespace tlaloc
