// The small program the runtime tests run (session_test.cpp, pjrt_cpu_plugin_test.cpp,
// the compile cache tests and their child processes), and its inputs.
#pragma once

#include <vector>

#include <tlaloc/tlaloc.hpp>

namespace tltest::sample {

// (x + y) * x and x - y.
inline constexpr const char* kProgram = R"(func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = stablehlo.add %x, %y : tensor<2x3xf32>
  %1 = stablehlo.multiply %0, %x : tensor<2x3xf32>
  %2 = stablehlo.subtract %x, %y : tensor<2x3xf32>
  return %1, %2 : tensor<2x3xf32>, tensor<2x3xf32>
})";

inline const std::vector<float> kXValues = {1.f, 2.f, 3.f, 4.f, 5.f, 6.f};
inline const std::vector<float> kYValues = {0.5f, -1.f, 2.f, 0.f, 3.f, -6.f};
inline tlaloc::Tensor x() { return tlaloc::tensor(kXValues, {2, 3}); }
inline tlaloc::Tensor y() { return tlaloc::tensor(kYValues, {2, 3}); }

}  // namespace tltest::sample
