// Derivatives of StableHLO scatter with one operand and an `add` update region
// (what index_add, scatter_add and gather's gradient lower to). It is linear in
// the operand and the updates together:
//   JVP: the same scatter of the tangents (a zero stands in for a missing one);
//   VJP: the operand gets the cotangent as it is, the updates a gather of the
//        cotangent with the dimension numbers renamed (update_window_dims ->
//        offset_dims, inserted_window_dims -> collapsed_slice_dims,
//        scatter_dims_to_operand_dims -> start_index_map, batching dims alike) and
//        slice sizes from the update window.
// Out of bounds: the kernel skips each update element whose target lies outside
// the operand (element by element, so a window that partly fits is partly
// applied), while gather clamps whole windows into range. So the gather reads the
// cotangent padded with zeros by one window on both sides of each indexed axis,
// at the starts shifted by that padding: a skipped element reads a zero. (JAX's
// transpose gathers in its fill-or-drop mode for the same reason; it drops whole
// windows where this kernel drops elements, and the rule follows the kernel.)
// Other update regions (multiply, maximum, replace) and variadic scatters are
// refused by name: the rule sees only which binary op the region is.
#include <fmt/format.h>

#include "ops/gather_scatter.hpp"
#include "ops/region_rules.hpp"
#include "tlaloc/ops.hpp"

namespace tlaloc::detail {
namespace {

void check_add(const Rule& r, const char* mode) {
  if (r.num_in() != 3)
    refuse_rule("scatter", fmt::format("{} mode needs one operand and one updates tensor, got a scatter of {} operands",
                                       mode, r.num_in() / 2));
  if (r.body(0) != "add")
    refuse_rule("scatter",
                fmt::format("{} mode needs an add update region, got {}", mode,
                            r.body(0).empty() ? std::string("a region that is not one binary op (replace included)")
                                              : fmt::format("'{}'", r.body(0))));
}

// The updates' cotangent: the cotangent at each update element's target, zero
// where the kernel skipped the element.
Tensor updates_cotangent(const Rule& r) {
  const Attrs& a = r.attrs();
  const Tensor &x = r.in(0), &idx = r.in(1), &u = r.in(2);
  if (x.numel() == 0 || u.numel() == 0) return zeros_like(u);
  const Ints window = ints_or_empty(a, "update_window_dims"), inserted = ints_or_empty(a, "inserted_window_dims"),
             batching = ints_or_empty(a, "input_batching_dims"),
             to_operand = ints_or_empty(a, "scatter_dims_to_operand_dims");
  const std::int64_t vector_dim = a.get<std::int64_t>("index_vector_dim");
  const std::size_t rank = x.shape().size();
  Ints sizes(rank, 1);
  for (std::size_t d = 0, w = 0; d < rank; ++d)
    if (!contains(inserted, std::int64_t(d)) && !contains(batching, std::int64_t(d)))
      sizes[d] = u.shape()[std::size_t(window[w++])];
  // One window of zeros on both sides of each indexed axis; each start clamped into
  // [-window, size] (so that it cannot overflow or reach past the padding) and
  // shifted by the padding.
  Ints pad(rank, 0), low, high, shift;
  for (const std::int64_t d : to_operand) {
    const std::int64_t w = sizes[std::size_t(d)];
    pad[std::size_t(d)] = w;
    low.push_back(-w);
    high.push_back(x.shape()[std::size_t(d)]);
    shift.push_back(w);
  }
  Shape bound_shape(idx.shape().size(), 1);
  if (std::size_t(vector_dim) < bound_shape.size())
    bound_shape[std::size_t(vector_dim)] = std::int64_t(to_operand.size());
  else
    bound_shape = {};  // one component per index: scalar bounds
  const Tensor starts =
      minimum(maximum(idx.astype(DType::i64), tensor(low, bound_shape)), tensor(high, bound_shape)) +
      tensor(shift, bound_shape);
  const Attrs gather{{"offset_dims", window},
                     {"collapsed_slice_dims", inserted},
                     {"operand_batching_dims", batching},
                     {"start_indices_batching_dims", ints_or_empty(a, "scatter_indices_batching_dims")},
                     {"start_index_map", to_operand},
                     {"index_vector_dim", vector_dim},
                     {"slice_sizes", sizes}};
  return call1(*find_op("gather"), {pad_with(r.cotangent(), 0.0, pad, pad, Ints(rank, 0)), starts}, gather);
}

}  // namespace

std::vector<Tensor> scatter_jvp(const Rule& r) {
  check_add(r, "forward");
  if (!r.has_tangent(0) && !r.has_tangent(2)) return std::vector<Tensor>(1);
  const Tensor in[] = {r.has_tangent(0) ? r.tangent(0) : zeros_like(r.in(0)), r.in(1),
                       r.has_tangent(2) ? r.tangent(2) : zeros_like(r.in(2))};
  return record_with_body("scatter", in, r.attrs(), r.in(0).dtype(), "add");
}

std::vector<Tensor> scatter_vjp(const Rule& r) {
  check_add(r, "reverse");
  std::vector<Tensor> g(3);
  if (!r.has_cotangent()) return g;
  if (r.wants(0)) g[0] = r.cotangent();
  if (r.wants(2)) g[2] = updates_cotangent(r);
  return g;
}

}  // namespace tlaloc::detail
