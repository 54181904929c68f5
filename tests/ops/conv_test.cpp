// conv2d and conv_transpose2d against direct loops written here in double: the
// textbook sum for conv2d, and the scatter definition (each input pixel adds
// itself times the kernel) for conv_transpose2d.
#include <gtest/gtest.h>

#include <tlaloc/derivatives.hpp>
#include <tlaloc/tlaloc.hpp>

#include "support/expect_error.hpp"

#include "ir/op.hpp"

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tl = tlaloc;

namespace {

using tltest::expect_error;

// Deterministic values in [-1, 1).
std::vector<double> noise(std::size_t n, std::uint32_t seed) {
  std::vector<double> v(n);
  std::uint32_t s = seed * 2654435761u + 1;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = double(s >> 8) / double(1 << 23) - 1.0;
  }
  return v;
}

std::size_t count(const tl::Shape& s) {
  std::size_t n = 1;
  for (auto d : s) n *= std::size_t(d);
  return n;
}

tl::Tensor make(const tl::Shape& s, std::uint32_t seed, tl::DType t = tl::DType::f64) {
  return tl::tensor(noise(count(s), seed), s).astype(t);
}

struct Conv {
  std::int64_t n, c, h, w, o, kh, kw;
  tl::Conv2dOptions opt;
};

// out[n, o, y, x] = sum over the group's channels and taps of x * w.
std::vector<double> conv_ref(const std::vector<double>& x, const std::vector<double>& w, const Conv& p,
                             std::int64_t oh, std::int64_t ow) {
  const std::int64_t g = p.opt.groups, cg = p.c / g, og = p.o / g;
  std::vector<double> out(std::size_t(p.n * p.o * oh * ow), 0.0);
  for (std::int64_t n = 0; n < p.n; ++n)
    for (std::int64_t o = 0; o < p.o; ++o)
      for (std::int64_t y = 0; y < oh; ++y)
        for (std::int64_t xo = 0; xo < ow; ++xo) {
          double acc = 0;
          for (std::int64_t c = 0; c < cg; ++c)
            for (std::int64_t i = 0; i < p.kh; ++i)
              for (std::int64_t j = 0; j < p.kw; ++j) {
                const std::int64_t iy = y * p.opt.stride[0] - p.opt.padding[0] + i * p.opt.dilation[0];
                const std::int64_t ix = xo * p.opt.stride[1] - p.opt.padding[1] + j * p.opt.dilation[1];
                if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w) continue;
                const std::int64_t ci = (o / og) * cg + c;
                acc += x[std::size_t(((n * p.c + ci) * p.h + iy) * p.w + ix)] *
                       w[std::size_t(((o * cg + c) * p.kh + i) * p.kw + j)];
              }
          out[std::size_t(((n * p.o + o) * oh + y) * ow + xo)] = acc;
        }
  return out;
}

std::int64_t out_size(std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t p, std::int64_t d) {
  return (in + 2 * p - d * (k - 1) - 1) / s + 1;
}

void expect_near_all(const std::vector<double>& got, const std::vector<double>& want, double tol,
                     const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << what << " at " << i;
}

void check_conv(const Conv& p, tl::DType t, double tol) {
  const tl::Shape xs{p.n, p.c, p.h, p.w}, ws{p.o, p.c / p.opt.groups, p.kh, p.kw};
  const auto xv = noise(count(xs), 1), wv = noise(count(ws), 2);
  const tl::Tensor x = tl::tensor(xv, xs).astype(t), w = tl::tensor(wv, ws).astype(t);
  // The reference reads the same (rounded) values the op sees.
  const auto xr = x.to_vector<double>(), wr = w.to_vector<double>();
  const std::int64_t oh = out_size(p.h, p.kh, p.opt.stride[0], p.opt.padding[0], p.opt.dilation[0]);
  const std::int64_t ow = out_size(p.w, p.kw, p.opt.stride[1], p.opt.padding[1], p.opt.dilation[1]);
  const tl::Tensor y = tl::conv2d(x, w, p.opt);
  EXPECT_EQ(y.dtype(), t);
  ASSERT_EQ(y.shape(), (tl::Shape{p.n, p.o, oh, ow}));
  expect_near_all(y.to_vector<double>(), conv_ref(xr, wr, p, oh, ow), tol, tl::shape_string(xs));
}

