// Derivatives of StableHLO reduce_window with one input and a one-op body. In the
// op, each result starts from init and combines every cell of its window, cells
// in the padding or in base-dilation holes holding init.
//   add: linear in x and init together.
//     JVP: the same reduce_window of the tangents.
//     VJP: x's cotangent is a reduce_window (add) of the cotangent dilated by the
//       strides and padded so that each element of x sees exactly the windows that
//       read it: the same window and window dilation, the base dilation as stride
//       (JAX's transpose: pad + reduce_window). init's: each result counts init
//       1 + (its padding and hole cells) times, so its cotangent is
//       (1 + cells per window) * sum(ct) - sum(x's cotangent).
//   maximum / minimum: each result's derivative goes to the first extreme real
//     cell of its window in row-major order (one cell, not shared: what XLA's
//     select_and_scatter with GE gives JAX's max-pool gradient), and to init when
//     no real cell equals the result (init beats the window, or the window is all
//     padding); a real cell tied with init takes it.
//     Written per window cell ("tap"): cell k of every window is a strided slice of
//     x padded and dilated with NaN (never equal to a result, so padding and holes
//     are never picked), and its transpose a pad. Every op used has rules, so the
//     gradient differentiates again. (select_and_scatter knows no dilations, and
//     its own rules could not see its select region.)
// Several inputs and other bodies are refused by name.
#include <fmt/format.h>

#include <limits>

#include "ops/gather_scatter.hpp"
#include "ops/region_rules.hpp"
#include "ops/window.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::detail {
namespace {

constexpr std::string_view kOp = "reduce_window";

std::string_view checked_body(const Rule& r, const char* mode) {
  if (r.num_in() != 2)
    refuse_rule(kOp, fmt::format("{} mode needs one input and its init value, got a reduce_window of {} inputs",
                                 mode, r.num_in() / 2));
  const std::string_view body = r.body(0);
  if (body != "add" && body != "maximum" && body != "minimum")
    refuse_rule(kOp, fmt::format("{} mode needs an add, maximum or minimum body, got {}", mode,
                                 body.empty() ? std::string("a body that is not one binary op")
                                              : fmt::format("'{}'", body)));
  return body;
}

// The window geometry along each axis: D the base-dilated length of x, P the
// padded one, span the extent the windows' starts cover ((out - 1) * stride + 1).
struct Geometry {
  WindowSpec w;
  Ints dilated, padded, span, dilated_window;
  std::int64_t cells = 1;
};
Geometry geometry(const Rule& r) {
  const Shape& in = r.in(0).shape();
  const Shape& out = r.out(0).shape();
  Geometry g{read_window(kOp, r.attrs(), in.size()), {}, {}, {}, {}};
  for (std::size_t d = 0; d < in.size(); ++d) {
    g.dilated.push_back((in[d] - 1) * g.w.base_dilations[d] + 1);
    g.padded.push_back(g.w.pad_lo[d] + g.dilated[d] + g.w.pad_hi[d]);
    g.span.push_back((out[d] - 1) * g.w.strides[d] + 1);
    g.dilated_window.push_back((g.w.dims[d] - 1) * g.w.window_dilations[d] + 1);
    g.cells *= g.w.dims[d];
  }
  return g;
}

Ints minus_one(const Ints& v) {
  Ints r;
  for (const std::int64_t x : v) r.push_back(x - 1);
  return r;
}

bool all_ones(const Ints& v) {
  for (const std::int64_t x : v)
    if (x != 1) return false;
  return true;
}

// ---- add ------------------------------------------------------------------------

Tensor sum_window_transpose(const Rule& r, const Tensor& ct) {
  const Geometry g = geometry(r);
  const std::size_t rank = g.padded.size();
  Ints lo(rank), hi(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    lo[d] = g.dilated_window[d] - 1 - g.w.pad_lo[d];
    hi[d] = g.dilated[d] + g.dilated_window[d] - 1 - lo[d] - g.span[d];
  }
  const Tensor in[] = {pad_with(ct, 0.0, lo, hi, minus_one(g.w.strides)), zeros({}, ct.dtype())};
  const Attrs attrs{{"window_dimensions", g.w.dims},
                    {"window_strides", g.w.base_dilations},
                    {"window_dilations", g.w.window_dilations}};
  return record_with_body("reduce_window", in, attrs, ct.dtype(), "add")[0];
}

// ---- maximum / minimum ------------------------------------------------------------

// Which cell of each window takes the result's derivative.
struct Picks {
  Geometry g;
  std::vector<Tensor> hits;  // per cell, in row-major order over the window: bool, result-shaped
  Tensor any;                // some cell took it (else init does)
};

Tensor tap(const Geometry& g, const Tensor& padded, const Ints& k) {
  Ints start, stop;
  for (std::size_t d = 0; d < k.size(); ++d) {
    start.push_back(k[d] * g.w.window_dilations[d]);
    stop.push_back(start.back() + g.span[d]);
  }
  return slice(padded, start, stop, g.w.strides);
}

// The transpose of tap(pad(., lo, hi, holes), k): t spread back onto x.
Tensor untap(const Geometry& g, const Tensor& t, const Ints& k) {
  const std::size_t rank = k.size();
  Ints lo(rank), hi(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    lo[d] = k[d] * g.w.window_dilations[d] - g.w.pad_lo[d];
    hi[d] = g.padded[d] - k[d] * g.w.window_dilations[d] - g.span[d] - g.w.pad_hi[d];
  }
  const Tensor dilated = pad_with(t, 0.0, lo, hi, minus_one(g.w.strides));
  if (all_ones(g.w.base_dilations)) return dilated;
  return slice(dilated, Ints(rank, 0), g.dilated, g.w.base_dilations);
}

template <class Fn>
void for_each_cell(const Geometry& g, Fn fn) {
  Ints k(g.w.dims.size(), 0);
  if (g.cells == 0) return;
  do fn(k);
  while (next_index(k, g.w.dims));
}

Picks picks(const Rule& r) {
  Picks p{geometry(r), {}, {}};
  const Tensor xp = pad_with(r.in(0), std::numeric_limits<double>::quiet_NaN(), p.g.w.pad_lo, p.g.w.pad_hi,
                             minus_one(p.g.w.base_dilations));
  for_each_cell(p.g, [&](const Ints& k) {
    Tensor hit = eq(tap(p.g, xp, k), r.out(0));
    if (p.any.defined()) hit = hit & !p.any;
    p.any = p.any.defined() ? (p.any | hit) : hit;
    p.hits.push_back(hit);
  });
  return p;
}

bool empty_result(const Rule& r) { return r.in(0).numel() == 0 || r.out(0).numel() == 0; }

}  // namespace

