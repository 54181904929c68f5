// Shape ops: reshape, transpose/permute, squeeze, expand_dims, broadcast_to,
// concat, stack, split, slice (with steps), pad (constant and edge), reverse,
// tile, repeat, iota. Data movement claims all nine dtypes.
#include <algorithm>

#include "oracle_table.hpp"

namespace oracle {
namespace {

// Integers in [-50, 50).
Tensor values(DType t, const Shape& s) { return sample(t, s, 50); }

std::string ints_text(const Ints& v) {  // "1, 2, 0"
  const std::string l = py_list(v);
  return l.substr(1, l.size() - 2);
}

// One case per dtype with the same shapes (every dtype moves the same way).
void each_dtype(Table& t, const std::string& name, const std::string& expr, const Shape& s,
                const std::function<Tensor(const Tensor&)>& fn) {
  for (DType d : torch_dtypes)
    t.add1(name + "/" + name_of(d) + shape_str(s), expr, {values(d, s)},
           [&fn](const Ins& in) { return fn(in[0]); });
}

void reshape_cases(Table& t) {
  each_dtype(t, "shape/reshape(4,-1)", "torch.reshape(a, (4, -1))", {2, 3, 4}, [](const Tensor& x) {
    return tl::reshape(x, {4, -1});
  });
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{2, 3, 4}, {24}}, {{6}, {1, 2, 1, 3}}, {{}, {1}}, {{1}, {}}, {{0, 3}, {3, 0, 5}}, {{2, 6}, {-1, 3}}};
  for (const auto& [from, to] : cases)
    t.add1("shape/reshape/f32" + shape_str(from) + "->" + shape_str(to),
           "torch.reshape(a, " + py_tuple(to) + ")", {values(DType::f32, from)},
           [to = to](const Ins& in) { return tl::reshape(in[0], to); });
}

void transpose_cases(Table& t) {
  each_dtype(t, "shape/transpose()", "a.permute(2, 1, 0)", {2, 3, 4},
             [](const Tensor& x) { return tl::transpose(x); });
  for (const Ints& perm : std::vector<Ints>{{1, 2, 0}, {0, 2, 1}, {2, 0, 1}, {-1, 0, -2}})
    t.add1("shape/transpose" + py_list(perm) + "/f32", "a.permute(" + ints_text(perm) + ")",
           {values(DType::f32, {2, 3, 4})}, [perm](const Ins& in) { return tl::transpose(in[0], perm); });
  t.add1("shape/permute[1,0]/i32", "a.permute(1, 0)", {values(DType::i32, {3, 5})}, [](const Ins& in) {
    return tl::permute(in[0], {1, 0});
  });
  t.add1("shape/transpose()/f32[5]", "a.permute(0)", {values(DType::f32, {5})},
         [](const Ins& in) { return tl::transpose(in[0]); });
}

void squeeze_cases(Table& t) {
  const Shape s = {1, 3, 1, 4, 1};
  each_dtype(t, "shape/squeeze()", "torch.squeeze(a)", s, [](const Tensor& x) { return tl::squeeze(x); });
  // torch squeezes one axis at a time: from the last so the others keep their index.
  const std::vector<std::pair<Ints, std::string>> cases = {{{0, 2}, "a.squeeze(2).squeeze(0)"},
                                                           {{-1}, "a.squeeze(4)"},
                                                           {{4, 0, 2}, "a.squeeze(4).squeeze(2).squeeze(0)"}};
  for (const auto& [axes, expr] : cases)
    t.add1("shape/squeeze" + py_list(axes) + "/f32", expr, {values(DType::f32, s)},
           [axes = axes](const Ins& in) { return tl::squeeze(in[0], tl::Axes(axes)); });
  t.add1("shape/squeeze()/f32[1,1]", "torch.squeeze(a)", {values(DType::f32, {1, 1})},
         [](const Ins& in) { return tl::squeeze(in[0]); });
}