std::vector<Conv> conv_cases() {
  std::vector<Conv> v;
  v.push_back({1, 1, 5, 5, 1, 3, 3, {}});
  v.push_back({3, 4, 7, 6, 5, 3, 2, {}});
  v.push_back({2, 3, 9, 8, 4, 3, 3, {{2, 2}, {1, 1}, {1, 1}, 1}});    // stride + padding
  v.push_back({2, 3, 9, 10, 2, 3, 3, {{1, 2}, {2, 0}, {2, 3}, 1}});   // dilation, mixed per axis
  v.push_back({2, 4, 6, 6, 6, 3, 3, {{1, 1}, {1, 1}, {1, 1}, 2}});    // groups
  v.push_back({2, 6, 8, 7, 6, 3, 3, {{2, 1}, {1, 1}, {1, 1}, 6}});    // depthwise
  v.push_back({2, 6, 5, 5, 12, 3, 3, {{1, 1}, {1, 1}, {1, 1}, 6}});   // depthwise, multiplier 2
  v.push_back({3, 5, 4, 6, 7, 1, 1, {}});                             // pointwise, no im2col
  v.push_back({2, 4, 5, 6, 4, 1, 1, {{1, 1}, {0, 0}, {1, 1}, 2}});    // pointwise with groups
  v.push_back({2, 5, 7, 7, 3, 1, 1, {{2, 3}, {1, 0}, {1, 1}, 1}});    // 1x1 with stride and padding
  v.push_back({1, 2, 3, 3, 2, 3, 3, {{1, 1}, {2, 2}, {1, 1}, 1}});    // padding larger than the kernel
  v.push_back({1, 2, 4, 4, 3, 4, 4, {}});                             // kernel as large as the input
  v.push_back({6, 3, 15, 20, 4, 3, 3, {{1, 1}, {1, 1}, {1, 1}, 1}});  // batch in chunks of 4 and 2
  v.push_back({2, 3, 40, 40, 2, 3, 3, {{1, 1}, {1, 1}, {1, 1}, 1}});  // one gemm per item
  return v;
}

TEST(Conv2d, HandExample) {
  // x = 1..9 in a 3x3 image, w = [[1, 0], [0, 1]]: each output is x[y][x] + x[y+1][x+1].
  const tl::Tensor x = tl::tensor(std::vector<float>{1.f, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 1, 3, 3});
  const tl::Tensor w = tl::tensor(std::vector<float>{1.f, 0, 0, 1}, {1, 1, 2, 2});
  const tl::Tensor y = tl::conv2d(x, w);
  EXPECT_EQ(y.shape(), (tl::Shape{1, 1, 2, 2}));
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{6, 8, 12, 14}));
  tl::Conv2dOptions pad;
  pad.padding = {1, 1};
  // With one pixel of zero padding the corner output only sees x[0][0] through w[1][1].
  EXPECT_EQ(tl::conv2d(x, w, pad).to_vector<float>()[0], 1.f);
}

TEST(Conv2d, MatchesDirectLoopF64) {
  for (const Conv& p : conv_cases()) check_conv(p, tl::DType::f64, 1e-12);
}

TEST(Conv2d, MatchesDirectLoopF32) {
  for (const Conv& p : conv_cases()) check_conv(p, tl::DType::f32, 1e-5);
}

TEST(Conv2d, HalfPrecisionComputesInF32) {
  // Sums of up to 36 products of values in [-1, 1]: bf16 has 8 bits of mantissa.
  check_conv({2, 4, 6, 6, 6, 3, 3, {{1, 1}, {1, 1}, {1, 1}, 2}}, tl::DType::bf16, 0.05);
  check_conv({2, 4, 6, 6, 6, 3, 3, {{2, 1}, {1, 0}, {1, 2}, 1}}, tl::DType::f16, 0.01);
}

