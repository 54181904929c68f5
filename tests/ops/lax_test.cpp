// tl::lax's ops without a region (convolution, bits, random numbers,
// batch_norm_grad, the dynamic-shape ops) on host tensors against values derived
// by hand or against the static public ops they stand for, and refusing bad
// attributes by name, with the shapes.
#include <gtest/gtest.h>

#include <tlaloc/tlaloc.hpp>

#include "support/expect_error.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

namespace tl = tlaloc;

namespace {

using tl::Tensor;
using I32s = std::vector<std::int32_t>;
using I64s = std::vector<std::int64_t>;

Tensor i64(const I64s& v) { return tl::tensor(v, {std::int64_t(v.size())}); }

// x [N, W, C] with a kernel [W, I, O]: one spatial axis, channels last.
const tl::lax::ConvDimensionNumbers kNwc{.input_batch_dimension = 0,
                                         .input_feature_dimension = 2,
                                         .input_spatial_dimensions = {1},
                                         .kernel_input_feature_dimension = 1,
                                         .kernel_output_feature_dimension = 2,
                                         .kernel_spatial_dimensions = {0},
                                         .output_batch_dimension = 0,
                                         .output_feature_dimension = 2,
                                         .output_spatial_dimensions = {1}};

TEST(Lax, ConvolutionOneSpatialAxisByHand) {
  const Tensor x = tl::tensor({1.0f, 2.0f, 3.0f, 4.0f, 5.0f}, {1, 5, 1});
  const Tensor w = tl::tensor({1.0f, 10.0f}, {2, 1, 1});
  // y[i] = x[i] + 10 x[i + 1].
  const Tensor y = tl::lax::convolution(x, w, kNwc, {1}, {0}, {0}, {1}, {1}, {0}, 1, 1, tl::DType::f32);
  EXPECT_EQ(y.shape(), (tl::Shape{1, 4, 1}));
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{21, 32, 43, 54}));
  // The reversed window: y[i] = 10 x[i] + x[i + 1].
  const Tensor r = tl::lax::convolution(x, w, kNwc, {1}, {0}, {0}, {1}, {1}, {1}, 1, 1, tl::DType::f32);
  EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{12, 23, 34, 45}));
  // One zero in front, stride 2: windows (0, 1), (2, 3), (4, 5); the result in f64.
  const Tensor s = tl::lax::convolution(x, w, kNwc, {2}, {1}, {0}, {1}, {1}, {0}, 1, 1, tl::DType::f64);
  EXPECT_EQ(s.dtype(), tl::DType::f64);
  EXPECT_EQ(s.to_vector<double>(), (std::vector<double>{10, 32, 54}));
  // lhs dilation 2 (a hole between elements) and rhs dilation 2 (taps two apart):
  // over 1 h 2 h 3 h 4 h 5 the taps at 0 and 2 read x[i] and x[i + 1] again.
  const Tensor d = tl::lax::convolution(x, w, kNwc, {2}, {0}, {0}, {2}, {2}, {0}, 1, 1, tl::DType::f32);
  EXPECT_EQ(d.to_vector<float>(), (std::vector<float>{21, 32, 43, 54}));
}

TEST(Lax, ConvolutionBatchGroupsSplitTheBatch) {
  // Two batch groups: output feature o reads batch group o / (O / 2); here each of
  // the two output features is the sum over its own batch element's window.
  const Tensor x = tl::tensor({1.0, 2.0, 3.0, 10.0, 20.0, 30.0}, {2, 3, 1});
  const Tensor w = tl::tensor({1.0, 1.0, 1.0, 2.0}, {2, 1, 2});  // [W, I, O]: O 0 taps 1,1; O 1 taps 1,2
  const Tensor y = tl::lax::convolution(x, w, kNwc, {1}, {0}, {0}, {1}, {1}, {0}, 1, 2, tl::DType::f64);
  EXPECT_EQ(y.shape(), (tl::Shape{1, 2, 2}));
  // o = 0 on batch 0: 1 + 2, 2 + 3; o = 1 on batch 1: 10 + 40, 20 + 60.
  EXPECT_EQ(y.to_vector<double>(), (std::vector<double>{3, 50, 5, 80}));
}

TEST(Lax, ConvolutionAgreesWithConv2dInNchw) {
  const Tensor x = tl::random::normal(tl::random::key(3), {2, 4, 5, 6});
  const Tensor w = tl::random::normal(tl::random::key(4), {6, 2, 3, 2});
  const Tensor want = tl::lax::conv2d(x, w, {1, 2}, {1, 0}, {0, 1}, {1, 1}, {1, 2}, 2);
  const Tensor got =
      tl::lax::convolution(x, w, {}, {1, 2}, {1, 0}, {0, 1}, {1, 1}, {1, 2}, {0, 0}, 2, 1, x.dtype());
  EXPECT_EQ(got.shape(), want.shape());
  EXPECT_EQ(got.to_vector<float>(), want.to_vector<float>());
}