void expand_broadcast_cases(Table& t) {
  for (std::int64_t axis : {0, 1, 3, -1, -4})
    t.add1("shape/expand_dims(" + std::to_string(axis) + ")/f32",
           "torch.unsqueeze(a, " + std::to_string(axis) + ")", {values(DType::f32, {2, 3, 4})},
           [axis](const Ins& in) { return tl::expand_dims(in[0], axis); });
  each_dtype(t, "shape/expand_dims(-1)", "torch.unsqueeze(a, -1)", {2, 3},
             [](const Tensor& x) { return tl::expand_dims(x, -1); });
  each_dtype(t, "shape/broadcast_to(2,3,4)", "torch.broadcast_to(a, (2, 3, 4))", {3, 1}, [](const Tensor& x) {
    return tl::broadcast_to(x, {2, 3, 4});
  });
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{}, {2, 2}}, {{4}, {3, 4}}, {{1, 3}, {0, 3}}, {{2, 1, 1}, {2, 3, 5}}};
  for (const auto& [from, to] : cases)
    t.add1("shape/broadcast_to/f32" + shape_str(from) + "->" + shape_str(to),
           "torch.broadcast_to(a, " + py_tuple(to) + ")", {values(DType::f32, from)},
           [to = to](const Ins& in) { return tl::broadcast_to(in[0], to); });
}

void concat_stack_cases(Table& t) {
  const auto cat3 = [](std::int64_t axis) {
    return [axis](const Ins& in) { return tl::concat({in[0], in[1], in[2]}, axis); };
  };
  for (DType d : torch_dtypes)
    t.add1("shape/concat(1)/" + name_of(d), "torch.cat([a, b, c], dim=1)",
           {values(d, {2, 3}), values(d, {2, 1}), values(d, {2, 0})}, cat3(1));
  t.add1("shape/concat(0)/f32", "torch.cat([a, b, c], dim=0)",
         {values(DType::f32, {1, 4}), values(DType::f32, {3, 4}), values(DType::f32, {2, 4})}, cat3(0));
  t.add1("shape/concat(-1)/f32,i32,f64", "torch.cat([a, b, c], dim=-1)",
         {values(DType::f32, {2, 2, 1}), values(DType::i32, {2, 2, 3}), values(DType::f64, {2, 2, 2})},
         cat3(-1));
  t.add1("shape/concat(0)/bool,i8,bool", "torch.cat([a, b, c], dim=0)",
         {values(DType::boolean, {2}), values(DType::i8, {3}), values(DType::boolean, {1})}, cat3(0));
  // u8 with i8 is i16, in tlaloc as in torch.
  t.add1("shape/concat(0)/u8,i8", "torch.cat([a, b], dim=0)",
         {values(DType::u8, {2}), values(DType::i8, {3})}, [](const Ins& in) {
           return tl::concat({in[0], in[1]}, 0);
         });
  t.add1("shape/concat(0)/one", "torch.cat([a], dim=0)", {values(DType::f32, {2, 3})},
         [](const Ins& in) { return tl::concat({in[0]}, 0); });
  for (std::int64_t axis : {0, 1, 2, -1})
    t.add1("shape/stack(" + std::to_string(axis) + ")/f32",
           "torch.stack([a, b, c], dim=" + std::to_string(axis) + ")",
           {values(DType::f32, {2, 3}), values(DType::f32, {2, 3}), values(DType::f32, {2, 3})},
           [axis](const Ins& in) {
             return tl::stack({in[0], in[1], in[2]}, axis);
           });
  for (DType d : torch_dtypes)
    t.add1("shape/stack(1)/" + name_of(d), "torch.stack([a, b], dim=1)", {values(d, {3}), values(d, {3})},
           [](const Ins& in) {
             return tl::stack({in[0], in[1]}, 1);
           });
  t.add1("shape/stack(0)/i32,f64", "torch.stack([a, b], dim=0)",
         {values(DType::i32, {2, 2}), values(DType::f64, {2, 2})}, [](const Ins& in) {
           return tl::stack({in[0], in[1]}, 0);
         });
  t.add1("shape/stack(0)/rank0", "torch.stack([a, b], dim=0)",
         {values(DType::f32, {}), values(DType::f32, {})}, [](const Ins& in) {
           return tl::stack({in[0], in[1]}, 0);
         });
}

void split_cases(Table& t) {
  for (DType d : {DType::f32, DType::i64, DType::boolean, DType::bf16})
    t.add("shape/split(3 sections,1)/" + name_of(d), "torch.tensor_split(a, 3, dim=1)",
          {values(d, {2, 6, 4})}, [](const Ins& in) { return tl::split(in[0], 3, 1); });
  t.add("shape/split(1 section,0)/f32", "torch.tensor_split(a, 1, dim=0)", {values(DType::f32, {4, 2})},
        [](const Ins& in) { return tl::split(in[0], 1, 0); });
  t.add("shape/split([1,0,3],-1)/f32", "torch.split(a, [1, 0, 3], dim=-1)", {values(DType::f32, {2, 3, 4})},
        [](const Ins& in) {
          return tl::split(in[0], Ints{1, 0, 3}, -1);
        });
  t.add("shape/split([2,3],0)/i32", "torch.split(a, [2, 3], dim=0)", {values(DType::i32, {5, 2})},
        [](const Ins& in) {
          return tl::split(in[0], Ints{2, 3}, 0);
        });
}

