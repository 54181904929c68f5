// Negation flips the sign bit of floats: neg(+0) is -0 (IEEE 754, StableHLO's negate).
#include <gtest/gtest.h>

#include <cmath>

#include "tlaloc/tlaloc.hpp"

namespace tl = tlaloc;

TEST(SignedZero, NegOfPlusZeroIsMinusZero) {
  for (tl::DType t : {tl::DType::f32, tl::DType::f64, tl::DType::bf16, tl::DType::f16}) {
    const tl::Tensor y = tl::neg(tl::zeros({2}, t)).astype(tl::DType::f64);
    for (double v : y.to_vector<double>()) EXPECT_TRUE(std::signbit(v)) << tl::dtype_name(t);
  }
}