TEST(Lax, ConvolutionRefusesBadAttributes) {
  const Tensor x = tl::zeros({1, 5, 2}, tl::DType::f32);
  const Tensor w = tl::zeros({2, 3, 1}, tl::DType::f32);
  tltest::expect_error<tl::ShapeError>(
      [&] { tl::lax::convolution(x, w, kNwc, {1}, {0}, {0}, {1}, {1}, {0}, 1, 1, tl::DType::f32); },
      "convolution", "[1, 5, 2]", "[2, 3, 1]");
  tltest::expect_error<tl::ShapeError>(
      [&] {
        tl::lax::convolution(x, w, kNwc, {1}, {0, 1}, {0}, {1}, {1}, {0}, 1, 1, tl::DType::f32);
      },
      "lax::convolution", "[0, 1]", "[1, 5, 2]");
  tltest::expect_error<tl::ValueError>(
      [&] { tl::lax::convolution(x, w, kNwc, {0}, {0}, {0}, {1}, {1}, {0}, 2, 1, tl::DType::f32); },
      "convolution", "strides");
}

TEST(Lax, BitsOfIntegersAndBools) {
  const Tensor a = tl::tensor(I32s{12, -8, 255, 1});
  const Tensor b = tl::tensor(I32s{10, 1, 15, 31});
  EXPECT_EQ(tl::lax::bitwise_and(a, b).to_vector<std::int32_t>(), (I32s{8, 0, 15, 1}));
  EXPECT_EQ(tl::lax::bitwise_or(a, b).to_vector<std::int32_t>(), (I32s{14, -7, 255, 31}));
  EXPECT_EQ(tl::lax::bitwise_xor(a, b).to_vector<std::int32_t>(), (I32s{6, -7, 240, 30}));
  EXPECT_EQ(tl::lax::bitwise_not(a).to_vector<std::int32_t>(), (I32s{-13, 7, -256, -2}));
  const Tensor t = tl::tensor(std::vector<bool>{true, true, false}),
               f = tl::tensor(std::vector<bool>{true, false, false});
  EXPECT_EQ(tl::lax::bitwise_and(t, f).to_vector<bool>(), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(tl::lax::bitwise_not(f).to_vector<bool>(), (std::vector<bool>{false, true, true}));
  // Shifts: amounts outside [0, 32) give 0, or the sign for the arithmetic shift.
  const Tensor n = tl::tensor(I32s{1, 1, 40, -1});
  EXPECT_EQ(tl::lax::shift_left(a, n).to_vector<std::int32_t>(), (I32s{24, -16, 0, 0}));
  EXPECT_EQ(tl::lax::shift_right_logical(a, n).to_vector<std::int32_t>(), (I32s{6, 2147483644, 0, 0}));
  EXPECT_EQ(tl::lax::shift_right_arithmetic(a, n).to_vector<std::int32_t>(), (I32s{6, -4, 0, 0}));
  EXPECT_EQ(tl::lax::count_leading_zeros(a).to_vector<std::int32_t>(), (I32s{28, 0, 24, 31}));
  EXPECT_EQ(tl::lax::popcnt(a).to_vector<std::int32_t>(), (I32s{2, 29, 8, 1}));
}

TEST(Lax, BitcastConvertKeepsTheBits) {
  const Tensor x = tl::tensor(std::vector<float>{1.0f, -2.0f});
  EXPECT_EQ(tl::lax::bitcast_convert(x, tl::DType::i32).to_vector<std::int32_t>(),
            (I32s{0x3f800000, std::int32_t(0xc0000000u)}));
  EXPECT_EQ(tl::lax::bitcast_convert(tl::lax::bitcast_convert(x, tl::DType::i32), tl::DType::f32)
                .to_vector<float>(),
            x.to_vector<float>());
}

// Across widths the bits are one little-endian stream: 1.0f is 0x3f800000, its low
// half first; element k of i1 is bit k.
TEST(Lax, BitcastConvertAcrossWidths) {
  const Tensor x = tl::tensor(std::vector<float>{1.0f});
  const Tensor halves = tl::lax::bitcast_convert(x, tl::DType::u16);
  EXPECT_EQ(halves.shape(), (tl::Shape{1, 2}));
  EXPECT_EQ(halves.to_vector<std::uint16_t>(), (std::vector<std::uint16_t>{0, 0x3f80}));
  EXPECT_EQ(tl::lax::bitcast_convert(halves, tl::DType::f32).to_vector<float>(), x.to_vector<float>());
  const Tensor bits = tl::tensor(std::vector<bool>{true, false, true, false, false, false, false, true});
  const Tensor byte = tl::lax::bitcast_convert(bits, tl::DType::u8);
  EXPECT_EQ(byte.shape(), tl::Shape{});
  EXPECT_EQ(byte.item<std::uint8_t>(), 0x85);
  EXPECT_EQ(tl::lax::bitcast_convert(byte, tl::DType::boolean).to_vector<bool>(), bits.to_vector<bool>());
}

TEST(Lax, BitsRefuseBadDtypes) {
  const Tensor f = tl::tensor(std::vector<float>{1.0f, 2.0f});
  tltest::expect_error<tl::DTypeError>([&] { tl::lax::bitwise_and(f, f); }, "and", "f32");
  tltest::expect_error<tl::DTypeError>([&] { tl::lax::popcnt(f); }, "popcnt", "f32");
  tltest::expect_error<tl::ShapeError>(
      [&] {
        tl::lax::bitcast_convert(tl::tensor(std::vector<float>{1.0f, 2.0f, 3.0f}), tl::DType::i64);
      },
      "bitcast_convert", "f32", "i64", "last axis of 2", "[3]");
}

TEST(Lax, RngIsDeterministicAndInRange) {
  const Tensor lo = tl::scalar_tensor(2.0, tl::DType::f64), hi = tl::scalar_tensor(3.0, tl::DType::f64);
  const Tensor u = tl::lax::rng(lo, hi, i64({4, 50}), "UNIFORM", {4, 50});
  EXPECT_EQ(u.shape(), (tl::Shape{4, 50}));
  for (double v : u.to_vector<double>()) {
    EXPECT_GE(v, 2.0);
    EXPECT_LT(v, 3.0);
  }
  EXPECT_EQ(u.to_vector<double>(),
            tl::lax::rng(lo, hi, i64({4, 50}), "UNIFORM", {4, 50}).to_vector<double>());
  // NORMAL with mean 2 and deviation 3: the sample mean of 200 values is near 2.
  const std::vector<double> z = tl::lax::rng(lo, hi, i64({200}), "NORMAL", {200}).to_vector<double>();
  double mean = 0;
  for (double v : z) mean += v / 200.0;
  EXPECT_NEAR(mean, 2.0, 3.0 * 4.0 / std::sqrt(200.0));
  tltest::expect_error<tl::ValueError>([&] { tl::lax::rng(lo, hi, i64({3}), "POISSON", {3}); }, "rng",
                                       "POISSON");
  tltest::expect_error<tl::ShapeError>([&] { tl::lax::rng(lo, hi, i64({3}), "UNIFORM", {4}); }, "rng", "[3]",
                                       "[4]");
}

TEST(Lax, RngBitGeneratorAdvancesItsState) {
  const Tensor state = tl::tensor(std::vector<std::uint64_t>{5, 100}, {2});
  // 6 u32 values are 24 bytes: three 64-bit blocks.
  const std::vector<Tensor> r = tl::lax::rng_bit_generator(state, "THREE_FRY", {2, 3}, tl::DType::u32);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].to_vector<std::uint64_t>(), (std::vector<std::uint64_t>{5, 103}));
  EXPECT_EQ(r[1].shape(), (tl::Shape{2, 3}));
  EXPECT_EQ(r[1].dtype(), tl::DType::u32);
  // The next state continues where this call stopped: 12 values from the old state
  // are this call's 6 followed by the next call's 6.
  const std::vector<Tensor> more = tl::lax::rng_bit_generator(state, "THREE_FRY", {12}, tl::DType::u32);
  const std::vector<Tensor> next = tl::lax::rng_bit_generator(r[0], "DEFAULT", {6}, tl::DType::u32);
  const std::vector<std::uint32_t> all = more[1].to_vector<std::uint32_t>(),
                                   head = r[1].to_vector<std::uint32_t>(),
                                   tail = next[1].to_vector<std::uint32_t>();
  EXPECT_EQ(std::vector<std::uint32_t>(all.begin(), all.begin() + 6), head);
  EXPECT_EQ(std::vector<std::uint32_t>(all.begin() + 6, all.end()), tail);
  tltest::expect_error<tl::ShapeError>(
      [] { tl::lax::rng_bit_generator(tl::zeros({3}, tl::DType::u64), "DEFAULT", {2}, tl::DType::u32); },
      "rng_bit_generator", "[3]");
  tltest::expect_error<tl::ValueError>(
      [&] { tl::lax::rng_bit_generator(state, "PHILOX", {2}, tl::DType::u32); }, "rng_bit_generator",
      "PHILOX");
}