TEST(Conv2d, MixedFloatTypesPromote) {
  const tl::Tensor x = make({1, 2, 4, 4}, 3, tl::DType::f32), w = make({3, 2, 3, 3}, 4, tl::DType::f64);
  const tl::Tensor y = tl::conv2d(x, w);
  EXPECT_EQ(y.dtype(), tl::DType::f64);
  const Conv p{1, 2, 4, 4, 3, 3, 3, {}};
  expect_near_all(y.to_vector<double>(), conv_ref(x.to_vector<double>(), w.to_vector<double>(), p, 2, 2),
                  1e-12, "mixed");
}

TEST(Conv2d, EmptyTensors) {
  EXPECT_EQ(tl::conv2d(tl::zeros({0, 3, 5, 5}), tl::zeros({4, 3, 3, 3})).shape(), (tl::Shape{0, 4, 3, 3}));
  EXPECT_EQ(tl::conv2d(tl::zeros({2, 3, 5, 5}), tl::zeros({0, 3, 3, 3})).shape(), (tl::Shape{2, 0, 3, 3}));
  // No input channels: every output is an empty sum.
  const tl::Tensor y = tl::conv2d(tl::zeros({2, 0, 5, 5}), tl::zeros({4, 0, 3, 3}));
  EXPECT_EQ(y.shape(), (tl::Shape{2, 4, 3, 3}));
  EXPECT_TRUE(tl::allclose(y, tl::zeros({2, 4, 3, 3})));
  // An empty image with enough padding: the window sees only zeros.
  tl::Conv2dOptions pad;
  pad.padding = {1, 1};
  const tl::Tensor z = tl::conv2d(tl::zeros({1, 1, 0, 0}), tl::ones({1, 1, 2, 2}), pad);
  EXPECT_EQ(z.shape(), (tl::Shape{1, 1, 1, 1}));
  EXPECT_EQ(z.item<float>(), 0.f);
}


TEST(Conv2d, Errors) {
  const tl::Tensor x = tl::zeros({1, 4, 5, 5}), w = tl::zeros({2, 4, 3, 3});
  auto conv = [](const tl::Tensor& a, const tl::Tensor& b, tl::Conv2dOptions o = {}) {
    return [=] { tl::conv2d(a, b, o); };
  };
  expect_error<tl::ShapeError>(conv(tl::zeros({4, 5, 5}), w), "conv2d");
  expect_error<tl::ShapeError>(conv(x, tl::zeros({2, 4, 3})), "conv2d");
  expect_error<tl::DTypeError>(conv(x.astype(tl::DType::i32), w), "conv2d");
  expect_error<tl::DTypeError>(conv(x, w.astype(tl::DType::i64)), "conv2d");
  expect_error<tl::ShapeError>(conv(x, tl::zeros({2, 3, 3, 3})), "conv2d");         // channels
  expect_error<tl::ShapeError>(conv(x, w, {{1, 1}, {0, 0}, {1, 1}, 2}), "conv2d");  // w should be [2, 2, ...]
  expect_error<tl::ShapeError>(conv(x, tl::zeros({3, 2, 3, 3}), {{1, 1}, {0, 0}, {1, 1}, 2}), "conv2d");  // O
  expect_error<tl::ShapeError>(conv(x, tl::zeros({1, 4, 6, 3})), "conv2d");  // kernel larger than the input
  expect_error<tl::ShapeError>(conv(x, w, {{1, 1}, {0, 0}, {3, 1}, 1}), "conv2d");  // dilated kernel too
  expect_error<tl::ShapeError>(conv(x, tl::zeros({1, 4, 0, 3})), "conv2d");         // empty kernel
  expect_error<tl::ValueError>(conv(x, w, {{0, 1}, {0, 0}, {1, 1}, 1}), "conv2d");
  expect_error<tl::ValueError>(conv(x, w, {{1, 1}, {0, 0}, {1, 0}, 1}), "conv2d");
  expect_error<tl::ValueError>(conv(x, w, {{1, 1}, {-1, 0}, {1, 1}, 1}), "conv2d");
  expect_error<tl::ValueError>(conv(x, w, {{1, 1}, {0, 0}, {1, 1}, 0}), "conv2d");
  // The message names the shapes.
  try {
    tl::conv2d(x, tl::zeros({2, 3, 3, 3}));
  } catch (const tl::ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("[1, 4, 5, 5]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[2, 3, 3, 3]"), std::string::npos) << e.what();
  }
}

