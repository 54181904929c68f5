// stablehlo.batch_norm_inference and batch_norm_training, feature dim 1.
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
