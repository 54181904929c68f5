// Rows for the ops that move elements without computing on them: concatenate,
// slice, pad, reverse, dynamic_slice and dynamic_update_slice, and the public
// composites built from them (stack, split, tile, repeat, squeeze, expand_dims,
// broadcast_to, edge padding, slices with negative bounds).
#include "ad/gradcheck.hpp"
#include "ir/op.hpp"
#include "ops/untyped_calls.hpp"

namespace gradcheck {
namespace {

using Fn = std::function<Tensor(std::span<const Tensor>)>;
using Ints = std::vector<std::int64_t>;

// A registry op called directly, for attributes the public functions do not expose
// (interior and negative padding, traced start indices).
Tensor op(std::string_view name, std::vector<Tensor> in, tl::detail::Attrs attrs = {}) {
  return tl::detail::call1(*tl::detail::find_op(name), in, attrs);
}

Case row(std::string name, std::vector<std::string> ops, std::vector<Tensor> in, Fn fn, std::string torch = "") {
  Case c{"shape/" + std::move(name), std::move(ops), std::move(in), std::move(fn)};
  c.torch = std::move(torch);
  return c;
}

Tensor i64(std::int64_t v) { return tl::scalar_tensor(v, tl::DType::i64); }

tl::detail::Attrs padding(Ints lo, Ints hi, Ints interior) {
  return {{"edge_padding_low", lo}, {"edge_padding_high", hi}, {"interior_padding", interior}};
}

// tl::slice(x, -1, -4, -1, 2)'s arguments: the last axis from 4 before its end to 1
// before, every second element.
tl::detail::Attrs slice_axis() {
  return {{"axis_or_starts", std::int64_t{-1}}, {"start_or_stops", std::int64_t{-4}},
          {"stop_or_steps", std::int64_t{-1}}, {"step", std::int64_t{2}}};
}

const bool added = add({
    // The ops that stand for public functions reading another value's shape where
    // types are known only at run time (src/ops/like.cpp), called here with types known.
    row("sum_to_shape_of", {"sum_to_shape_of"}, {uniform({2, 3}, -1, 1, 950), uniform({1, 3}, -1, 1, 951)},
        [](std::span<const Tensor> a) { return tl::sin(op("sum_to_shape_of", {a[0], a[1]})); },
        "torch.sin(a.sum(0, keepdim=True)) + 0 * b"),
    row("broadcast_to_shape_of", {"broadcast_to_shape_of"}, {uniform({3}, -1, 1, 952), uniform({2, 3}, -1, 1, 953)},
        [](std::span<const Tensor> a) { return tl::sin(op("broadcast_to_shape_of", {a[0], a[1]})); },
        "torch.sin(a.expand(2, 3)) + 0 * b"),
    row("sum_backward", {"sum_backward"}, {uniform({2}, -1, 1, 956), uniform({2, 3}, -1, 1, 957)},
        [](std::span<const Tensor> a) {
          return tl::sin(op("sum_backward", {a[0], a[1]}, {{"axes", Ints{1}}, {"keepdims", false}}));
        },
        "torch.sin(a[:, None].expand(2, 3)) + 0 * b"),
    row("extreme_backward", {"extreme_backward"}, {uniform({2}, -1, 1, 958), uniform({2, 3}, -1, 1, 959)},
        [](std::span<const Tensor> a) {
          const Tensor y = tl::max(a[1], {1});
          return tl::sin(op("extreme_backward", {a[0], a[1], y}, {{"axes", Ints{1}}, {"keepdims", false}}));
        },
        "torch.sin(a[:, None] * (b == b.amax(1, keepdim=True)).double()) + 0 * b"),
    row("extreme_jvp", {"extreme_jvp"}, {uniform({2, 3}, -1, 1, 960), uniform({2, 3}, -1, 1, 961)},
        [](std::span<const Tensor> a) {
          const Tensor y = tl::max(a[1], {1}, true);
          return tl::sin(op("extreme_jvp", {a[0], a[1], y}, {{"axes", Ints{1}}, {"keepdims", true}}));
        },
        "torch.sin((a * (b == b.amax(1, keepdim=True)).double()).sum(1, keepdim=True)) + 0 * b.sum(1, keepdim=True)"),
    // tl::derivatives::transpose_backward recorded on a value of unknown type, with its
    // permutation as written (negative axes) or absent (the axes reversed).
    row("transpose_backward", {"transpose_backward"}, {uniform({4, 2, 3}, -1, 1, 962)},
        [](std::span<const Tensor> a) {
          return tl::sin(op("transpose_backward", {a[0]}, {{"permutation", Ints{-1, 0, 1}}}));
        },
        "torch.sin(a.permute(1, 2, 0))"),
    row("transpose_backward_reversed", {"transpose_backward"}, {uniform({4, 2, 3}, -1, 1, 963)},
        [](std::span<const Tensor> a) { return tl::sin(op("transpose_backward", {a[0]})); },
        "torch.sin(a.permute(2, 1, 0))"),
    // tl::derivatives::cumsum_backward recorded on a value of unknown type.
    row("cumsum_backward", {"cumsum_backward"}, {uniform({2, 4}, -1, 1, 964)},
        [](std::span<const Tensor> a) {
          return tl::sin(op("cumsum_backward", {a[0]}, {{"axis", std::int64_t{-1}}}));
        },
        "torch.sin(a.flip(-1).cumsum(-1).flip(-1))"),
    // reshape_like, and squeeze and expand_dims recorded on values of unknown type, with
    // their axes as written (negative, or every axis of size 1).
    row("reshape_like", {"reshape_like"}, {uniform({2, 3}, -1, 1, 965), uniform({3, 1, 2}, -1, 1, 966)},
        [](std::span<const Tensor> a) { return tl::sin(op("reshape_like", {a[0], a[1]})); },
        "torch.sin(a.reshape(3, 1, 2)) + 0 * b"),
    row("squeeze_op", {"squeeze"}, {uniform({2, 1, 3, 1}, -1, 1, 967)},
        [](std::span<const Tensor> a) { return tl::sin(op("squeeze", {a[0]}, {{"axes", Ints{-1}}})); },
        "torch.sin(a.squeeze(-1))"),
    row("squeeze_op_all", {"squeeze"}, {uniform({2, 1, 3, 1}, -1, 1, 968)},
        [](std::span<const Tensor> a) {
          return tl::sin(op("squeeze", {a[0]}, {{"axes", Ints{}}, {"all", true}}));
        },
        "torch.sin(a.squeeze())"),
    row("expand_dims_op", {"expand_dims"}, {uniform({2, 3}, -1, 1, 969)},
        [](std::span<const Tensor> a) { return tl::sin(op("expand_dims", {a[0]}, {{"axis", std::int64_t{-1}}})); },
        "torch.sin(a.unsqueeze(-1))"),
    // broadcast_to and sum_to_size recorded on values of unknown type.
    row("broadcast_to_op", {"broadcast_to"}, {uniform({3, 1}, -1, 1, 970)},
        [](std::span<const Tensor> a) { return tl::sin(op("broadcast_to", {a[0]}, {{"shape", Ints{2, 3, 4}}})); },
        "torch.sin(a.expand(2, 3, 4))"),
    row("sum_to_size_op", {"sum_to_size"}, {uniform({2, 3, 4}, -1, 1, 971)},
        [](std::span<const Tensor> a) { return tl::sin(op("sum_to_size", {a[0]}, {{"shape", Ints{3, 1}}})); },
        "torch.sin(a.sum(0).sum(1, keepdim=True))"),
    // tile and repeat recorded on values of unknown type, and their transposes.
    row("tile_op", {"tile"}, {uniform({2, 3}, -1, 1, 972)},
        [](std::span<const Tensor> a) { return tl::sin(op("tile", {a[0]}, {{"reps", Ints{2, 1, 2}}})); },
        "torch.sin(torch.tile(a, (2, 1, 2)))"),
    row("tile_backward_op", {"tile_backward"}, {uniform({2, 2, 6}, -1, 1, 973), uniform({2, 3}, -1, 1, 974)},
        [](std::span<const Tensor> a) {
          return tl::sin(op("tile_backward", {a[0], a[1]}, {{"reps", Ints{2, 1, 2}}}));
        },
        "torch.sin(a.reshape(2, 1, 2, 2, 3).sum((0, 3))[0]) + 0 * b"),
    row("repeat_op", {"repeat"}, {uniform({2, 3}, -1, 1, 975)},
        [](std::span<const Tensor> a) {
          return tl::sin(op("repeat", {a[0]}, {{"repeats", std::int64_t{2}}, {"axis", std::int64_t{-1}}}));
        },
        "torch.sin(torch.repeat_interleave(a, 2, -1))"),
    row("repeat_backward_op", {"repeat_backward"}, {uniform({2, 6}, -1, 1, 976), uniform({2, 3}, -1, 1, 977)},
        [](std::span<const Tensor> a) {
          return tl::sin(
              op("repeat_backward", {a[0], a[1]}, {{"repeats", std::int64_t{2}}, {"axis", std::int64_t{-1}}}));
        },
        "torch.sin(a.reshape(2, 3, 2).sum(2)) + 0 * b"),
    // take and index_add recorded on values of unknown type, their axis as written.
    row("take_op", {"take"}, {uniform({3, 4}, -1, 1, 978)},
        [](std::span<const Tensor> a) {
          const Tensor idx = tl::tensor(std::vector<std::int64_t>{3, 0, 3}, {3});
          return tl::sin(op("take", {a[0], idx}, {{"axis", std::int64_t{-1}}}));
        },
        "torch.sin(a[:, [3, 0, 3]])"),
    row("index_add_op", {"index_add"}, {uniform({3, 4}, -1, 1, 979), uniform({3, 2}, -1, 1, 980)},
        [](std::span<const Tensor> a) {
          const Tensor idx = tl::tensor(std::vector<std::int64_t>{1, 1}, {2});
          return tl::sin(op("index_add", {a[0], idx, a[1]}, {{"axis", std::int64_t{-1}}}));
        },
        "torch.sin(a.index_add(1, torch.tensor([1, 1]), b))"),
    row("scatter_add_op", {"scatter_add"}, {uniform({3, 4}, -1, 1, 981), uniform({3, 2}, -1, 1, 982)},
        [](std::span<const Tensor> a) {
          const Tensor idx = tl::tensor(std::vector<std::int64_t>{1, 1, 0, 3, 2, 2}, {3, 2});
          return tl::sin(op("scatter_add", {a[0], idx, a[1]}, {{"axis", std::int64_t{-1}}}));
        },
        "torch.sin(a.scatter_add(1, torch.tensor([[1, 1], [0, 3], [2, 2]]), b))"),
    row("convert_like", {"convert_like"}, {uniform({2, 3}, -1, 1, 954), uniform({}, -1, 1, 955)},
        [](std::span<const Tensor> a) { return tl::sin(op("convert_like", {a[0], a[1]})); }, "torch.sin(a) + 0 * b"),
    row("transpose", {"transpose"}, {uniform({2, 3, 4}, -1, 1, 901)},
        [](std::span<const Tensor> a) { return tl::sin(tl::transpose(a[0], {2, 0, 1})); }, "torch.sin(a.permute(2, 0, 1))"),
    row("optimization_barrier", {"optimization_barrier"}, {uniform({2, 3}, -1, 1, 902), uniform({3}, -1, 1, 903)},
        [](std::span<const Tensor> a) {
          const std::vector<Tensor> both = tl::detail::call(*tl::detail::find_op("optimization_barrier"), {a[0], a[1]});
          return both[0] * both[1];
        },
        "a * b"),
    row("concatenate", {"concatenate"}, {uniform({2, 2}, -2, 2, 1), uniform({2, 1}, -2, 2, 2), uniform({2, 3}, -2, 2, 3)},
        [](std::span<const Tensor> a) { return tl::concat({a[0], a[1], a[2]}, 1); }, "torch.cat([a, b, c], 1)"),
    // A constant operand has no tangent: the JVP fills in its zeros.
    row("concatenate_constant", {"concatenate"}, {uniform({2, 3}, -2, 2, 4)},
        [](std::span<const Tensor> a) {
          return tl::square(tl::concat({tl::full({1, 3}, 0.5, a[0].dtype()), a[0]}, -2));
        },
        "torch.square(torch.cat([torch.full((1, 3), 0.5, dtype=a.dtype), a], -2))"),
    row("slice_steps", {"slice"}, {uniform({5, 6}, -2, 2, 5)},
        [](std::span<const Tensor> a) { return tl::slice(a[0], {1, 0}, {5, 6}, {2, 3}); }, "a[1:5:2, 0:6:3]"),
    // Python bounds: negative ones count from the end.
    row("slice_negative", {"slice"}, {uniform({2, 6}, -2, 2, 6)},
        [](std::span<const Tensor> a) { return tl::slice(a[0], 1, -4, -1) * tl::slice(a[0], 1, -5, 6, 2); },
        "a[:, -4:-1] * a[:, -5::2]"),
    // tl::slice and tl::derivatives::slice_backward recorded on values of unknown type,
    // in either overload (one axis with Python's bounds, or a box).
    row("slice_call_axis", {"slice_call"}, {uniform({2, 6}, -2, 2, 1014)},
        [](std::span<const Tensor> a) {
          return tl::sin(op("slice_call", {a[0]}, slice_axis()));
        },
        "torch.sin(a[:, 2:5:2])"),
    row("slice_call_box", {"slice_call"}, {uniform({5, 6}, -2, 2, 1015)},
        [](std::span<const Tensor> a) {
          return tl::sin(op("slice_call", {a[0]},
                            {{"axis_or_starts", Ints{1, 0}}, {"start_or_stops", Ints{5, 6}}, {"stop_or_steps", Ints{2, 3}}}));
        },
        "torch.sin(a[1:5:2, 0:6:3])"),
    row("slice_backward_axis", {"slice_backward"}, {uniform({2, 2}, -2, 2, 1016), uniform({2, 6}, -1, 1, 1017)},
        [](std::span<const Tensor> a) { return tl::sin(op("slice_backward", {a[0], a[1]}, slice_axis())); },
        "torch.sin(a.new_zeros(2, 6).index_copy(1, torch.tensor([2, 4]), a)) + 0 * b"),
    row("slice_backward_box", {"slice_backward"}, {uniform({2, 2}, -2, 2, 1018), uniform({4, 3}, -1, 1, 1019)},
        [](std::span<const Tensor> a) {
          return tl::sin(op("slice_backward", {a[0], a[1]},
                            {{"axis_or_starts", Ints{1, 0}}, {"start_or_stops", Ints{3, 2}}}));
        },
        "torch.sin(F.pad(a, (0, 1, 1, 1))) + 0 * b"),
    // tl::dynamic_slice and tl::dynamic_update_slice recorded on values of unknown type,
    // and the update's share of the cotangent (a window of like's shape).
    row("dynamic_slice_call", {"dynamic_slice_call"}, {uniform({3, 4}, -2, 2, 1020)},
        [](std::span<const Tensor> a) {
          return tl::sin(op("dynamic_slice_call", {a[0]}, {{"starts", Ints{1, 1}}, {"sizes", Ints{2, 2}}}));
        },
        "torch.sin(a[1:3, 1:3])"),
    row("dynamic_slice_like", {"dynamic_slice_like"}, {uniform({4, 5}, -2, 2, 1021), uniform({2, 3}, -1, 1, 1022)},
        [](std::span<const Tensor> a) {
          return tl::sin(op("dynamic_slice_like", {a[0], a[1]}, {{"starts", Ints{1, 2}}}));
        },
        "torch.sin(a[1:3, 2:5]) + 0 * b"),
    row("dynamic_update_slice_call", {"dynamic_update_slice_call"},
        {uniform({3, 4}, -2, 2, 1023), uniform({2, 2}, -2, 2, 1024)},
        [](std::span<const Tensor> a) {
          return tl::sin(op("dynamic_update_slice_call", {a[0], a[1]}, {{"starts", Ints{1, 1}}}));
        },
        "torch.sin(torch.cat([a[:1], torch.cat([a[1:3, :1], b, a[1:3, 3:]], 1), a[3:]], 0))"),
    // tl::concat and tl::stack recorded on values of unknown type, and a listed tensor's
    // part of concat's cotangent (after the parts of the tensors before it).
    row("concat_call", {"concat_call"}, {uniform({2, 3}, -2, 2, 1025), uniform({2, 2}, -2, 2, 1026)},
        [](std::span<const Tensor> a) {
          return tl::sin(op("concat_call", {a[0], a[1]}, {{"axis", std::int64_t{-1}}}));
        },
        "torch.sin(torch.cat([a, b], -1))"),
    row("concat_part", {"concat_part"},
        {uniform({2, 6}, -2, 2, 1027), uniform({2, 3}, -1, 1, 1028), uniform({2, 2}, -1, 1, 1029)},
        [](std::span<const Tensor> a) {
          return tl::sin(op("concat_part", {a[0], a[1], a[2]}, {{"axis", std::int64_t{1}}}));
        },
        "torch.sin(a[:, 3:5]) + 0 * c + 0 * b[:, :2]"),
    row("stack_call", {"stack_call"}, {uniform({2, 3}, -2, 2, 1030), uniform({2, 3}, -2, 2, 1031)},
        [](std::span<const Tensor> a) {
          return tl::sin(op("stack_call", {a[0], a[1]}, {{"axis", std::int64_t{1}}}));
        },
        "torch.sin(torch.stack([a, b], 1))"),
    row("pad_constant", {"pad"}, {uniform({2, 3}, -2, 2, 7)},
        [](std::span<const Tensor> a) { return tl::square(tl::pad(a[0], {{1, 2}, {0, 1}}, tl::PadMode::constant, 0.5)); },
        "torch.square(F.pad(a, (0, 1, 1, 2), value=0.5))"),
    // Edge mode is a composite of slice, broadcast_in_dim and concatenate.
    row("pad_edge", {"slice", "broadcast_in_dim", "concatenate"}, {uniform({2, 3}, -2, 2, 8)},
        [](std::span<const Tensor> a) { return tl::square(tl::pad(a[0], {{1, 1}, {2, 0}}, tl::PadMode::edge)); },
        "torch.square(F.pad(a[None, None], (2, 0, 1, 1), mode='replicate')[0, 0])"),
    // The padding value is an operand and gets the cotangent of every padded element.
    row("pad_value", {"pad"}, {uniform({2, 3}, -2, 2, 9), uniform({}, -2, 2, 10)},
        [](std::span<const Tensor> a) { return tl::square(op("pad", {a[0], a[1]}, padding({1, 0}, {0, 2}, {0, 0}))); }),
    // Interior padding, and negative edges that cut into the operand and into the
    // interior padding.
    row("pad_interior_negative", {"pad"}, {uniform({3, 4}, -2, 2, 11), uniform({}, -2, 2, 12)},
        [](std::span<const Tensor> a) { return tl::square(op("pad", {a[0], a[1]}, padding({1, -1}, {-2, 2}, {1, 2}))); }),
    // tl::pad and its transpose as recorded on values of unknown type (pad_call.cpp),
    // run here with types known.
    row("pad_call_constant", {"pad_call"}, {uniform({2, 3}, -2, 2, 1040)},
        [](std::span<const Tensor> a) {
          return tl::square(op("pad_call", {a[0]}, tl::detail::pad_attrs({{1, 2}, {0, 1}}, tl::PadMode::constant, 0.5)));
        },
        "torch.square(F.pad(a, (0, 1, 1, 2), value=0.5))"),
    row("pad_call_edge", {"pad_call"}, {uniform({2, 3}, -2, 2, 1041)},
        [](std::span<const Tensor> a) {
          return tl::square(op("pad_call", {a[0]}, tl::detail::pad_attrs({{1, 1}, {2, 0}}, tl::PadMode::edge, 0)));
        },
        "torch.square(F.pad(a[None, None], (2, 0, 1, 1), mode='replicate')[0, 0])"),
    row("pad_backward_constant", {"pad_backward"}, {uniform({5, 4}, -2, 2, 1042), uniform({2, 3}, -1, 1, 1043)},
        [](std::span<const Tensor> a) {
          return tl::sin(op("pad_backward", {a[0], a[1]}, {{"widths", Ints{1, 2, 0, 1}}}));
        },
        "torch.sin(a[1:3, 0:3]) + 0 * b"),
    // Each border summed into the element it repeats.
    row("pad_backward_edge", {"pad_backward"}, {uniform({4, 5}, -2, 2, 1044), uniform({2, 3}, -1, 1, 1045)},
        [](std::span<const Tensor> a) {
          return tl::sin(op("pad_backward", {a[0], a[1]}, {{"widths", Ints{1, 1, 2, 0}}, {"mode", std::string("edge")}}));
        }),
    // Added to the cotangent x has so far, one border at a time.
    row("pad_backward_so_far", {"pad_backward"},
        {uniform({4, 5}, -2, 2, 1046), uniform({2, 3}, -1, 1, 1047), uniform({2, 3}, -1, 1, 1048)},
        [](std::span<const Tensor> a) {
          return tl::sin(
              op("pad_backward", {a[0], a[1], a[2]}, {{"widths", Ints{1, 1, 2, 0}}, {"mode", std::string("edge")}}));
        }),
    row("reverse", {"reverse"}, {uniform({2, 3, 2}, -2, 2, 13)},
        [](std::span<const Tensor> a) { return tl::reverse(a[0], {0, 2}) * a[0]; }, "torch.flip(a, [0, 2]) * a"),
    row("dynamic_slice", {"dynamic_slice"}, {uniform({3, 5}, -2, 2, 14)},
        [](std::span<const Tensor> a) { return tl::square(tl::dynamic_slice(a[0], {1, 2}, {2, 2})); },
        "torch.square(a[1:3, 2:4])"),
    // Traced starts; the second is past the end and is clamped to 5 - 3.
    row("dynamic_slice_traced", {"dynamic_slice"}, {uniform({4, 5}, -2, 2, 15), i64(1), i64(7)},
        [](std::span<const Tensor> a) {
          return tl::square(op("dynamic_slice", {a[0], a[1], a[2]}, {{"slice_sizes", Ints{2, 3}}}));
        },
        "torch.square(a[b:b + 2, 2:5])"),
    row("dynamic_update_slice", {"dynamic_update_slice"}, {uniform({4, 4}, -2, 2, 16), uniform({2, 3}, -2, 2, 17)},
        [](std::span<const Tensor> a) { return tl::square(tl::dynamic_update_slice(a[0], a[1], {1, 1})); },
        "torch.square(torch.cat([a[:1], torch.cat([a[1:3, :1], b, a[1:3, 4:]], 1), a[3:]], 0))"),
    // Traced starts; the first is negative and is clamped to 0.
    row("dynamic_update_slice_traced", {"dynamic_update_slice"},
        {uniform({3, 4}, -2, 2, 18), uniform({2, 2}, -2, 2, 19), i64(-3), i64(2)},
        [](std::span<const Tensor> a) { return tl::square(op("dynamic_update_slice", {a[0], a[1], a[2], a[3]})); },
        "torch.square(torch.cat([torch.cat([a[:2, :2], b], 1), a[2:]], 0))"),
    // ---- composites ----
    row("stack", {"reshape", "concatenate"}, {uniform({2, 3}, -2, 2, 20), uniform({2, 3}, -2, 2, 21)},
        [](std::span<const Tensor> a) { return tl::stack({a[0], a[1] * a[0]}, 1); }, "torch.stack([a, b * a], 1)"),
    row("split", {"slice"}, {uniform({6, 2}, -2, 2, 22)},
        [](std::span<const Tensor> a) {
          const auto p = tl::split(a[0], 3, 0);
          return p[0] * p[2] + p[1];
        },
        "torch.split(a, 2, 0)[0] * torch.split(a, 2, 0)[2] + torch.split(a, 2, 0)[1]"),
    row("split_sizes", {"slice", "concatenate"}, {uniform({2, 5}, -2, 2, 23)},
        [](std::span<const Tensor> a) {
          const auto p = tl::split(a[0], Ints{1, 3, 1}, -1);
          return tl::concat({tl::square(p[2]), p[0], p[1]}, 1);
        },
        "torch.cat([torch.square(a[:, 4:]), a[:, :1], a[:, 1:4]], 1)"),
    row("tile", {"reshape", "broadcast_in_dim"}, {uniform({2, 3}, -2, 2, 24)},
        [](std::span<const Tensor> a) { return tl::square(tl::tile(a[0], {2, 1, 2})); },
        "torch.square(torch.tile(a, (2, 1, 2)))"),
    row("repeat", {"reshape", "broadcast_in_dim"}, {uniform({2, 3}, -2, 2, 25)},
        [](std::span<const Tensor> a) { return tl::square(tl::repeat(a[0], 2, 1)); },
        "torch.square(torch.repeat_interleave(a, 2, 1))"),
    row("squeeze", {"reshape"}, {uniform({2, 1, 3}, -2, 2, 26)},
        [](std::span<const Tensor> a) { return tl::square(tl::squeeze(a[0], 1)); }, "torch.square(torch.squeeze(a, 1))"),
    row("expand_dims", {"reshape"}, {uniform({2, 3}, -2, 2, 27), uniform({2, 4, 3}, -2, 2, 28)},
        [](std::span<const Tensor> a) { return tl::expand_dims(a[0], 1) * a[1]; }, "torch.unsqueeze(a, 1) * b"),
    row("broadcast_to", {"broadcast_in_dim"}, {uniform({3, 1}, -2, 2, 29)},
        [](std::span<const Tensor> a) { return tl::square(tl::broadcast_to(a[0], {2, 3, 4})); },
        "torch.square(torch.broadcast_to(a, (2, 3, 4)))"),
});

}  // namespace
}  // namespace gradcheck
