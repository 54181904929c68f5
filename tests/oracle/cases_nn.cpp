// Neural-network ops: softmax, log_softmax, one_hot, conv2d, conv_transpose2d,
// max_pool2d, avg_pool2d, embedding.
#include <limits>

#include "oracle_table.hpp"

namespace oracle {
namespace {

const double inf = std::numeric_limits<double>::infinity();

// Integers in [-10, 10).
Tensor values(DType t, const Shape& s) { return sample(t, s, 10); }

void softmax_cases(Table& t) {
  for (const bool is_log : {false, true}) {
    const std::string fn = is_log ? "log_softmax" : "softmax";
    const auto run = [is_log](std::int64_t axis) {
      return [is_log, axis](const Ins& in) {
        return is_log ? tl::log_softmax(in[0], axis) : tl::softmax(in[0], axis);
      };
    };
    const std::vector<std::pair<Shape, std::int64_t>> cases = {
        {{3, 5}, -1}, {{3, 5}, 0}, {{2, 3, 4}, 1}, {{}, 0}};
    for (DType d : {DType::f32, DType::f64, DType::bf16, DType::i32})
      for (const auto& [s, axis] : cases) {
        if (d != DType::f32 && s.size() != 2) continue;
        // torch wants a floating input; tlaloc computes integers in f32 (DTYPES.md).
        const std::string in = is_float(d) ? "a" : "a.float()";
        const std::int64_t n =
            s.empty() ? 1 : s[std::size_t(axis < 0 ? axis + std::int64_t(s.size()) : axis)];
        t.add1("nn/" + fn + "/" + name_of(d) + shape_str(s) + "/axis" + std::to_string(axis),
               "torch." + fn + "(" + in + ", dim=" + std::to_string(axis) + ")", {values(d, s)}, run(axis),
               n);
      }
    // Large logits (no overflow), -inf entries, and rows whose maximum is infinite (NaN in both).
    const Tensor special = literal({1000, 1001, 999, -inf, 0, 1, -inf, -inf, -inf, inf, 1, 2, -1e30, 5, 1e30},
                                   {5, 3}, DType::f32);
    t.add1("nn/" + fn + "/f32/special", "torch." + fn + "(a, dim=1)", {special}, run(1), 3);
    t.add1("nn/" + fn + "/f64[4,300]", "torch." + fn + "(a, dim=1)", {normal({4, 300}, DType::f64, 5)},
           run(1), 300);
  }
}

void one_hot_cases(Table& t) {
  for (DType out : {DType::f32, DType::i64, DType::boolean, DType::bf16, DType::i32})
    t.add1("nn/one_hot(5)/i32->" + name_of(out), "F.one_hot(a.long(), 5).to(" + torch_dtype(out) + ")",
           {ints({2, 3}, 0, 5, DType::i32)}, [out](const Ins& in) { return tl::one_hot(in[0], 5, out); });
  for (DType idx : {DType::i8, DType::u8, DType::i64})
    t.add1("nn/one_hot(4)/" + name_of(idx), "F.one_hot(a.long(), 4).to(torch.float32)",
           {ints({5}, 0, 4, idx)}, [](const Ins& in) { return tl::one_hot(in[0], 4); });
  t.add1("nn/one_hot(3)/rank0", "F.one_hot(a.long(), 3).to(torch.float32)", {ints({}, 0, 3, DType::i64)},
         [](const Ins& in) { return tl::one_hot(in[0], 3); });
  // Out-of-range and negative indices give a row of zeros in tlaloc (as JAX); torch
  // refuses them, so they go to an extra class that is then dropped.
  t.add1("nn/one_hot(5)/out of range",
         "F.one_hot(torch.where((a >= 0) & (a < 5), a, 5).long(), 6)[..., :5].float()",
         {ints({3, 4}, -3, 8, DType::i32)}, [](const Ins& in) { return tl::one_hot(in[0], 5); });
}

std::string pair(const std::array<std::int64_t, 2>& p) { return py_tuple({p[0], p[1]}); }

struct Conv {
  Shape x, w;
  tl::Conv2dOptions o;
};

void conv2d_cases(Table& t) {
  const std::vector<Conv> cases = {
      {{2, 3, 7, 6}, {4, 3, 3, 3}, {}},
      {{2, 3, 7, 6}, {4, 3, 3, 2}, {{2, 1}, {0, 0}, {1, 1}, 1}},
      {{2, 3, 7, 6}, {4, 3, 3, 3}, {{1, 1}, {1, 2}, {1, 1}, 1}},
      {{2, 3, 7, 6}, {4, 3, 3, 3}, {{1, 1}, {0, 0}, {2, 1}, 1}},
      {{2, 6, 7, 6}, {6, 2, 3, 3}, {{1, 1}, {0, 0}, {1, 1}, 3}},
      {{1, 4, 5, 5}, {8, 1, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 4}},
      {{2, 4, 8, 9}, {6, 2, 3, 2}, {{2, 2}, {1, 1}, {1, 2}, 2}},
      {{1, 2, 1, 1}, {3, 2, 1, 1}, {}},
      {{1, 16, 12, 12}, {8, 16, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 1}},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    const std::string args = "stride=" + pair(c.o.stride) + ", padding=" + pair(c.o.padding) +
                             ", dilation=" + pair(c.o.dilation) + ", groups=" + std::to_string(c.o.groups);
    const std::int64_t k = c.w[1] * c.w[2] * c.w[3];
    for (DType d : {DType::f32, DType::f64, DType::bf16}) {
      if (d == DType::bf16 && i != 0 && i != 6) continue;
      t.add1(
          "nn/conv2d/" + std::to_string(i) + "/" + name_of(d) + shape_str(c.x) + shape_str(c.w),
          "F.conv2d(a, b, " + args + ")", {values(d, c.x), values(d, c.w)},
          [o = c.o](const Ins& in) { return tl::conv2d(in[0], in[1], o); }, k);
    }
  }
  // torch refuses mixed dtypes; tlaloc promotes (DTYPES.md).
  t.add1(
      "nn/conv2d/f32,f64", "F.conv2d(a.double(), b)",
      {values(DType::f32, {1, 2, 4, 4}), values(DType::f64, {3, 2, 2, 2})},
      [](const Ins& in) { return tl::conv2d(in[0], in[1]); }, 8);
}

struct ConvT {
  Shape x, w;
  tl::ConvTranspose2dOptions o;
};

void conv_transpose2d_cases(Table& t) {
  const std::vector<ConvT> cases = {
      {{2, 3, 4, 5}, {3, 2, 3, 3}, {}},
      {{2, 3, 4, 5}, {3, 2, 3, 3}, {{2, 2}, {0, 0}, {0, 0}, {1, 1}, 1}},
      {{2, 3, 4, 5}, {3, 2, 3, 3}, {{2, 2}, {1, 1}, {1, 1}, {1, 1}, 1}},
      {{1, 6, 4, 4}, {6, 2, 3, 3}, {{1, 1}, {0, 0}, {0, 0}, {1, 1}, 3}},
      {{1, 2, 4, 4}, {2, 3, 3, 2}, {{1, 1}, {0, 0}, {0, 0}, {2, 1}, 1}},
      {{2, 4, 3, 4}, {4, 3, 2, 3}, {{2, 3}, {1, 0}, {1, 2}, {1, 1}, 2}},
      {{1, 2, 3, 3}, {2, 2, 4, 4}, {{3, 2}, {2, 1}, {0, 1}, {2, 2}, 1}},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    const std::string args = "stride=" + pair(c.o.stride) + ", padding=" + pair(c.o.padding) +
                             ", output_padding=" + pair(c.o.output_padding) +
                             ", groups=" + std::to_string(c.o.groups) + ", dilation=" + pair(c.o.dilation);
    const std::int64_t k = c.x[1] / c.o.groups * c.w[2] * c.w[3];
    for (DType d : {DType::f32, DType::f64, DType::bf16}) {
      if (d == DType::bf16 && i != 2 && i != 5) continue;
      // torch 1.13's CPU conv_transpose2d fails for bf16 ("expected input ... to have 2
      // channels"); tlaloc computes bf16 convolutions in f32 and rounds once, as here.
      const std::string expr = d == DType::bf16
                                   ? "F.conv_transpose2d(a.float(), b.float(), " + args + ").bfloat16()"
                                   : "F.conv_transpose2d(a, b, " + args + ")";
      t.add1(
          "nn/conv_transpose2d/" + std::to_string(i) + "/" + name_of(d) + shape_str(c.x) + shape_str(c.w),
          expr, {values(d, c.x), values(d, c.w)},
          [o = c.o](const Ins& in) { return tl::conv_transpose2d(in[0], in[1], o); }, k);
    }
  }
}

struct Pool {
  Shape x;
  tl::Pool2dOptions o;
};

void pool_cases(Table& t) {
  const std::vector<Pool> cases = {
      {{2, 3, 6, 6}, {{2, 2}, {0, 0}, {0, 0}}}, {{1, 2, 7, 7}, {{3, 3}, {2, 2}, {1, 1}}},
      {{2, 2, 5, 6}, {{3, 2}, {1, 2}, {1, 0}}}, {{1, 1, 4, 5}, {{2, 2}, {1, 1}, {0, 0}}},
      {{1, 1, 5, 5}, {{5, 5}, {0, 0}, {2, 2}}},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    const std::array<std::int64_t, 2> stride = {c.o.stride[0] ? c.o.stride[0] : c.o.kernel[0],
                                                c.o.stride[1] ? c.o.stride[1] : c.o.kernel[1]};
    const std::string args =
        "kernel_size=" + pair(c.o.kernel) + ", stride=" + pair(stride) + ", padding=" + pair(c.o.padding);
    for (DType d : {DType::f32, DType::f64, DType::bf16, DType::i32, DType::u8}) {
      const std::string sfx = std::to_string(i) + "/" + name_of(d) + shape_str(c.x);
      const Ins in = {values(d, c.x)};
      // torch has no integer pooling on the CPU: the max of integers is exact in f64,
      // and tlaloc averages integers in f32 (DTYPES.md).
      const std::string max_in = is_float(d) ? "a" : "a.double()",
                        max_out = is_float(d) ? "" : ".to(a.dtype)";
      t.add1("nn/max_pool2d/" + sfx, "F.max_pool2d(" + max_in + ", " + args + ")" + max_out, in,
             [o = c.o](const Ins& v) { return tl::max_pool2d(v[0], o); });
      t.add1(
          "nn/avg_pool2d/" + sfx,
          "F.avg_pool2d(" + std::string(is_float(d) ? "a" : "a.float()") + ", " + args + ")", in,
          [o = c.o](const Ins& v) { return tl::avg_pool2d(v[0], o); }, c.o.kernel[0] * c.o.kernel[1]);
    }
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor special =
      literal({1, nan, 2, 3, -inf, -inf, 0, inf, 5, 4, nan, nan, -1, -2, -3, -4}, {1, 1, 4, 4}, DType::f32);
  t.add1("nn/max_pool2d/special", "F.max_pool2d(a, kernel_size=(2, 2))", {special},
         [](const Ins& in) { return tl::max_pool2d(in[0], {}); });
  t.add1(
      "nn/avg_pool2d/special", "F.avg_pool2d(a, kernel_size=(2, 2))", {special},
      [](const Ins& in) { return tl::avg_pool2d(in[0], {}); }, 4);
}

void embedding_cases(Table& t) {
  for (DType w : {DType::f32, DType::f64, DType::bf16, DType::i32})
    t.add1("nn/embedding/" + name_of(w) + "[10,4],i32[2,3]", "F.embedding(b.long(), a)",
           {values(w, {10, 4}), ints({2, 3}, 0, 10, DType::i32)},
           [](const Ins& in) { return tl::embedding(in[0], in[1]); });
  for (DType idx : {DType::i64, DType::u8, DType::i8})
    t.add1("nn/embedding/f32,idx " + name_of(idx), "F.embedding(b.long(), a)",
           {values(DType::f32, {10, 3}), ints({7}, 0, 10, idx)},
           [](const Ins& in) { return tl::embedding(in[0], in[1]); });
  t.add1("nn/embedding/rank-0 index", "F.embedding(b.long(), a)",
         {values(DType::f32, {10, 3}), ints({}, 0, 10, DType::i64)},
         [](const Ins& in) { return tl::embedding(in[0], in[1]); });
  // Negative indices count from the end (take's rule); torch refuses them.
  t.add1("nn/embedding/negative", "F.embedding(torch.where(b < 0, b + 10, b).long(), a)",
         {values(DType::f32, {10, 3}), ints({2, 4}, -10, 10, DType::i32)},
         [](const Ins& in) { return tl::embedding(in[0], in[1]); });
}

}  // namespace

void add_nn_cases(Table& t) {
  t.family("nn");
  softmax_cases(t);
  one_hot_cases(t);
  conv2d_cases(t);
  conv_transpose2d_cases(t);
  pool_cases(t);
  embedding_cases(t);
}

}  // namespace oracle