TEST(Lax, BatchNormGradByHand) {
  // One feature, x = 0, 1, 5 at mean 2 and variance 1: x^ = -2, -1, 3. With g = 1, 0, 0
  // and scale 1: sum(g) = 1, sum(g x^) = -2, and grad_operand = g - 1/3 + (2/3) x^.
  const Tensor x = tl::tensor({0.0, 1.0, 5.0}, {3, 1});
  const Tensor one = tl::tensor(std::vector<double>{1.0}), two = tl::tensor(std::vector<double>{2.0});
  const std::vector<Tensor> r =
      tl::lax::batch_norm_grad(x, one, two, one, tl::tensor({1.0, 0.0, 0.0}, {3, 1}), 0.0, 1);
  ASSERT_EQ(r.size(), 3u);
  const std::vector<double> dx = r[0].to_vector<double>();
  EXPECT_NEAR(dx[0], -2.0 / 3.0, 1e-15);
  EXPECT_NEAR(dx[1], -1.0, 1e-15);
  EXPECT_NEAR(dx[2], 5.0 / 3.0, 1e-15);
  EXPECT_EQ(r[1].to_vector<double>(), (std::vector<double>{-2.0}));
  EXPECT_EQ(r[2].to_vector<double>(), (std::vector<double>{1.0}));
  tltest::expect_error<tl::ShapeError>(
      [&] { tl::lax::batch_norm_grad(x, one, two, one, tl::zeros({3}, tl::DType::f64), 0.0, 1); },
      "batch_norm_grad", "[3, 1]", "[3]");
}

