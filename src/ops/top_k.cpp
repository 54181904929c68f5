// top_k: the k largest (or smallest) values along the last axis and their indices,
// as chlo.top_k: a stable sort in the spec's total order (-NaN < -inf < -0 < +0 <
// inf < NaN) of which the first k are kept. Its derivative moves each value's
// tangent with it: take_along_axis forward, its transpose back.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <numeric>

#include "core/elementwise.hpp"
#include "ops/cpp_spelling.hpp"
#include "ops/like.hpp"
#include "ops/rule.hpp"
#include "ops/untyped_calls.hpp"
#include "tlaloc/derivatives.hpp"
#include "tlaloc/ops.hpp"
#include "tlaloc/special.hpp"

namespace tlaloc {
namespace {

using detail::Attrs;
using detail::Rule;
using detail::TensorType;
using Kind = detail::StableHloAttr::Kind;

bool largest_of(const Attrs& a) { return !a.has("largest") || a.get<bool>("largest"); }

// A key whose integer order is the spec's total order of the value.
template <class T>
auto order_key(T v) {
  if constexpr (std::is_integral_v<T>) {
    return v;
  } else {
    const auto bits = std::bit_cast<std::int64_t>(double(static_cast<detail::compute_t<T>>(v)));
    return bits < 0 ? bits ^ INT64_MAX : bits;
  }
}

std::vector<TensorType> top_k_rule(std::span<const TensorType> in, const Attrs& a) {
  const TensorType& x = in[0];
  const std::int64_t k = a.get<std::int64_t>("k");
  if (x.shape.empty())
    detail::fail<ShapeError>("top_k", "needs an operand of rank 1 or more, not {}", x.shape);
  if (is_complex(x.dtype)) detail::fail<DTypeError>("top_k", "does not order complex values ({})", x.dtype);
  if (k < 0 || k > x.shape.back())
    detail::fail<ShapeError>("top_k", "k = {} is outside [0, {}] for an operand of shape {}", k,
                             x.shape.back(), x.shape);
  Shape shape = x.shape;
  shape.back() = k;
  return {{x.dtype, shape}, {DType::i32, shape}};
}

std::vector<Tensor> top_k_kernel(std::span<const Tensor> in, const Attrs& a,
                                 std::span<const TensorType> out) {
  const Tensor& x = in[0];
  const std::int64_t n = x.shape().back(), k = a.get<std::int64_t>("k");
  std::int64_t rows = 1;
  for (std::size_t d = 0; d + 1 < x.shape().size(); ++d) rows *= x.shape()[d];
  const bool largest = largest_of(a);
  Tensor values = detail::empty(out[0].shape, out[0].dtype),
         indices = detail::empty(out[1].shape, DType::i32);
  std::int32_t* pi = detail::mutable_data<std::int32_t>(indices);
  TLALOC_SWITCH_ALL(x.dtype(), "top_k", {
    const T* px = x.data<T>();
    T* pv = detail::mutable_data<T>(values);
    detail::parallel_for(rows, 1, [&](std::int64_t b, std::int64_t e) {
      std::vector<std::int32_t> order(static_cast<std::size_t>(n));
      for (std::int64_t r = b; r < e; ++r) {
        const T* row = px + r * n;
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](std::int32_t i, std::int32_t j) {
          return largest ? order_key(row[j]) < order_key(row[i]) : order_key(row[i]) < order_key(row[j]);
        });
        for (std::int64_t c = 0; c < k; ++c) {
          pi[r * k + c] = order[std::size_t(c)];
          pv[r * k + c] = row[order[std::size_t(c)]];
        }
      }
    });
  })
  return {values, indices};
}

const detail::OpDef& top_k_op =
    detail::def_op("top_k")
        .inputs(1)
        .result_count([](std::size_t, const Attrs&) -> std::size_t { return 2; })
        .called_as({.names = {"top_k"}, .attributes = {"k", "largest"}, .defaults = {{"largest", true}}})
        .cpp(detail::cpp_fn_with("tl::top_k", {"k", "largest"}))
        .chlo({"chlo.top_k",
               {detail::StableHloAttr("k", Kind::i64),
                detail::StableHloAttr("largest", Kind::boolean).optional()},
               "top_k"})
        .shape_rule(top_k_rule)
        .kernel(top_k_kernel)
        .jvp([](const Rule& r) {
          std::vector<Tensor> t(2);
          if (r.has_tangent(0)) t[0] = take_along_axis(r.tangent(0), r.out(1), -1);
          return t;
        })
        .vjp([](const Rule& r) {
          std::vector<Tensor> g(1);
          if (!r.wants(0) || !r.has_cotangent(0)) return g;
          // x's shape is read at run time where it is unknown now (a build-time trace).
          g[0] = detail::is_untyped(r.in(0))
                     ? detail::record_take_along_axis_backward(r.cotangent(0), r.in(0), r.out(1), -1)
                     : derivatives::take_along_axis_backward(r.cotangent(0), r.in(0).shape(), r.out(1), -1);
          return g;
        });

}  // namespace

std::vector<Tensor> top_k(const Tensor& x, std::int64_t k, bool largest) {
  return detail::call(top_k_op, {x}, {{"k", k}, {"largest", largest}});
}

}  // namespace tlaloc