std::vector<Tensor> reduce_window_jvp(const Rule& r) {
  const std::string_view body = checked_body(r, "forward");
  const Tensor& y = r.out(0);
  if (body != "add" && empty_result(r))  // every result is init
    return {r.has_tangent(1) ? broadcast_to_shape_of(r.tangent(1), y) : Tensor()};
  if (body == "add") {
    const Tensor in[] = {r.has_tangent(0) ? r.tangent(0) : zeros_like(r.in(0)),
                         r.has_tangent(1) ? r.tangent(1) : zeros_like(r.in(1))};
    return record_with_body("reduce_window", in, r.attrs(), y.dtype(), "add");
  }
  const Picks p = picks(r);
  Tensor t;
  if (r.has_tangent(0)) {
    const Tensor tp = pad_with(r.tangent(0), 0.0, p.g.w.pad_lo, p.g.w.pad_hi, minus_one(p.g.w.base_dilations));
    std::size_t i = 0;
    for_each_cell(p.g, [&](const Ints& k) { t = add_tangents(t, where(p.hits[i++], tap(p.g, tp, k), 0.0)); });
  }
  if (r.has_tangent(1)) {
    const Tensor from_init = broadcast_to_shape_of(r.tangent(1), y);
    t = add_tangents(t, p.any.defined() ? where(p.any, 0.0, from_init) : from_init);
  }
  return {t};
}

std::vector<Tensor> reduce_window_vjp(const Rule& r) {
  const std::string_view body = checked_body(r, "reverse");
  std::vector<Tensor> g(2);
  if (!r.has_cotangent()) return g;
  const Tensor& ct = r.cotangent();
  if (empty_result(r)) {
    if (r.wants(1)) g[1] = body == "add" ? sum(ct) * double(geometry(r).cells + 1) : sum(ct);
    return g;
  }
  if (body == "add") {
    const Tensor gx = sum_window_transpose(r, ct);
    if (r.wants(0)) g[0] = gx;
    if (r.wants(1)) g[1] = sum(ct) * double(geometry(r).cells + 1) - sum(gx);
    return g;
  }
  const Picks p = picks(r);
  if (r.wants(0)) {
    std::size_t i = 0;
    for_each_cell(p.g, [&](const Ints& k) { g[0] = add_tangents(g[0], untap(p.g, where(p.hits[i++], ct, 0.0), k)); });
  }
  if (r.wants(1)) g[1] = sum(p.any.defined() ? where(p.any, 0.0, ct) : ct);
  return g;
}

}  // namespace tlaloc::detail
