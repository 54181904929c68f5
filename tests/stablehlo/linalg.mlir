// stablehlo.cholesky and stablehlo.triangular_solve, values worked out by hand.
// Run: tlaloc run linalg.mlir --split-input-file

// [[4, 12, -16], [12, 37, -43], [-16, -43, 98]] = L L^T with
// L = [[2, 0, 0], [6, 1, 0], [-8, 5, 3]]; the upper factor is L^T.
func.func @cholesky() {
  %a = stablehlo.constant dense<[[4.0, 12.0, -16.0], [12.0, 37.0, -43.0], [-16.0, -43.0, 98.0]]> : tensor<3x3xf64>
  %0 = stablehlo.cholesky %a, lower = true : tensor<3x3xf64>
  check.expect_almost_eq_const %0, dense<[[2.0, 0.0, 0.0], [6.0, 1.0, 0.0], [-8.0, 5.0, 3.0]]> : tensor<3x3xf64>
  %1 = "stablehlo.cholesky"(%a) {lower = false} : (tensor<3x3xf64>) -> tensor<3x3xf64>
  check.expect_almost_eq_const %1, dense<[[2.0, 6.0, -8.0], [0.0, 1.0, 5.0], [0.0, 0.0, 3.0]]> : tensor<3x3xf64>
  return
}

// -----

// A batch of two f32 matrices: [[4, 2], [2, 5]] gives [[2, 0], [1, 2]], the
// identity itself; an empty batch gives an empty result.
func.func @cholesky_batch() {
  %a = stablehlo.constant dense<[[[4.0, 2.0], [2.0, 5.0]], [[1.0, 0.0], [0.0, 1.0]]]> : tensor<2x2x2xf32>
  %0 = stablehlo.cholesky %a, lower = true : tensor<2x2x2xf32>
  check.expect_almost_eq_const %0, dense<[[[2.0, 0.0], [1.0, 2.0]], [[1.0, 0.0], [0.0, 1.0]]]> : tensor<2x2x2xf32>
  %e = stablehlo.constant dense<> : tensor<0x2x2xf32>
  %1 = stablehlo.cholesky %e, lower = true : tensor<0x2x2xf32>
  check.expect_eq_const %1, dense<> : tensor<0x2x2xf32>
  return
}

// -----

// a's lower triangle is [[2, 0], [1, 4]]; its upper entry 7 is ignored.
// a x = [2, 9]: x = [1, 2]. a^T x = [4, 8]: x = [1, 2]. x a = [4, 8]: x = [1, 2].
// With a unit diagonal, [[1, 0], [1, 1]] x = [2, 9]: x = [2, 7].
func.func @triangular_solve_lower() {
  %a = stablehlo.constant dense<[[2.0, 7.0], [1.0, 4.0]]> : tensor<2x2xf32>
  %b = stablehlo.constant dense<[[2.0], [9.0]]> : tensor<2x1xf32>
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false} : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  check.expect_almost_eq_const %0, dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %c = stablehlo.constant dense<[[4.0], [8.0]]> : tensor<2x1xf32>
  %1 = "stablehlo.triangular_solve"(%a, %c) {left_side = true, lower = true, transpose_a = #stablehlo<transpose TRANSPOSE>, unit_diagonal = false} : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  check.expect_almost_eq_const %1, dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %d = stablehlo.constant dense<[[4.0, 8.0]]> : tensor<1x2xf32>
  %2 = "stablehlo.triangular_solve"(%a, %d) {left_side = false, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false} : (tensor<2x2xf32>, tensor<1x2xf32>) -> tensor<1x2xf32>
  check.expect_almost_eq_const %2, dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  %3 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = true} : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  check.expect_almost_eq_const %3, dense<[[2.0], [7.0]]> : tensor<2x1xf32>
  return
}

// -----

// The upper triangle [[2, 1], [0, 4]] (99 below is ignored): a x = [4, 8] gives
// x = [1, 2]; x a^T = [4, 8] (x0 * 2 + x1 = 4, x1 * 4 = 8) gives the same;
// ADJOINT of a real matrix is its transpose: a^T x = [2, 9] gives [1, 2].
func.func @triangular_solve_upper() {
  %a = stablehlo.constant dense<[[2.0, 1.0], [99.0, 4.0]]> : tensor<2x2xf64>
  %b = stablehlo.constant dense<[[4.0], [8.0]]> : tensor<2x1xf64>
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false} : (tensor<2x2xf64>, tensor<2x1xf64>) -> tensor<2x1xf64>
  check.expect_almost_eq_const %0, dense<[[1.0], [2.0]]> : tensor<2x1xf64>
  %c = stablehlo.constant dense<[[4.0, 8.0]]> : tensor<1x2xf64>
  %1 = "stablehlo.triangular_solve"(%a, %c) {left_side = false, lower = false, transpose_a = #stablehlo<transpose TRANSPOSE>, unit_diagonal = false} : (tensor<2x2xf64>, tensor<1x2xf64>) -> tensor<1x2xf64>
  check.expect_almost_eq_const %1, dense<[[1.0, 2.0]]> : tensor<1x2xf64>
  %d = stablehlo.constant dense<[[2.0], [9.0]]> : tensor<2x1xf64>
  %2 = "stablehlo.triangular_solve"(%a, %d) {left_side = true, lower = false, transpose_a = #stablehlo<transpose ADJOINT>, unit_diagonal = false} : (tensor<2x2xf64>, tensor<2x1xf64>) -> tensor<2x1xf64>
  check.expect_almost_eq_const %2, dense<[[1.0], [2.0]]> : tensor<2x1xf64>
  return
}