// Python slices: start:stop:step per axis; stops past the end are clamped as in Python.
void slice_cases(Table& t) {
  struct S {
    Ints starts, stops, steps;
  };
  const std::vector<S> cases = {{{1, 0, 2}, {5, 10, 3}, {2, 3, 1}},
                                {{0, 1, 0}, {5, 6, 4}, {}},
                                {{4, 2, 0}, {5, 6, 4}, {3, 2, 4}},
                                {{6, 0, 0}, {7, 6, 4}, {1, 1, 1}},
                                {{3, 4, 1}, {1, 6, 2}, {1, 1, 1}}};
  for (const auto& c : cases) {
    std::string idx;
    for (std::size_t d = 0; d < 3; ++d)
      idx += (d ? ", " : "") + std::to_string(c.starts[d]) + ":" + std::to_string(c.stops[d]) + ":" +
             std::to_string(c.steps.empty() ? 1 : c.steps[d]);
    t.add1("shape/slice[" + idx + "]/f32", "a[" + idx + "]", {values(DType::f32, {5, 6, 4})},
           [c](const Ins& in) { return tl::slice(in[0], c.starts, c.stops, c.steps); });
  }
  each_dtype(t, "shape/slice[::2,1:3]", "a[0:5:2, 1:3]", {5, 4}, [](const Tensor& x) {
    return tl::slice(x, {0, 1}, {5, 3}, {2, 1});
  });
  struct One {
    std::int64_t axis, start, stop, step;
    std::string py;
  };
  const std::vector<One> ones = {{1, -4, -1, 2, "a[:, -4:-1:2]"},
                                 {-1, -100, 100, 3, "a[..., -100:100:3]"},
                                 {0, 2, 1, 1, "a[2:1]"},
                                 {2, 1, 4, 1, "a[:, :, 1:4]"},
                                 {0, -1, 5, 1, "a[-1:5]"}};
  for (const auto& o : ones)
    t.add1("shape/slice(axis " + std::to_string(o.axis) + ")/" + o.py, o.py, {values(DType::f32, {5, 6, 4})},
           [o](const Ins& in) { return tl::slice(in[0], o.axis, o.start, o.stop, o.step); });
}

using Widths = std::vector<std::pair<std::int64_t, std::int64_t>>;

// F.pad lists (low, high) pairs from the last axis to the first.
std::string fpad_widths(const Widths& w) {
  Ints flat;
  for (auto it = w.rbegin(); it != w.rend(); ++it) flat.insert(flat.end(), {it->first, it->second});
  return py_tuple(flat);
}

std::string widths_text(const Widths& w) {
  std::string s = "[";
  for (std::size_t i = 0; i < w.size(); ++i)
    s += (i ? ", (" : "(") + std::to_string(w[i].first) + ", " + std::to_string(w[i].second) + ")";
  return s + "]";
}

