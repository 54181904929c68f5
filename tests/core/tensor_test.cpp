#include <gtest/gtest.h>

#include <tlaloc/tlaloc.hpp>

#include <cmath>
#include <limits>

namespace tl = tlaloc;

TEST(Tensor, CreationAndAccess) {
  tl::Tensor a = tl::tensor({1.f, 2.f, 3.f, 4.f}, {2, 2});
  EXPECT_EQ(a.shape(), (tl::Shape{2, 2}));
  EXPECT_EQ(a.dtype(), tl::DType::f32);
  EXPECT_EQ(a.rank(), 2);
  EXPECT_EQ(a.numel(), 4);
  EXPECT_EQ(a.size(-1), 2);
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(a.to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 2, 3, 4}));
  tl::Tensor d = tl::tensor(std::vector<double>{0.5}, {});
  EXPECT_EQ(d.dtype(), tl::DType::f64);
  EXPECT_EQ(d.rank(), 0);
  EXPECT_DOUBLE_EQ(d.item<double>(), 0.5);
  EXPECT_EQ(tl::tensor(std::vector<std::int32_t>{1, 2}).dtype(), tl::DType::i32);
  EXPECT_EQ(tl::tensor(std::vector<bool>{true, false}).to_vector<bool>(), (std::vector<bool>{true, false}));
}

