// Rows for the indexing ops: take, take_along_axis, index_add, scatter_add (each
// the transpose of another), embedding, and StableHLO's general gather. Indices
// repeat on purpose: the cotangent of a repeated read is the sum of its parts.
#include "ad/gradcheck.hpp"
#include "ops/op.hpp"

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
    // is clamped to 3 so the window fits, and windows overlap. Its VJP is a scatter,
    // which the engine cannot differentiate again (an op with a region).
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
     },
     false},
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
     },
     false},
});

}  // namespace
}  // namespace gradcheck
