// The AVX-512 build of the f32 kernels must give the same bits as the default build,
// so results never depend on which processor ran them.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/isa/float_math.hpp"

namespace {
using tlaloc::detail::FloatFn;

std::vector<float> sweep() {
  std::vector<float> xs;
  for (std::uint64_t bits = 0; bits < (std::uint64_t(1) << 32); bits += 4099)  // every sign, exponent, NaN
    xs.push_back(std::bit_cast<float>(std::uint32_t(bits)));
  for (int i = -20000; i <= 20000; ++i) xs.push_back(float(i) * 1e-3f);
  return xs;
}
}  // namespace

TEST(FloatMath, Avx512BuildMatchesDefaultBitForBit) {
  if (!tlaloc::detail::cpu_has_avx512()) GTEST_SKIP() << "this processor has no AVX-512";
  const std::vector<float> x = sweep();
  std::vector<float> base(x.size()), wide(x.size());
  for (FloatFn fn : {FloatFn::exp, FloatFn::expm1, FloatFn::log, FloatFn::log1p, FloatFn::tanh, FloatFn::sigmoid,
                     FloatFn::silu, FloatFn::softplus, FloatFn::erf, FloatFn::gelu_erf, FloatFn::gelu_tanh,
                     FloatFn::sin, FloatFn::cos}) {
    tlaloc::detail::float_math_base(fn, x.data(), base.data(), std::int64_t(x.size()));
    tlaloc::detail::float_math_avx512(fn, x.data(), wide.data(), std::int64_t(x.size()));
    std::size_t mismatches = 0, first = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (std::bit_cast<std::uint32_t>(base[i]) != std::bit_cast<std::uint32_t>(wide[i])) {
        if (mismatches++ == 0) first = i;
      }
    }
    EXPECT_EQ(mismatches, 0u) << "function " << int(fn) << " first differs at x=" << x[first] << ": "
                              << base[first] << " vs " << wide[first];
  }
}
