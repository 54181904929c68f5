// Derivatives of StableHLO reduce with one input and a one-op body, written like
// reduce_sum's and reduce_max's (reduce.cpp):
//   add:      y = init + sum of x over `dimensions`: linear; x's cotangent is the
//             result's spread back over the reduced axes, init's is its total.
//   maximum:  y = maximum(m, init), m the maximum over the dimensions. m's
//   minimum   derivative is shared equally among the elements equal to it (as
//             reduce_max), and a tie of m with init is split evenly between them
//             (as maximum): JAX's conventions.
// Several inputs (variadic reduce, argmax's value-index pairs) and other bodies are
// refused by name.
#include <algorithm>

#include <fmt/format.h>

#include "ops/region_rules.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::detail {
namespace {

using Ints = std::vector<std::int64_t>;

std::string_view checked_body(const Rule& r, const char* mode) {
  if (r.num_in() != 2)
    refuse_rule("reduce", fmt::format("{} mode needs one input and its init value, got a reduce of {} inputs", mode,
                                      r.num_in() / 2));
  const std::string_view body = r.body(0);
  if (body != "add" && body != "maximum" && body != "minimum")
    refuse_rule("reduce", fmt::format("{} mode needs an add, maximum or minimum body, got {}", mode,
                                      body.empty() ? std::string("a body that is not one binary op")
                                                   : fmt::format("'{}'", body)));
  return body;
}

Ints reduced_axes(const Rule& r) {
  Ints d = r.attr<Ints>("dimensions");
  std::sort(d.begin(), d.end());
  return d;
}

// A result-shaped tensor with the reduced axes back as size 1, spread over x.
Tensor spread(const Tensor& g, const Rule& r) {
  Shape kept = r.in(0).shape();
  for (const std::int64_t d : reduced_axes(r)) kept[std::size_t(d)] = 1;
  return broadcast_to(reshape(g, kept), r.in(0).shape());
}

// For maximum / minimum: the part of each result's derivative that goes to m
// (1, 1/2 on a tie with init, 0), and how m's part is shared among x's elements.
struct Extreme {
  Tensor to_m, share;
};
Extreme extreme(const Rule& r, bool is_max) {
  const Tensor& x = r.in(0);
  const Ints axes = reduced_axes(r);
  const Tensor m = is_max ? max(x, Axes(axes)) : min(x, Axes(axes));
  const Tensor& init = r.in(1);
  const Tensor wins = is_max ? gt(m, init) : lt(m, init);
  const Tensor to_m = wins.astype(x.dtype()) + 0.5 * eq(m, init).astype(x.dtype());
  const Tensor hit = eq(x, spread(m, r)).astype(x.dtype());
  return {to_m, hit / sum(hit, Axes(axes), true)};
}

}  // namespace

std::vector<Tensor> reduce_jvp(const Rule& r) {
  const std::string_view body = checked_body(r, "forward");
  const Tensor& y = r.out(0);
  if (r.in(0).numel() == 0)  // y is init
    return {r.has_tangent(1) ? broadcast_to_shape_of(r.tangent(1), y) : Tensor()};
  if (body == "add") {
    Tensor t = r.has_tangent(0) ? sum(r.tangent(0), Axes(reduced_axes(r))) : Tensor();
    return {add_tangents(t, broadcast_to_shape_of(r.tangent(1), y))};
  }
  const Extreme e = extreme(r, body == "maximum");
  Tensor t;
  if (r.has_tangent(0)) t = sum(r.tangent(0) * e.share, Axes(reduced_axes(r))) * e.to_m;
  if (r.has_tangent(1)) t = add_tangents(t, r.tangent(1) * (1.0 - e.to_m));
  return {t};
}

std::vector<Tensor> reduce_vjp(const Rule& r) {
  const std::string_view body = checked_body(r, "reverse");
  std::vector<Tensor> g(2);
  if (!r.has_cotangent()) return g;
  const Tensor& ct = r.cotangent();
  if (r.in(0).numel() == 0) {
    if (r.wants(1)) g[1] = sum(ct);
    return g;
  }
  if (body == "add") {
    if (r.wants(0)) g[0] = spread(ct, r);
    if (r.wants(1)) g[1] = sum(ct);
    return g;
  }
  const Extreme e = extreme(r, body == "maximum");
  if (r.wants(0)) g[0] = spread(ct * e.to_m, r) * e.share;
  if (r.wants(1)) g[1] = sum(ct * (1.0 - e.to_m));
  return g;
}

}  // namespace tlaloc::detail