TEST(Tensor, Factories) {
  EXPECT_EQ(tl::zeros({2, 3}).to_vector<float>(), std::vector<float>(6, 0.f));
  EXPECT_EQ(tl::ones({2}, tl::DType::i8).to_vector<int>(), (std::vector<int>{1, 1}));
  EXPECT_EQ(tl::full({3}, 2.5).dtype(), tl::DType::f32);
  EXPECT_EQ(tl::full({3}, 7).dtype(), tl::DType::i64);
  EXPECT_EQ(tl::full({3}, true).dtype(), tl::DType::boolean);
  EXPECT_EQ(tl::arange(5).to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(tl::arange(5).dtype(), tl::DType::i64);
  EXPECT_EQ(tl::arange(1.0, 2.0, 0.25).to_vector<float>(), (std::vector<float>{1, 1.25, 1.5, 1.75}));
  EXPECT_EQ(tl::arange(5, 0, -2).to_vector<int>(), (std::vector<int>{5, 3, 1}));
  EXPECT_EQ(tl::arange(3, 3).numel(), 0);
  EXPECT_EQ(tl::linspace(0, 1, 5).to_vector<float>(), (std::vector<float>{0, 0.25, 0.5, 0.75, 1}));
  EXPECT_EQ(tl::linspace(0, 1, 1).to_vector<float>(), (std::vector<float>{0}));
  EXPECT_EQ(tl::eye(2, 3, 1).to_vector<float>(), (std::vector<float>{0, 1, 0, 0, 0, 1}));
  auto x = tl::tensor({1.0, 2.0}, {2});
  EXPECT_EQ(tl::zeros_like(x).dtype(), tl::DType::f64);
  EXPECT_EQ(tl::ones_like(x, tl::DType::i32).to_vector<int>(), (std::vector<int>{1, 1}));
  EXPECT_EQ(tl::full_like(x, 3).to_vector<double>(), (std::vector<double>{3, 3}));
  EXPECT_EQ(tl::zeros({0, 3}).numel(), 0);
}

TEST(Tensor, HalfPrecisionRoundTrip) {
  // Values exactly representable in both 16-bit formats survive; others round to nearest even.
  EXPECT_EQ(float(tl::bf16(1.0f)), 1.0f);
  EXPECT_EQ(float(tl::f16(0.5f)), 0.5f);
  EXPECT_EQ(float(tl::f16(65504.f)), 65504.f);
  EXPECT_TRUE(std::isinf(float(tl::f16(70000.f))));
  EXPECT_EQ(float(tl::f16(5.9604644775390625e-08f)), 5.9604644775390625e-08f);  // smallest subnormal
  EXPECT_EQ(float(tl::f16(1.0f + 1.0f / 4096)), 1.0f);                           // ties to even
  EXPECT_EQ(float(tl::bf16(1.0f + 1.0f / 256)), 1.0f);                           // ties to even
  EXPECT_EQ(float(tl::bf16(1.0f + 3.0f / 256)), 1.0f + 4.0f / 256);
  EXPECT_TRUE(std::isnan(float(tl::bf16(std::numeric_limits<float>::quiet_NaN()))));
  auto h = tl::tensor({0.1f, 2.f}, {2}).astype(tl::DType::f16);
  EXPECT_EQ(h.dtype(), tl::DType::f16);
  EXPECT_NEAR(h.to_vector<float>()[0], 0.1f, 1e-4);
}

TEST(Tensor, Casts) {
  auto x = tl::tensor({-1.7f, 0.f, 2.5f, 300.f}, {4});
  EXPECT_EQ(x.astype(tl::DType::i32).to_vector<int>(), (std::vector<int>{-1, 0, 2, 300}));
  EXPECT_EQ(x.astype(tl::DType::boolean).to_vector<bool>(), (std::vector<bool>{true, false, true, true}));
  // Out-of-range and NaN conversions to integers saturate / give 0 (no undefined behaviour).
  auto big = tl::tensor({1e20f, -1e20f, std::numeric_limits<float>::quiet_NaN()}, {3});
  EXPECT_EQ(big.astype(tl::DType::i8).to_vector<int>(), (std::vector<int>{127, -128, 0}));
  // Integer to integer wraps, as StableHLO's convert.
  EXPECT_EQ(tl::tensor(std::vector<std::int32_t>{256 + 7, -1}).astype(tl::DType::u8).to_vector<int>(),
            (std::vector<int>{7, 255}));
}

TEST(Tensor, Promotion) {
  using D = tl::DType;
  EXPECT_EQ(tl::promote_types(D::boolean, D::u8), D::u8);
  EXPECT_EQ(tl::promote_types(D::u8, D::i8), D::i32);
  EXPECT_EQ(tl::promote_types(D::i8, D::i64), D::i64);
  EXPECT_EQ(tl::promote_types(D::i64, D::f16), D::f16);
  EXPECT_EQ(tl::promote_types(D::f16, D::bf16), D::f32);
  EXPECT_EQ(tl::promote_types(D::bf16, D::f32), D::f32);
  EXPECT_EQ(tl::promote_types(D::f32, D::f64), D::f64);
  for (auto a : tl::all_dtypes)
    for (auto b : tl::all_dtypes) EXPECT_EQ(tl::promote_types(a, b), tl::promote_types(b, a));
  // Weak scalars: a C++ number adopts the tensor's dtype unless its kind is higher.
  auto i = tl::tensor(std::vector<std::int32_t>{1, 2});
  EXPECT_EQ((i + 1).dtype(), D::i32);
  EXPECT_EQ((i + 1.5).dtype(), D::f32);
  EXPECT_EQ((tl::ones({2}, D::f16) * 2.0).dtype(), D::f16);
  EXPECT_EQ((tl::ones({2}, D::boolean) + 1).dtype(), D::i64);
  EXPECT_EQ((i + tl::ones({2}, D::f64)).dtype(), D::f64);
  EXPECT_EQ((i / i).dtype(), D::f32);
}

TEST(Tensor, Printing) {
  EXPECT_EQ(tl::tensor({1.f, 2.5f, -3.f, 4.f}, {2, 2}).to_string(),
            "tensor([[1., 2.5],\n        [-3., 4.]], dtype=f32)");
  EXPECT_EQ(tl::arange(3).to_string(), "tensor([0, 1, 2], dtype=i64)");
  EXPECT_EQ(tl::arange(10).to_string(), "tensor([0, 1, 2, ..., 7, 8, 9], dtype=i64)");
  EXPECT_EQ(tl::full({}, true).to_string(), "tensor(true, dtype=bool)");
  EXPECT_EQ(tl::zeros({0}).to_string(), "tensor([], dtype=f32)");
}

TEST(Tensor, Allclose) {
  auto a = tl::tensor({1.0, 2.0}, {2});
  EXPECT_TRUE(tl::allclose(a, tl::tensor({1.0 + 1e-9, 2.0}, {2})));
  EXPECT_FALSE(tl::allclose(a, tl::tensor({1.1, 2.0}, {2})));
  EXPECT_TRUE(tl::allclose(a, tl::tensor({1.1, 2.0}, {2}), 0.0, 0.2));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(tl::allclose(tl::tensor({nan}, {1}), tl::tensor({nan}, {1})));
  EXPECT_TRUE(tl::allclose(tl::tensor({nan}, {1}), tl::tensor({nan}, {1}), 1e-5, 1e-8, true));
  EXPECT_TRUE(tl::allclose(tl::full({2}, INFINITY), tl::full({2}, INFINITY)));
}

TEST(TensorErrors, BadInput) {
  EXPECT_THROW(tl::tensor({1.f, 2.f}, {3}), tl::ShapeError);
  EXPECT_THROW(tl::zeros({-1}), tl::ValueError);
  EXPECT_THROW(tl::arange(0, 1, 0), tl::ValueError);
  auto a = tl::tensor({1.f, 2.f}, {2});
  EXPECT_THROW(a.item<float>(), tl::ShapeError);
  EXPECT_THROW(a.data<double>(), tl::DTypeError);
  EXPECT_THROW(a.size(2), tl::AxisError);
  tl::Tensor undefined;
  EXPECT_THROW(undefined.shape(), tl::ValueError);
  EXPECT_THROW(tl::exp(undefined), tl::ValueError);
  try {
    a.data<double>();
  } catch (const tl::Error& e) {
    EXPECT_NE(std::string(e.what()).find("f32"), std::string::npos) << e.what();
  }
}
