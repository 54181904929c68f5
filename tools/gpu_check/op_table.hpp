// The programs the GPU check runs on a PJRT plugin and on the interpreter, with
// the tolerance each is held to (|plugin - interpreter| <= atol + rtol * |interpreter|,
// elementwise). Exact IEEE operations get 0; transcendental functions a few ulp of
// f32, since XLA's GPU kernels use their own approximations; products and sums
// allow for another summation order, and dot_general for TF32 (XLA on recent
// NVIDIA GPUs may multiply f32 matrices in TF32 at DEFAULT precision).
#pragma once

#include <functional>
#include <string>
#include <tlaloc/tlaloc.hpp>
#include <vector>

namespace tlgpu {

struct OpCase {
  std::string name;
  std::string text;
  std::function<std::vector<tlaloc::Tensor>()> inputs;
  double rtol = 0, atol = 0;
};

inline std::string unary(const std::string& op) {
  return "func.func @main(%x: tensor<512x512xf32>) -> tensor<512x512xf32> {\n  %0 = stablehlo." + op +
         " %x : tensor<512x512xf32>\n  return %0 : tensor<512x512xf32>\n}";
}

inline std::string binary(const std::string& op) {
  return "func.func @main(%x: tensor<512x512xf32>, %y: tensor<512x512xf32>) -> tensor<512x512xf32> {\n"
         "  %0 = stablehlo." + op + " %x, %y : tensor<512x512xf32>\n  return %0 : tensor<512x512xf32>\n}";
}

inline std::vector<OpCase> op_table() {
  namespace r = tlaloc::random;
  const auto uniform = [](int seed, double lo, double hi) {
    return [=] { return std::vector<tlaloc::Tensor>{r::uniform(r::key(seed), {512, 512}, tlaloc::DType::f32, lo, hi)}; };
  };
  const auto two = [](double lo, double hi) {
    return [=] {
      return std::vector<tlaloc::Tensor>{r::uniform(r::key(1), {512, 512}, tlaloc::DType::f32, lo, hi),
                                         r::uniform(r::key(2), {512, 512}, tlaloc::DType::f32, lo, hi)};
    };
  };
  return {
      {"add", binary("add"), two(-4, 4), 0, 0},
      {"multiply", binary("multiply"), two(-4, 4), 0, 0},
      {"divide", binary("divide"), two(0.5, 4), 0, 0},
      {"sqrt", unary("sqrt"), uniform(3, 0, 100), 0, 0},
      {"exponential", unary("exponential"), uniform(4, -10, 10), 6e-7, 0},
      {"log", unary("log"), uniform(5, 1e-3, 100), 6e-7, 1e-7},
      {"tanh", unary("tanh"), uniform(6, -6, 6), 6e-7, 1e-7},
      {"logistic", unary("logistic"), uniform(7, -10, 10), 6e-7, 1e-7},
      {"dot_general 256x512 x 512x128",
       "func.func @main(%a: tensor<256x512xf32>, %b: tensor<512x128xf32>) -> tensor<256x128xf32> {\n"
       "  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<256x512xf32>, "
       "tensor<512x128xf32>) -> tensor<256x128xf32>\n  return %0 : tensor<256x128xf32>\n}",
       [] {
         return std::vector<tlaloc::Tensor>{r::uniform(r::key(8), {256, 512}, tlaloc::DType::f32, -1, 1),
                                            r::uniform(r::key(9), {512, 128}, tlaloc::DType::f32, -1, 1)};
       },
       2e-2, 2e-2},
      {"reduce add over rows",
       "func.func @main(%x: tensor<512x512xf32>) -> tensor<512xf32> {\n"
       "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
       "  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : "
       "(tensor<512x512xf32>, tensor<f32>) -> tensor<512xf32>\n  return %0 : tensor<512xf32>\n}",
       uniform(10, -1, 1), 1e-5, 1e-4},
  };
}

}  // namespace tlgpu