// The primitive itself, with what conv2d never asks for: asymmetric padding.
TEST(Convolution, AsymmetricPaddingMatchesPaddedInput) {
  const tl::detail::OpDef* op = tl::detail::find_op("conv2d");
  ASSERT_NE(op, nullptr);
  const tl::Tensor x = make({2, 3, 4, 5}, 9), w = make({2, 3, 2, 3}, 10);
  using V = std::vector<std::int64_t>;
  const tl::detail::Attrs attrs{{"window_strides", V{1, 2}}, {"padding_low", V{1, 0}},
                                {"padding_high", V{0, 2}},   {"lhs_dilation", V{1, 1}},
                                {"rhs_dilation", V{1, 1}},   {"feature_group_count", std::int64_t(1)}};
  const tl::Tensor y = tl::detail::call1(*op, {x, w}, attrs);
  // The same as an unpadded convolution of x with one zero row on top and two zero columns on the right.
  const auto xv = x.to_vector<double>();
  std::vector<double> xp(2 * 3 * 5 * 7, 0.0);
  for (std::size_t p = 0; p < 6; ++p)
    for (std::size_t r = 0; r < 4; ++r)
      for (std::size_t c = 0; c < 5; ++c) xp[(p * 5 + r + 1) * 7 + c] = xv[(p * 4 + r) * 5 + c];
  const Conv ref{2, 3, 5, 7, 2, 2, 3, {{1, 2}, {0, 0}, {1, 1}, 1}};
  ASSERT_EQ(y.shape(), (tl::Shape{2, 2, 4, 3}));
  expect_near_all(y.to_vector<double>(), conv_ref(xp, w.to_vector<double>(), ref, 4, 3), 1e-12, "asymmetric");
}

TEST(Convolution, RuleErrorsNameThePrimitive) {
  const tl::detail::OpDef* op = tl::detail::find_op("conv2d");
  ASSERT_NE(op, nullptr);
  using V = std::vector<std::int64_t>;
  const tl::Tensor x = tl::zeros({1, 2, 4, 4}), w = tl::zeros({2, 2, 3, 3});
  tl::detail::Attrs attrs{{"window_strides", V{1, 1}}, {"padding_low", V{0, 0}},
                          {"padding_high", V{0, 0}},   {"lhs_dilation", V{0, 1}},
                          {"rhs_dilation", V{1, 1}},   {"feature_group_count", std::int64_t(1)}};
  expect_error<tl::ValueError>([&] { tl::detail::call1(*op, {x, w}, attrs); }, "conv2d");
  attrs.set("lhs_dilation", V{1});
  expect_error<tl::ValueError>([&] { tl::detail::call1(*op, {x, w}, attrs); }, "conv2d");
  attrs.set("lhs_dilation", V{1, 1});
  attrs.set("padding_high", V{-3, 0});
  expect_error<tl::ShapeError>([&] { tl::detail::call1(*op, {x, w}, attrs); }, "conv2d");
}

// ---- conv_transpose2d ---------------------------------------------------------

struct ConvT {
  std::int64_t n, c, h, w, og, kh, kw;  // og: output channels per group
  tl::ConvTranspose2dOptions opt;
};

