// Shape ops: broadcast_in_dim, reshape, transpose, concatenate, iota, reverse,
// get_dimension_size. Expected values worked out by hand from the spec.
// Run: tlaloc run shape.mlir --split-input-file

// Operand axis i goes to result axis broadcast_dimensions[i]; size-1 axes repeat.
func.func @broadcast_in_dim() {
  %0 = stablehlo.constant dense<[[1], [2]]> : tensor<2x1xi32>
  %1 = stablehlo.broadcast_in_dim %0, dims = [1, 2] : (tensor<2x1xi32>) -> tensor<2x2x3xi32>
  check.expect_eq_const %1, dense<[[[1, 1, 1], [2, 2, 2]], [[1, 1, 1], [2, 2, 2]]]> : tensor<2x2x3xi32>
  %2 = stablehlo.constant dense<-0.0> : tensor<f32>
  %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<f32>) -> tensor<2xf32>
  check.expect_eq_const %3, dense<"0x0000008000000080"> : tensor<2xf32>
  return
}

// -----

// Unsorted dims transpose as they broadcast: result[i, j] = operand[j, i].
func.func @broadcast_in_dim_unsorted() {
  %0 = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xbf16>
  %1 = stablehlo.broadcast_in_dim %0, dims = [1, 0] : (tensor<2x3xbf16>) -> tensor<3x2xbf16>
  check.expect_eq_const %1, dense<[[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]> : tensor<3x2xbf16>
  return
}

// -----

func.func @reshape() {
  %0 = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi8>
  %1 = stablehlo.reshape %0 : (tensor<2x3xi8>) -> tensor<3x2xi8>
  check.expect_eq_const %1, dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi8>
  %2 = stablehlo.constant dense<0x7FC00000> : tensor<1x1xf32>
  %3 = stablehlo.reshape %2 : (tensor<1x1xf32>) -> tensor<f32>
  check.expect_eq_const %3, dense<0x7FC00000> : tensor<f32>
  %4 = stablehlo.constant dense<> : tensor<0x4xi64>
  %5 = stablehlo.reshape %4 : (tensor<0x4xi64>) -> tensor<2x0xi64>
  check.expect_eq_const %5, dense<> : tensor<2x0xi64>
  return
}

// -----

// Result axis d is operand axis permutation[d].
func.func @transpose() {
  %0 = stablehlo.constant dense<[[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 10], [11, 12]]]> : tensor<2x3x2xi64>
  %1 = stablehlo.transpose %0, dims = [1, 0, 2] : (tensor<2x3x2xi64>) -> tensor<3x2x2xi64>
  check.expect_eq_const %1, dense<[[[1, 2], [7, 8]], [[3, 4], [9, 10]], [[5, 6], [11, 12]]]> : tensor<3x2x2xi64>
  %2 = stablehlo.transpose %0, dims = [2, 1, 0] : (tensor<2x3x2xi64>) -> tensor<2x3x2xi64>
  check.expect_eq_const %2, dense<[[[1, 7], [3, 9], [5, 11]], [[2, 8], [4, 10], [6, 12]]]> : tensor<2x3x2xi64>
  return
}

// -----

func.func @concatenate() {
  %0 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xui8>
  %1 = stablehlo.constant dense<[[255, 0]]> : tensor<1x2xui8>
  %2 = stablehlo.constant dense<> : tensor<0x2xui8>
  %3 = stablehlo.concatenate %0, %2, %1, dim = 0 : (tensor<2x2xui8>, tensor<0x2xui8>, tensor<1x2xui8>) -> tensor<3x2xui8>
  check.expect_eq_const %3, dense<[[1, 2], [3, 4], [255, 0]]> : tensor<3x2xui8>
  %4 = stablehlo.constant dense<[[true], [false]]> : tensor<2x1xi1>
  %5 = stablehlo.constant dense<[[false], [true]]> : tensor<2x1xi1>
  %6 = stablehlo.concatenate %4, %5, dim = 1 : (tensor<2x1xi1>, tensor<2x1xi1>) -> tensor<2x2xi1>
  check.expect_eq_const %6, dense<[[true, false], [false, true]]> : tensor<2x2xi1>
  return
}

// -----

func.func @iota() {
  %0 = stablehlo.iota dim = 0 : tensor<4x2xi32>
  check.expect_eq_const %0, dense<[[0, 0], [1, 1], [2, 2], [3, 3]]> : tensor<4x2xi32>
  %1 = stablehlo.iota dim = 1 : tensor<2x3xf16>
  check.expect_eq_const %1, dense<[[0.0, 1.0, 2.0], [0.0, 1.0, 2.0]]> : tensor<2x3xf16>
  %2 = stablehlo.iota dim = 0 : tensor<0xf64>
  check.expect_eq_const %2, dense<> : tensor<0xf64>
  return
}

// -----

func.func @reverse() {
  %0 = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf64>
  %1 = stablehlo.reverse %0, dims = [1, 0] : tensor<3x2xf64>
  check.expect_eq_const %1, dense<[[6.0, 5.0], [4.0, 3.0], [2.0, 1.0]]> : tensor<3x2xf64>
  %2 = stablehlo.reverse %0, dims = [0] : tensor<3x2xf64>
  check.expect_eq_const %2, dense<[[5.0, 6.0], [3.0, 4.0], [1.0, 2.0]]> : tensor<3x2xf64>
  %3 = stablehlo.reverse %0, dims = [] : tensor<3x2xf64>
  check.expect_eq_const %3, dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf64>
  return
}

// -----

func.func @get_dimension_size() {
  %0 = stablehlo.constant dense<> : tensor<2x0x5xf32>
  %1 = stablehlo.get_dimension_size %0, dim = 2 : (tensor<2x0x5xf32>) -> tensor<i32>
  check.expect_eq_const %1, dense<5> : tensor<i32>
  %2 = stablehlo.get_dimension_size %0, dim = 1 : (tensor<2x0x5xf32>) -> tensor<i32>
  check.expect_eq_const %2, dense<0> : tensor<i32>
  return
}