TEST(Lax, DynamicShapeOpsAgreeWithTheirStaticOps) {
  const Tensor x = tl::tensor({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, {2, 3});
  const Tensor r = tl::lax::dynamic_reshape(x, i64({3, 2}), {-1, 2});
  EXPECT_EQ(r.shape(), (tl::Shape{3, 2}));
  EXPECT_EQ(r.to_vector<double>(), tl::reshape(x, {3, 2}).to_vector<double>());
  EXPECT_EQ(tl::lax::dynamic_iota(i64({2, 3}), 1, tl::DType::i32, {2, -1}).to_vector<std::int32_t>(),
            (I32s{0, 1, 2, 0, 1, 2}));
  const Tensor b = tl::lax::dynamic_broadcast_in_dim(tl::tensor(std::vector<double>{7.0, 8.0, 9.0}),
                                                     i64({2, 3}), {1}, {-1, 3});
  EXPECT_EQ(b.to_vector<double>(),
            tl::lax::broadcast_in_dim(tl::tensor(std::vector<double>{7.0, 8.0, 9.0}), {2, 3}, {1})
                .to_vector<double>());
  const Tensor zero = tl::scalar_tensor(0.0, tl::DType::f64);
  const Tensor p = tl::lax::dynamic_pad(x, zero, i64({1, 0}), i64({0, 1}), i64({0, 1}), {3, -1});
  EXPECT_EQ(p.to_vector<double>(), tl::lax::pad(x, zero, {1, 0}, {0, 1}, {0, 1}).to_vector<double>());
  const tl::lax::GatherDimensionNumbers rows{
      .offset_dims = {1}, .collapsed_slice_dims = {0}, .start_index_map = {0}, .index_vector_dim = 1};
  const Tensor idx = tl::tensor(I32s{1, 0}, {2, 1});
  EXPECT_EQ(tl::lax::dynamic_gather(x, idx, i64({1, 3}), rows, false, {2, 3}).to_vector<double>(),
            tl::lax::gather(x, idx, rows, {1, 3}).to_vector<double>());
  const Tensor w = tl::tensor({1.0, -1.0}, {2, 1, 1});
  const Tensor xc = tl::reshape(x, {1, 6, 1});
  EXPECT_EQ(tl::lax::dynamic_conv(xc, w, tl::tensor(I64s{1, 0}, {1, 2}), kNwc, {1}, {1}, {1}, {0}, 1, 1,
                                  tl::DType::f64, {1, -1, 1})
                .to_vector<double>(),
            tl::lax::convolution(xc, w, kNwc, {1}, {1}, {0}, {1}, {1}, {0}, 1, 1, tl::DType::f64)
                .to_vector<double>());
}

TEST(Lax, DynamicShapeOpsRefuseSizesThatDoNotFit) {
  const Tensor x = tl::zeros({2, 3}, tl::DType::f32);
  tltest::expect_error<tl::ShapeError>(
      [&] {
        tl::lax::dynamic_reshape(x, i64({4, 2}), {-1, 2});
      },
      "dynamic_reshape", "[2, 3]");
  tltest::expect_error<tl::ShapeError>(
      [&] {
        tl::lax::dynamic_reshape(x, i64({6}), {-1, 2});
      },
      "dynamic_reshape", "output_shape");
  tltest::expect_error<tl::AxisError>([&] { tl::lax::dynamic_iota(i64({2}), 1, tl::DType::f32, {-1}); },
                                      "dynamic_iota", "iota_dimension 1");
}

}  // namespace