// Each input pixel (n, ci, iy, ix) adds x * w[ci, oc, i, j] at
// (iy * stride - padding + i * dilation, ...) of output channel group(ci) * og + oc.
std::vector<double> conv_transpose_ref(const std::vector<double>& x, const std::vector<double>& w,
                                       const ConvT& p, std::int64_t oh, std::int64_t ow) {
  const std::int64_t g = p.opt.groups, cg = p.c / g, o = p.og * g;
  std::vector<double> out(std::size_t(p.n * o * oh * ow), 0.0);
  for (std::int64_t n = 0; n < p.n; ++n)
    for (std::int64_t ci = 0; ci < p.c; ++ci)
      for (std::int64_t iy = 0; iy < p.h; ++iy)
        for (std::int64_t ix = 0; ix < p.w; ++ix)
          for (std::int64_t oc = 0; oc < p.og; ++oc)
            for (std::int64_t i = 0; i < p.kh; ++i)
              for (std::int64_t j = 0; j < p.kw; ++j) {
                const std::int64_t y = iy * p.opt.stride[0] - p.opt.padding[0] + i * p.opt.dilation[0];
                const std::int64_t xo = ix * p.opt.stride[1] - p.opt.padding[1] + j * p.opt.dilation[1];
                if (y < 0 || y >= oh || xo < 0 || xo >= ow) continue;
                const std::int64_t co = (ci / cg) * p.og + oc;
                out[std::size_t(((n * o + co) * oh + y) * ow + xo)] +=
                    x[std::size_t(((n * p.c + ci) * p.h + iy) * p.w + ix)] *
                    w[std::size_t(((ci * p.og + oc) * p.kh + i) * p.kw + j)];
              }
  return out;
}

void check_conv_transpose(const ConvT& p, tl::DType t, double tol) {
  const tl::Tensor x = make({p.n, p.c, p.h, p.w}, 5, t), w = make({p.c, p.og, p.kh, p.kw}, 6, t);
  const auto& o = p.opt;
  const std::int64_t oh =
      (p.h - 1) * o.stride[0] - 2 * o.padding[0] + o.dilation[0] * (p.kh - 1) + o.output_padding[0] + 1;
  const std::int64_t ow =
      (p.w - 1) * o.stride[1] - 2 * o.padding[1] + o.dilation[1] * (p.kw - 1) + o.output_padding[1] + 1;
  const tl::Tensor y = tl::conv_transpose2d(x, w, o);
  EXPECT_EQ(y.dtype(), t);
  ASSERT_EQ(y.shape(), (tl::Shape{p.n, p.og * o.groups, oh, ow}));
  expect_near_all(y.to_vector<double>(),
                  conv_transpose_ref(x.to_vector<double>(), w.to_vector<double>(), p, oh, ow), tol,
                  "conv_transpose2d");
}

TEST(ConvTranspose2d, HandExample) {
  // Stride 1, a 2x2 kernel of ones: each input pixel spreads over a 2x2 block.
  const tl::Tensor x = tl::tensor(std::vector<float>{1.f, 2, 3, 4}, {1, 1, 2, 2});
  const tl::Tensor y = tl::conv_transpose2d(x, tl::ones({1, 1, 2, 2}));
  EXPECT_EQ(y.shape(), (tl::Shape{1, 1, 3, 3}));
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{1, 3, 2, 4, 10, 6, 3, 7, 4}));
  // Stride 2 with output_padding 1: the blocks tile a 4x4 output plus one extra row and column of zeros.
  tl::ConvTranspose2dOptions o;
  o.stride = {2, 2};
  o.output_padding = {1, 1};
  const tl::Tensor z =
      tl::conv_transpose2d(x, tl::tensor(std::vector<float>{1.f, 10, 100, 1000}, {1, 1, 2, 2}), o);
  EXPECT_EQ(z.shape(), (tl::Shape{1, 1, 5, 5}));
  EXPECT_EQ(z.to_vector<float>(), (std::vector<float>{1,   10,   2,   20,   0,  //
                                                      100, 1000, 200, 2000, 0,  //
                                                      3,   30,   4,   40,   0,  //
                                                      300, 3000, 400, 4000, 0,  //
                                                      0,   0,    0,   0,    0}));
}

