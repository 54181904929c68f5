// Gathers and scatters along one axis: take, take_along_axis, scatter_add,
// index_add; dynamic_slice and dynamic_update_slice (starts clamped as in
// StableHLO). Negative indices count from the end as in NumPy.
#include "oracle_table.hpp"

namespace oracle {
namespace {

// Integers in [-50, 50).
Tensor values(DType t, const Shape& s) { return sample(t, s, 50); }

// torch indexes with int64 only (a u8 index would be a mask): the oracle converts.
void take_cases(Table& t) {
  const Shape s = {4, 5, 3};
  const std::vector<std::pair<std::int64_t, std::string>> axes = {
      {0, "a[b.long()]"}, {1, "a[:, b.long()]"}, {2, "a[:, :, b.long()]"}, {-1, "a[..., b.long()]"}};
  for (const auto& [axis, expr] : axes) {
    const std::int64_t n = s[std::size_t(axis < 0 ? axis + 3 : axis)];
    t.add1("index/take(axis " + std::to_string(axis) + ")/f32,i32[2,3]", expr,
           {values(DType::f32, s), ints({2, 3}, 0, n, DType::i32)},
           [axis = axis](const Ins& in) { return tl::take(in[0], in[1], axis); });
    t.add1("index/take(axis " + std::to_string(axis) + ")/negative", expr,
           {values(DType::f32, s), ints({4}, -n, n, DType::i64)},
           [axis = axis](const Ins& in) { return tl::take(in[0], in[1], axis); });
  }
  for (DType d : torch_dtypes)
    t.add1("index/take(axis 0)/" + name_of(d), "a[b.long()]", {values(d, s), ints({3}, -4, 4, DType::i64)},
           [](const Ins& in) { return tl::take(in[0], in[1], 0); });
  for (DType it : {DType::i8, DType::u8, DType::i64})
    t.add1("index/take(axis 1)/index " + name_of(it), "a[:, b.long()]",
           {values(DType::f64, s), ints({5}, 0, 5, it)},
           [](const Ins& in) { return tl::take(in[0], in[1], 1); });
  t.add1("index/take/rank-0 index", "a[b.long()]", {values(DType::f32, s), ints({}, 0, 4, DType::i32)},
         [](const Ins& in) { return tl::take(in[0], in[1], 0); });
  t.add1("index/take/empty index", "a[:, b.long()]", {values(DType::f32, s), ints({0}, 0, 4, DType::i32)},
         [](const Ins& in) { return tl::take(in[0], in[1], 1); });
}

void take_along_cases(Table& t) {
  for (DType d : torch_dtypes)
    t.add1("index/take_along_axis(1)/" + name_of(d), "torch.take_along_dim(a, b.long(), dim=1)",
           {values(d, {3, 4, 5}), ints({3, 2, 5}, 0, 4, DType::i32)},
           [](const Ins& in) { return tl::take_along_axis(in[0], in[1], 1); });
  t.add1("index/take_along_axis(-1)/broadcast", "torch.take_along_dim(a, b.long(), dim=-1)",
         {values(DType::f32, {3, 4, 5}), ints({1, 4, 7}, 0, 5, DType::i64)},
         [](const Ins& in) { return tl::take_along_axis(in[0], in[1], -1); });
  t.add1("index/take_along_axis(0)/broadcast x", "torch.take_along_dim(a, b.long(), dim=0)",
         {values(DType::f32, {3, 1, 5}), ints({2, 4, 5}, 0, 3, DType::u8)},
         [](const Ins& in) { return tl::take_along_axis(in[0], in[1], 0); });
  // torch.gather has no negative indices; NumPy's meaning (count from the end) is
  // spelled out.
  t.add1("index/take_along_axis(1)/negative",
         "torch.take_along_dim(a, torch.where(b < 0, b + 4, b).long(), dim=1)",
         {values(DType::f32, {3, 4, 5}), ints({3, 6, 5}, -4, 4, DType::i8)},
         [](const Ins& in) { return tl::take_along_axis(in[0], in[1], 1); });
}

void scatter_add_cases(Table& t) {
  // Duplicate indices add up: six updates into four slots.
  for (DType d : {DType::f32, DType::f64, DType::bf16, DType::i32, DType::i64, DType::u8, DType::i8})
    t.add1(
        "index/scatter_add(1)/" + name_of(d), "torch.scatter_add(a, 1, b.long(), c)",
        {values(d, {3, 4}), ints({3, 6}, 0, 4, DType::i32), values(d, {3, 6})},
        [](const Ins& in) { return tl::scatter_add(in[0], in[1], in[2], 1); }, 7);
  t.add1(
      "index/scatter_add(0)/f32[4,3,2]", "torch.scatter_add(a, 0, b.long(), c)",
      {values(DType::f32, {4, 3, 2}), ints({5, 3, 2}, 0, 4, DType::i64), values(DType::f32, {5, 3, 2})},
      [](const Ins& in) { return tl::scatter_add(in[0], in[1], in[2], 0); }, 6);
  // Updates take x's dtype, as an assignment into x would (ops.hpp, indexing.cpp).
  t.add1(
      "index/scatter_add(1)/f32,updates f64", "torch.scatter_add(a, 1, b.long(), c.to(a.dtype))",
      {values(DType::f32, {3, 4}), ints({3, 2}, 0, 4, DType::i32), values(DType::f64, {3, 2})},
      [](const Ins& in) { return tl::scatter_add(in[0], in[1], in[2], 1); }, 3);
  t.add1(
      "index/scatter_add(-1)/negative", "torch.scatter_add(a, 1, torch.where(b < 0, b + 4, b).long(), c)",
      {values(DType::f32, {3, 4}), ints({3, 5}, -4, 4, DType::i32), values(DType::f32, {3, 5})},
      [](const Ins& in) { return tl::scatter_add(in[0], in[1], in[2], -1); }, 6);
}

void index_add_cases(Table& t) {
  for (DType d : {DType::f32, DType::f64, DType::bf16, DType::i32, DType::i64, DType::u8})
    t.add1(
        "index/index_add(0)/" + name_of(d), "torch.index_add(a, 0, b.long(), c)",
        {values(d, {5, 3}), ints({7}, 0, 5, DType::i32), values(d, {7, 3})},
        [](const Ins& in) { return tl::index_add(in[0], in[1], in[2], 0); }, 8);
  // A 2-D index: the same as its flattened form with the updates reshaped to match.
  t.add1(
      "index/index_add(1)/index[2,2]", "torch.index_add(a, 1, b.flatten().long(), c.reshape(3, 4, 2))",
      {values(DType::f32, {3, 5, 2}), ints({2, 2}, 0, 5, DType::i64), values(DType::f32, {3, 2, 2, 2})},
      [](const Ins& in) { return tl::index_add(in[0], in[1], in[2], 1); }, 5);
  t.add1(
      "index/index_add(-1)/negative", "torch.index_add(a, 1, torch.where(b < 0, b + 4, b).long(), c)",
      {values(DType::f32, {3, 4}), ints({6}, -4, 4, DType::i8), values(DType::f32, {3, 6})},
      [](const Ins& in) { return tl::index_add(in[0], in[1], in[2], -1); }, 7);
  t.add1("index/index_add(0)/i32,updates f32", "torch.index_add(a, 0, b.long(), c.to(a.dtype))",
         {values(DType::i32, {4, 2}), ints({3}, 0, 4, DType::i32), values(DType::f32, {3, 2})},
         [](const Ins& in) { return tl::index_add(in[0], in[1], in[2], 0); });
}

// dyn_slice / dyn_update (check_torch.py) clamp the starts into [0, size - window].
void dynamic_slice_cases(Table& t) {
  const Shape s = {5, 6, 4};
  const std::vector<std::pair<Ints, Shape>> cases = {
      {{1, 2, 0}, {2, 3, 4}}, {{4, 5, 3}, {3, 2, 2}}, {{-2, 1, -7}, {2, 6, 1}}, {{0, 0, 0}, {0, 6, 4}}};
  for (const auto& [starts, sizes] : cases)
    t.add1(
        "index/dynamic_slice" + py_list(starts) + shape_str(sizes),
        "dyn_slice(a, " + py_list(starts) + ", " + py_list(sizes) + ")", {values(DType::f32, s)},
        [starts = starts, sizes = sizes](const Ins& in) { return tl::dynamic_slice(in[0], starts, sizes); });
  for (DType d : torch_dtypes)
    t.add1("index/dynamic_slice/" + name_of(d), "dyn_slice(a, [3, 1, 1], [2, 2, 3])", {values(d, s)},
           [](const Ins& in) {
             return tl::dynamic_slice(in[0], {3, 1, 1}, {2, 2, 3});
           });
  const std::vector<std::pair<Ints, Shape>> updates = {
      {{1, 2, 0}, {2, 3, 4}}, {{4, 5, 3}, {3, 2, 2}}, {{-2, 1, -7}, {2, 6, 1}}, {{0, 0, 0}, {5, 6, 4}}};
  for (const auto& [starts, us] : updates)
    t.add1("index/dynamic_update_slice" + py_list(starts) + shape_str(us),
           "dyn_update(a, b, " + py_list(starts) + ")", {values(DType::f32, s), values(DType::f32, us)},
           [starts = starts](const Ins& in) { return tl::dynamic_update_slice(in[0], in[1], starts); });
  for (DType d : torch_dtypes)
    t.add1("index/dynamic_update_slice/" + name_of(d), "dyn_update(a, b, [3, 1, 1])",
           {values(d, s), values(d, {2, 2, 3})}, [](const Ins& in) {
             return tl::dynamic_update_slice(in[0], in[1], {3, 1, 1});
           });
  // The update takes x's dtype, as an assignment would.
  t.add1("index/dynamic_update_slice/i32,update f32", "dyn_update(a, b, [0, 0, 0])",
         {values(DType::i32, s), values(DType::f32, {1, 2, 2})}, [](const Ins& in) {
           return tl::dynamic_update_slice(in[0], in[1], {0, 0, 0});
         });
}

}  // namespace

void add_index_cases(Table& t) {
  t.family("index");
  take_cases(t);
  take_along_cases(t);
  scatter_add_cases(t);
  index_add_cases(t);
  dynamic_slice_cases(t);
}

}  // namespace oracle