void pad_cases(Table& t) {
  const Widths w2 = {{1, 2}, {0, 3}};
  for (DType d : torch_dtypes) {
    const bool f = is_float(d);
    const bool u = d == DType::u8;
    const tl::Scalar v = d == DType::boolean ? tl::Scalar(true)
                         : f                 ? tl::Scalar(1.5)
                                             : tl::Scalar(u ? 7 : -3);
    const std::string pv = d == DType::boolean ? "True" : f ? "1.5" : u ? "7" : "-3";
    t.add1("shape/pad constant/" + name_of(d), "F.pad(a, " + fpad_widths(w2) + ", value=" + pv + ")",
           {values(d, {2, 3})},
           [&w2, v](const Ins& in) { return tl::pad(in[0], w2, tl::PadMode::constant, v); });
    t.add1("shape/pad edge/" + name_of(d), "edge_pad(a, " + widths_text(w2) + ")", {values(d, {2, 3})},
           [&w2](const Ins& in) { return tl::pad(in[0], w2, tl::PadMode::edge); });
  }
  const Widths w3 = {{2, 0}, {1, 1}, {0, 2}};
  t.add1("shape/pad constant/f32[2,3,4]", "F.pad(a, " + fpad_widths(w3) + ")",
         {values(DType::f32, {2, 3, 4})}, [&w3](const Ins& in) { return tl::pad(in[0], w3); });
  t.add1("shape/pad edge/f32[2,3,4]", "edge_pad(a, " + widths_text(w3) + ")", {values(DType::f32, {2, 3, 4})},
         [&w3](const Ins& in) { return tl::pad(in[0], w3, tl::PadMode::edge); });
  const Widths w1 = {{3, 4}};
  t.add1("shape/pad edge/f64[1]", "edge_pad(a, " + widths_text(w1) + ")", {values(DType::f64, {1})},
         [&w1](const Ins& in) { return tl::pad(in[0], w1, tl::PadMode::edge); });
  t.add1("shape/pad constant/f32[0,2]", "F.pad(a, " + fpad_widths({{1, 1}, {0, 0}}) + ", value=2.0)",
         {values(DType::f32, {0, 2})}, [](const Ins& in) {
           return tl::pad(in[0], {{1, 1}, {0, 0}}, tl::PadMode::constant, 2.0);
         });
}

void reverse_tile_repeat_cases(Table& t) {
  each_dtype(t, "shape/reverse(0,2)", "torch.flip(a, dims=(0, 2))", {2, 3, 4}, [](const Tensor& x) {
    return tl::reverse(x, tl::Axes{0, 2});
  });
  t.add1("shape/reverse(all)/f32", "torch.flip(a, dims=(0, 1, 2))", {values(DType::f32, {2, 3, 4})},
         [](const Ins& in) { return tl::reverse(in[0], tl::Axes{}); });
  t.add1("shape/reverse(-1)/i32", "torch.flip(a, dims=(-1,))", {values(DType::i32, {3, 5})},
         [](const Ins& in) { return tl::reverse(in[0], tl::Axes(-1)); });
  each_dtype(t, "shape/tile(2,1,3)", "torch.tile(a, (2, 1, 3))", {2, 3}, [](const Tensor& x) {
    return tl::tile(x, {2, 1, 3});
  });
  for (const Ints& reps : std::vector<Ints>{{2}, {3, 2}, {0, 2}, {1, 1, 2, 1}})
    t.add1("shape/tile" + py_list(reps) + "/f32", "torch.tile(a, " + py_tuple(reps) + ")",
           {values(DType::f32, {2, 3})}, [reps](const Ins& in) { return tl::tile(in[0], reps); });
  each_dtype(t, "shape/repeat(3,1)", "torch.repeat_interleave(a, 3, dim=1)", {2, 3},
             [](const Tensor& x) { return tl::repeat(x, 3, 1); });
  for (std::int64_t axis : {0, -1})
    for (std::int64_t r : {0, 1, 2})
      t.add1("shape/repeat(" + std::to_string(r) + "," + std::to_string(axis) + ")/f32",
             "torch.repeat_interleave(a, " + std::to_string(r) + ", dim=" + std::to_string(axis) + ")",
             {values(DType::f32, {2, 3, 2})},
             [r, axis](const Ins& in) { return tl::repeat(in[0], r, axis); });
}

void iota_cases(Table& t) {
  const Shape s = {2, 3, 4};
  for (std::int64_t axis : {0, 1, 2, -1})
    for (DType d : {DType::i64, DType::i32, DType::f32, DType::bf16, DType::u8}) {
      const std::size_t a = std::size_t(axis < 0 ? axis + 3 : axis);
      Shape view(3, 1);
      view[a] = s[a];
      const std::string expr = "torch.arange(" + std::to_string(s[a]) + ").reshape" + py_tuple(view) +
                               ".expand" + py_tuple(s) + ".to(" + torch_dtype(d) + ")";
      t.add1("shape/iota(axis " + std::to_string(axis) + ")/" + name_of(d), expr, {},
             [&s, axis, d](const Ins&) { return tl::iota(s, axis, d); });
    }
}

}  // namespace

void add_shape_cases(Table& t) {
  t.family("shape");
  reshape_cases(t);
  transpose_cases(t);
  squeeze_cases(t);
  expand_broadcast_cases(t);
  concat_stack_cases(t);
  split_cases(t);
  slice_cases(t);
  pad_cases(t);
  reverse_tile_repeat_cases(t);
  iota_cases(t);
}

}  // namespace oracle