TEST(ConvTranspose2d, MatchesScatterDefinition) {
  std::vector<ConvT> cases;
  cases.push_back({1, 1, 3, 3, 1, 3, 3, {}});
  cases.push_back({2, 3, 4, 5, 2, 3, 3, {{2, 2}, {0, 0}, {1, 1}, {1, 1}, 1}});  // stride 2, output_padding
  cases.push_back({2, 3, 4, 5, 2, 3, 2, {{2, 3}, {1, 1}, {1, 2}, {1, 1}, 1}});
  cases.push_back({2, 4, 3, 4, 3, 3, 3, {{1, 2}, {1, 0}, {0, 1}, {2, 1}, 2}});  // dilation, groups
  cases.push_back({1, 4, 5, 5, 1, 3, 3, {{2, 2}, {1, 1}, {0, 0}, {1, 1}, 4}});  // depthwise
  cases.push_back(
      {1, 2, 5, 5, 2, 2, 2, {{1, 1}, {2, 2}, {0, 0}, {1, 1}, 1}});  // padding > dilation * (k - 1)
  cases.push_back({1, 2, 6, 6, 3, 1, 1, {{1, 1}, {0, 0}, {0, 0}, {1, 1}, 1}});  // 1x1
  for (const ConvT& p : cases) {
    check_conv_transpose(p, tl::DType::f64, 1e-12);
    check_conv_transpose(p, tl::DType::f32, 1e-5);
  }
}

TEST(ConvTranspose2d, InvertsConv2dShape) {
  // conv_transpose2d with the same options maps conv2d's output shape back to its input's.
  tl::Conv2dOptions c{{2, 2}, {1, 1}, {1, 1}, 1};
  const tl::Tensor x = make({1, 3, 8, 8}, 7), w = make({5, 3, 3, 3}, 8);
  const tl::Tensor y = tl::conv2d(x, w, c);
  tl::ConvTranspose2dOptions t{{2, 2}, {1, 1}, {1, 1}, {1, 1}, 1};
  EXPECT_EQ(tl::conv_transpose2d(y, w, t).shape(), x.shape());
}

TEST(ConvTranspose2d, EmptyBatch) {
  EXPECT_EQ(tl::conv_transpose2d(tl::zeros({0, 2, 3, 3}), tl::zeros({2, 4, 2, 2})).shape(),
            (tl::Shape{0, 4, 4, 4}));
}

TEST(ConvTranspose2d, Errors) {
  const tl::Tensor x = tl::zeros({1, 4, 5, 5}), w = tl::zeros({4, 2, 3, 3});
  auto convt = [](const tl::Tensor& a, const tl::Tensor& b, tl::ConvTranspose2dOptions o = {}) {
    return [=] { tl::conv_transpose2d(a, b, o); };
  };
  const std::string name = "conv_transpose2d";
  expect_error<tl::ShapeError>(convt(tl::zeros({4, 5, 5}), w), name);
  expect_error<tl::DTypeError>(convt(x.astype(tl::DType::u8), w), name);
  expect_error<tl::ShapeError>(convt(x, tl::zeros({3, 2, 3, 3})), name);                 // w.shape[0] != C
  expect_error<tl::ShapeError>(convt(x, w, {{1, 1}, {0, 0}, {0, 0}, {1, 1}, 3}), name);  // C % groups
  expect_error<tl::ValueError>(convt(x, w, {{1, 1}, {0, 0}, {0, 0}, {1, 1}, 0}), name);
  expect_error<tl::ValueError>(convt(x, w, {{0, 1}, {0, 0}, {0, 0}, {1, 1}, 1}), name);
  expect_error<tl::ValueError>(convt(x, w, {{1, 1}, {0, 0}, {0, 0}, {0, 1}, 1}), name);
  expect_error<tl::ValueError>(convt(x, w, {{1, 1}, {-1, 0}, {0, 0}, {1, 1}, 1}), name);
  expect_error<tl::ValueError>(convt(x, w, {{2, 2}, {0, 0}, {2, 0}, {1, 1}, 1}),
                               name);  // output_padding >= stride
  expect_error<tl::ShapeError>(convt(x, w, {{1, 1}, {4, 4}, {0, 0}, {1, 1}, 1}), name);  // no output left
  expect_error<tl::ShapeError>(convt(tl::zeros({1, 4, 0, 5}), w), name);
}

// ---- conv2d_backward ---------------------------------------------------------------

tl::Tensor wavy(const tl::Shape& s, double phase) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return tl::sin(tl::reshape(tl::arange(n).astype(tl::DType::f32), s) * 0.61f + float(phase));
}

