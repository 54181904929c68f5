// Rows for the indexing ops: take, take_along_axis, index_add, scatter_add (each
// the transpose of another), embedding, and StableHLO's general gather and
// scatter (with an add region). Indices repeat on purpose: the cotangent of a
// repeated read is the sum of its parts.
#include "ad/gradcheck.hpp"
#include "ad/region_ops.hpp"
#include "ir/op.hpp"

namespace gradcheck {
namespace {

using Fn = std::function<Tensor(std::span<const Tensor>)>;
using Ints = std::vector<std::int64_t>;

Case row(std::string name, std::vector<std::string> ops, std::vector<Tensor> in, Fn fn, std::string torch = "") {
  Case c{"index/" + std::move(name), std::move(ops), std::move(in), std::move(fn)};
  c.torch = std::move(torch);
  return c;
}

Tensor ints(std::vector<std::int64_t> v, tl::Shape s, tl::DType t = tl::DType::i64) {
  return tl::tensor(v, s).astype(t);
}

Tensor gather(const Tensor& x, const Tensor& idx, tl::detail::Attrs attrs) {
  return tl::detail::call1(*tl::detail::find_op("gather"), {x, idx}, attrs);
}

// An op of the registry by name (the ops public functions record on values of unknown type).
Tensor op(std::string_view name, std::vector<Tensor> in, tl::detail::Attrs attrs) {
  return tl::detail::call1(*tl::detail::find_op(name), in, attrs);
}
const tl::detail::Attrs kAxis1{{"axis", std::int64_t{1}}};

// StableHLO scatter with an add update region.
Tensor scatter_add(const Tensor& x, const Tensor& idx, const Tensor& updates, tl::detail::Attrs attrs) {
  return region_ops::with_body("scatter", {x, idx, updates}, attrs, "add");
}

const bool added = add({
    // Duplicates (2 three times, -1 is 3) and a negative index.
    row("take_duplicates", {"take"}, {uniform({4, 3}, -2, 2, 1), ints({2, 0, 2, 2, -1}, {5})},
        [](std::span<const Tensor> a) { return tl::square(tl::take(a[0], a[1], 0)); }, "torch.square(a[b])"),
    // Indices of rank 2 replace axis 1; i32 indices.
    row("take_axis1", {"take"}, {uniform({3, 4}, -2, 2, 2), ints({0, 3, 1, 1}, {2, 2}, tl::DType::i32)},
        [](std::span<const Tensor> a) { return tl::take(a[0], a[1], 1) * tl::take(a[0], a[1], 1); },
        "a[:, b] * a[:, b]"),
    row("take_along_axis", {"take_along_axis"}, {uniform({3, 4}, -2, 2, 3), ints({0, 3, 1, 1, 2, 2}, {3, 2})},
        [](std::span<const Tensor> a) { return tl::square(tl::take_along_axis(a[0], a[1], 1)); },
        "torch.square(torch.take_along_dim(a, b, 1))"),
    // The indices broadcast over x's rows (x is broadcast first: its cotangent is summed back).
    row("take_along_axis_broadcast", {"take_along_axis", "broadcast_in_dim"},
        {uniform({3, 4}, -2, 2, 4), ints({3, 0, 3}, {1, 3})},
        [](std::span<const Tensor> a) { return tl::square(tl::take_along_axis(a[0], a[1], 1)); },
        "torch.square(torch.take_along_dim(a, b, 1))"),
    // tl::take_along_axis and its transpose recorded on values of unknown type: the
    // indices matching x off the axis, or x broadcast against them.
    row("take_along_axis_call", {"take_along_axis_call"}, {uniform({3, 4}, -2, 2, 1032), ints({0, 3, 1, 1, 2, 2}, {3, 2})},
        [](std::span<const Tensor> a) { return tl::sin(op("take_along_axis_call", {a[0], a[1]}, kAxis1)); },
        "torch.sin(torch.take_along_dim(a, b, 1))"),
    row("take_along_axis_call_broadcast", {"take_along_axis_call"},
        {uniform({1, 4}, -2, 2, 1033), ints({0, 3, 1, 1, 2, 2}, {3, 2})},
        [](std::span<const Tensor> a) { return tl::sin(op("take_along_axis_call", {a[0], a[1]}, kAxis1)); },
        "torch.sin(torch.take_along_dim(a.expand(3, 4), b, 1))"),
    row("take_along_axis_backward", {"take_along_axis_backward"},
        {uniform({3, 2}, -2, 2, 1034), uniform({3, 4}, -1, 1, 1035), ints({0, 3, 1, 1, 2, 2}, {3, 2})},
        [](std::span<const Tensor> a) { return tl::sin(op("take_along_axis_backward", {a[0], a[1], a[2]}, kAxis1)); },
        "torch.sin(torch.zeros_like(b).scatter_add(1, c, a)) + 0 * b"),
    row("take_along_axis_backward_broadcast", {"take_along_axis_backward"},
        {uniform({3, 2}, -2, 2, 1036), uniform({1, 4}, -1, 1, 1037), ints({0, 3, 1, 1, 2, 2}, {3, 2})},
        [](std::span<const Tensor> a) { return tl::sin(op("take_along_axis_backward", {a[0], a[1], a[2]}, kAxis1)); },
        "torch.sin(b.new_zeros(3, 4).scatter_add(1, c, a).sum(0, keepdim=True)) + 0 * b"),
    row("index_add", {"index_add"}, {uniform({4, 3}, -2, 2, 5), ints({1, 3, 1}, {3}), uniform({3, 3}, -2, 2, 6)},
        [](std::span<const Tensor> a) { return tl::square(tl::index_add(a[0], a[1], a[2], 0)); },
        "torch.square(a.index_add(0, b, c))"),
    row("scatter_add", {"scatter_add"},
        {uniform({3, 4}, -2, 2, 7), ints({0, 0, 3, 1, 2, 2}, {3, 2}), uniform({3, 2}, -2, 2, 8)},
        [](std::span<const Tensor> a) { return tl::square(tl::scatter_add(a[0], a[1], a[2], 1)); },
        "torch.square(a.scatter_add(1, b, c))"),
    row("embedding", {"take"}, {uniform({5, 3}, -2, 2, 9), ints({4, 0, 4, 2, 4, 1}, {2, 3})},
        [](std::span<const Tensor> a) { return tl::square(tl::embedding(a[0], a[1])); },
        "torch.square(F.embedding(b, a))"),
    // General gather: windows of 1 x 2 at (row, col) starts; the last start (col 4)
    // is clamped to 3 so the window fits, and windows overlap. Its VJP is a scatter
    // with an add region, whose own rules make the second order.
    {"index/gather_windows",
     {"gather"},
     {uniform({4, 5}, -2, 2, 10), ints({0, 1, 2, 3, 2, 2, 3, 4}, {4, 2})},
     [](std::span<const Tensor> a) {
       return tl::square(gather(a[0], a[1],
                                {{"offset_dims", Ints{1}},
                                 {"collapsed_slice_dims", Ints{0}},
                                 {"start_index_map", Ints{0, 1}},
                                 {"index_vector_dim", std::int64_t(1)},
                                 {"slice_sizes", Ints{1, 2}}}));
     }},
    // Batching dims: out[b, k] = x[b, idx[b, k]] (take_along_axis as a gather).
    {"index/gather_batching",
     {"gather"},
     {uniform({2, 4}, -2, 2, 11), ints({3, 3, 0, 1, 2, 1}, {2, 3})},
     [](std::span<const Tensor> a) {
       return tl::square(gather(a[0], a[1],
                                {{"offset_dims", Ints{}},
                                 {"collapsed_slice_dims", Ints{1}},
                                 {"operand_batching_dims", Ints{0}},
                                 {"start_indices_batching_dims", Ints{0}},
                                 {"start_index_map", Ints{1}},
                                 {"index_vector_dim", std::int64_t(2)},
                                 {"slice_sizes", Ints{1, 1}}}));
     }},
    // Scatter with an add region: rows of updates added at repeated row indices
    // (index_add's form).
    row("scatter_rows", {"scatter"}, {uniform({4, 3}, -2, 2, 12), ints({1, 3, 1}, {3, 1}), uniform({3, 3}, -2, 2, 13)},
        [](std::span<const Tensor> a) {
          return tl::square(scatter_add(a[0], a[1], a[2],
                                        {{"update_window_dims", Ints{1}},
                                         {"inserted_window_dims", Ints{0}},
                                         {"scatter_dims_to_operand_dims", Ints{0}},
                                         {"index_vector_dim", std::int64_t(1)}}));
        },
        "torch.square(a.index_add(0, b[:, 0], c))"),
    // 2 x 2 windows, some partly or wholly outside x: the kernel skips each element
    // that falls outside (starts (3, 4) and (-1, 0) keep one and two elements), and
    // a skipped element's update gets a zero cotangent.
    row("scatter_windows_out_of_bounds", {"scatter"},
        {uniform({4, 5}, -2, 2, 14), ints({0, 1, 2, 3, 3, 4, -1, 0, 7, -9}, {5, 2}), uniform({5, 2, 2}, -2, 2, 15)},
        [](std::span<const Tensor> a) {
          return tl::square(scatter_add(a[0], a[1], a[2],
                                        {{"update_window_dims", Ints{1, 2}},
                                         {"inserted_window_dims", Ints{}},
                                         {"scatter_dims_to_operand_dims", Ints{0, 1}},
                                         {"index_vector_dim", std::int64_t(1)}}));
        }),
    // Batching dims: x[b, idx[b, k]] += u[b, k] (scatter_add's form).
    row("scatter_batching", {"scatter"}, {uniform({2, 4}, -2, 2, 16), ints({3, 0, 3, 1, 2, 1}, {2, 3}), uniform({2, 3}, -2, 2, 17)},
        [](std::span<const Tensor> a) {
          return tl::square(scatter_add(a[0], a[1], a[2],
                                        {{"update_window_dims", Ints{}},
                                         {"inserted_window_dims", Ints{1}},
                                         {"input_batching_dims", Ints{0}},
                                         {"scatter_indices_batching_dims", Ints{0}},
                                         {"scatter_dims_to_operand_dims", Ints{1}},
                                         {"index_vector_dim", std::int64_t(2)}}));
        },
        "torch.square(a.scatter_add(1, b, c))"),
});

}  // namespace
}  // namespace gradcheck
