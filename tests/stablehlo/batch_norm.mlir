// stablehlo.batch_norm_inference, batch_norm_training and batch_norm_grad.
// Run: tlaloc run batch_norm.mlir --split-input-file

// Feature 0: (x - 1) / sqrt(3 + 1) * 2 + 0.5; feature 1: (x - 0) / sqrt(0 + 1) * 1 - 1.
func.func @inference() {
  %x = stablehlo.constant dense<[[5.0, 2.0], [-3.0, 0.0]]> : tensor<2x2xf32>
  %scale = stablehlo.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %offset = stablehlo.constant dense<[0.5, -1.0]> : tensor<2xf32>
  %mean = stablehlo.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %var = stablehlo.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %0 = "stablehlo.batch_norm_inference"(%x, %scale, %offset, %mean, %var) {epsilon = 1.0 : f32, feature_index = 1 : i64} : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  check.expect_almost_eq_const %0, dense<[[4.5, 1.0], [-3.5, -1.0]]> : tensor<2x2xf32>
  return
}

// -----

// Feature 0 holds [1, 3] (mean 2, biased variance 1), feature 1 [4, 4] (mean 4,
// variance 0). With epsilon 3, feature 0 gives (x - 2) / sqrt(1 + 3) and
// feature 1 gives 0 / sqrt(0 + 3) plus its offset 1.
func.func @training() {
  %x = stablehlo.constant dense<[[1.0, 4.0], [3.0, 4.0]]> : tensor<2x2xf64>
  %scale = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf64>
  %offset = stablehlo.constant dense<[0.0, 1.0]> : tensor<2xf64>
  %0:3 = "stablehlo.batch_norm_training"(%x, %scale, %offset) {epsilon = 3.0 : f32, feature_index = 1 : i64} : (tensor<2x2xf64>, tensor<2xf64>, tensor<2xf64>) -> (tensor<2x2xf64>, tensor<2xf64>, tensor<2xf64>)
  check.expect_almost_eq_const %0#0, dense<[[-0.5, 1.0], [0.5, 1.0]]> : tensor<2x2xf64>
  check.expect_almost_eq_const %0#1, dense<[2.0, 4.0]> : tensor<2xf64>
  check.expect_almost_eq_const %0#2, dense<[1.0, 0.0]> : tensor<2xf64>
  return
}

// -----

// batch_norm_grad with the given mean [1, 0] and variance [0, 3], epsilon 1, so
// stddev is [1, 2] and N = 4 elements per feature.
// Feature 0: x̂ = [-1, 0, 0, 2], g = [1, 1, 2, 0]: mean(g) = 1, sum(g x̂) = -1,
//   grad = 2 / 1 * (g - 1 + x̂ / 4) = [-0.5, 0, 2, -1].
// Feature 1: x̂ = [1, -1, 2, 0], g = 1: mean(g) = 1, sum(g x̂) = 2,
//   grad = 4 / 2 * (1 - 1 - x̂ / 2) = [-1, 1, -2, 0].
func.func @grad() {
  %x = stablehlo.constant dense<[[0.0, 2.0], [1.0, -2.0], [1.0, 4.0], [3.0, 0.0]]> : tensor<4x2xf32>
  %scale = stablehlo.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %mean = stablehlo.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %var = stablehlo.constant dense<[0.0, 3.0]> : tensor<2xf32>
  %g = stablehlo.constant dense<[[1.0, 1.0], [1.0, 1.0], [2.0, 1.0], [0.0, 1.0]]> : tensor<4x2xf32>
  %0:3 = "stablehlo.batch_norm_grad"(%x, %scale, %mean, %var, %g) {epsilon = 1.0 : f32, feature_index = 1 : i64} : (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>)
  check.expect_almost_eq_const %0#0, dense<[[-0.5, -1.0], [0.0, 1.0], [2.0, -2.0], [-1.0, 0.0]]> : tensor<4x2xf32>
  check.expect_almost_eq_const %0#1, dense<[-1.0, 2.0]> : tensor<2xf32>
  check.expect_almost_eq_const %0#2, dense<[4.0, 4.0]> : tensor<2xf32>
  return
}

// -----

// Feature dim 0 of a bf16 operand, one element per feature (N = 1), so
// grad_operand = scale / stddev (g - g - x̂ (g x̂)) = -scale / stddev g x̂².
// x = [3], mean 1, variance 3, epsilon 1 (stddev 2, x̂ = 1), g = [4], scale [0.5]:
// grad_operand = -0.5 / 2 * 4 = -1, grad_scale = 4, grad_offset = 4.
func.func @grad_bf16_single() {
  %x = stablehlo.constant dense<[3.0]> : tensor<1xbf16>
  %scale = stablehlo.constant dense<[0.5]> : tensor<1xbf16>
  %mean = stablehlo.constant dense<[1.0]> : tensor<1xbf16>
  %var = stablehlo.constant dense<[3.0]> : tensor<1xbf16>
  %g = stablehlo.constant dense<[4.0]> : tensor<1xbf16>
  %0:3 = "stablehlo.batch_norm_grad"(%x, %scale, %mean, %var, %g) {epsilon = 1.0 : f32, feature_index = 0 : i64} : (tensor<1xbf16>, tensor<1xbf16>, tensor<1xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> (tensor<1xbf16>, tensor<1xbf16>, tensor<1xbf16>)
  check.expect_eq_const %0#0, dense<[-1.0]> : tensor<1xbf16>
  check.expect_eq_const %0#1, dense<[4.0]> : tensor<1xbf16>
  check.expect_eq_const %0#2, dense<[4.0]> : tensor<1xbf16>
  return
}

// -----

// No elements per feature: the sums are 0 and the operand gradient is empty.
func.func @grad_empty() {
  %x = stablehlo.constant dense<> : tensor<0x2xf64>
  %scale = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf64>
  %mean = stablehlo.constant dense<[0.0, 0.0]> : tensor<2xf64>
  %var = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf64>
  %0:3 = "stablehlo.batch_norm_grad"(%x, %scale, %mean, %var, %x) {epsilon = 0.0 : f32, feature_index = 1 : i64} : (tensor<0x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<0x2xf64>) -> (tensor<0x2xf64>, tensor<2xf64>, tensor<2xf64>)
  check.expect_eq_const %0#0, dense<> : tensor<0x2xf64>
  check.expect_eq_const %0#1, dense<[0.0, 0.0]> : tensor<2xf64>
  check.expect_eq_const %0#2, dense<[0.0, 0.0]> : tensor<2xf64>
  return
}