// The same bits as the engine's pullback, for options of every kind.
TEST(ConvBackward, SameBitsAsTheEnginesPullback) {
  struct Case {
    tl::Shape x, w;
    tl::Conv2dOptions opt;
  };
  const std::vector<Case> cases{
      {{2, 3, 7, 6}, {4, 3, 3, 2}, {}},
      {{1, 4, 9, 8}, {6, 2, 3, 3}, {.stride = {2, 3}, .padding = {1, 2}, .groups = 2}},
      {{2, 2, 8, 8}, {2, 2, 2, 3}, {.dilation = {2, 1}}}};
  for (const Case& c : cases) {
    const tl::Tensor x = wavy(c.x, 0.2), w = wavy(c.w, 1.1);
    auto [y, pullback] =
        tl::vjp([&](const tl::Tensor& a, const tl::Tensor& b) { return tl::conv2d(a, b, c.opt); }, x, w);
    const tl::Tensor g = wavy(y.shape(), 2.3);
    const std::vector<tl::Tensor> shares = pullback(g);
    for (int i = 0; i < 2; ++i)
      EXPECT_EQ(tl::derivatives::conv2d_backward(g, x, w, c.opt, i).to_vector<float>(),
                shares.at(std::size_t(i)).to_vector<float>())
          << tl::shape_string(c.x) << " * " << tl::shape_string(c.w) << ", operand " << i;
  }
  const tl::Tensor x = wavy({1, 1, 4, 4}, 0), w = wavy({1, 1, 2, 2}, 0);
  expect_error<tl::ShapeError>(
      [&] {
        tl::derivatives::conv2d_backward(tl::ones({1, 1, 4, 4}), x, w, {}, 0);
      },
      "conv2d_backward");
  expect_error<tl::ValueError>(
      [&] {
        tl::derivatives::conv2d_backward(tl::ones({1, 1, 3, 3}), x, w, {}, 2);
      },
      "conv2d_backward");
}

// conv_transpose2d_backward undoes conv_transpose2d's steps with the engine's rules:
// the convolution's transposes, then the kernel's flip, transpose and reshapes.
TEST(ConvBackward, TransposedSameBitsAsTheEnginesPullback) {
  struct Case {
    tl::Shape x, w;
    tl::ConvTranspose2dOptions opt;
  };
  const std::vector<Case> cases{
      {{2, 3, 5, 4}, {3, 2, 3, 2}, {}},
      {{1, 4, 4, 5},
       {4, 3, 3, 3},
       {.stride = {2, 3}, .padding = {1, 0}, .output_padding = {1, 2}, .groups = 2}},
      {{2, 2, 4, 4}, {2, 1, 2, 3}, {.dilation = {2, 1}, .groups = 2}}};
  for (const Case& c : cases) {
    const tl::Tensor x = wavy(c.x, 0.4), w = wavy(c.w, 1.7);
    auto [y, pullback] = tl::vjp(
        [&](const tl::Tensor& a, const tl::Tensor& b) { return tl::conv_transpose2d(a, b, c.opt); }, x, w);
    const tl::Tensor g = wavy(y.shape(), 2.9);
    const std::vector<tl::Tensor> shares = pullback(g);
    for (int i = 0; i < 2; ++i)
      EXPECT_EQ(tl::derivatives::conv_transpose2d_backward(g, x, w, c.opt, i).to_vector<float>(),
                shares.at(std::size_t(i)).to_vector<float>())
          << tl::shape_string(c.x) << " * " << tl::shape_string(c.w) << ", operand " << i;
  }
  const tl::Tensor x = wavy({1, 1, 4, 4}, 0), w = wavy({1, 1, 2, 2}, 0);
  expect_error<tl::ShapeError>(
      [&] {
        tl::derivatives::conv_transpose2d_backward(tl::ones({1, 1, 4, 4}), x, w, {}, 0);
      },
      "conv_transpose2d_backward");
  expect_error<tl::ValueError>(
      [&] {
        tl::derivatives::conv_transpose2d_backward(tl::ones({1, 1, 5, 5}), x, w, {}, 2);
      },
      "conv_transpose2d_backward");
}

}  // namespace
