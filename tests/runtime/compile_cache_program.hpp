// The program the compile cache tests compile in child processes
// (compile_cache_child.cpp) and in the test process (compile_cache_test.cpp).
#pragma once

#include <tlaloc/tlaloc.hpp>

namespace tltest::cache {

// (x + y) * x.
inline constexpr const char* kProgram = R"(func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>)
    -> tensor<2x3xf32> {
  %0 = stablehlo.add %x, %y : tensor<2x3xf32>
  %1 = stablehlo.multiply %0, %x : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
})";

inline tlaloc::Tensor x() { return tlaloc::tensor({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {2, 3}); }
inline tlaloc::Tensor y() { return tlaloc::tensor({0.5f, -1.f, 2.f, 0.f, 3.f, -6.f}, {2, 3}); }

}  // namespace tltest::cache
