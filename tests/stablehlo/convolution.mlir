// stablehlo.convolution: layouts from dimension_numbers, strides, padding
// (negative too), lhs/rhs dilation, window reversal, feature and batch groups.
// Values worked out by hand from the spec's definition.
// Run: tlaloc run convolution.mlir --split-input-file

// 1-D, x = [1, 2, 3, 4], kernel [1, 10]: out[j] = x[j] + 10 * x[j + 1].
func.func @one_dim_window() {
  %x = stablehlo.constant dense<[[[1.0], [2.0], [3.0], [4.0]]]> : tensor<1x4x1xf32>
  %k = stablehlo.constant dense<[[[1.0]], [[10.0]]]> : tensor<2x1x1xf32>
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [1], pad = [[0, 0]], lhs_dilate = [1], rhs_dilate = [1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x1xf32>, tensor<2x1x1xf32>) -> tensor<1x3x1xf32>
  check.expect_eq_const %0, dense<[[[21.0], [32.0], [43.0]]]> : tensor<1x3x1xf32>
  // Stride 2 keeps windows 0 and 2.
  %1 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x1xf32>, tensor<2x1x1xf32>) -> tensor<1x2x1xf32>
  check.expect_eq_const %1, dense<[[[21.0], [43.0]]]> : tensor<1x2x1xf32>
  // One zero in front: [0, 1, 2, 3, 4].
  %2 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {pad = [[1, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x1xf32>, tensor<2x1x1xf32>) -> tensor<1x4x1xf32>
  check.expect_eq_const %2, dense<[[[10.0], [21.0], [32.0], [43.0]]]> : tensor<1x4x1xf32>
  // Negative padding drops the first element: [2, 3, 4].
  %3 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {pad = [[-1, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x1xf32>, tensor<2x1x1xf32>) -> tensor<1x2x1xf32>
  check.expect_eq_const %3, dense<[[[32.0], [43.0]]]> : tensor<1x2x1xf32>
  return
}

// -----

func.func @one_dim_dilation_and_reversal() {
  %x = stablehlo.constant dense<[[[1.0], [2.0], [3.0], [4.0]]]> : tensor<1x4x1xf64>
  %k = stablehlo.constant dense<[[[1.0]], [[10.0]]]> : tensor<2x1x1xf64>
  // lhs dilation 2: [1, 0, 2, 0, 3, 0, 4].
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {lhs_dilate = [2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x1xf64>, tensor<2x1x1xf64>) -> tensor<1x6x1xf64>
  check.expect_eq_const %0, dense<[[[1.0], [20.0], [2.0], [30.0], [3.0], [40.0]]]> : tensor<1x6x1xf64>
  // rhs dilation 2: out[j] = x[j] + 10 * x[j + 2].
  %1 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {rhs_dilate = [2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x1xf64>, tensor<2x1x1xf64>) -> tensor<1x2x1xf64>
  check.expect_eq_const %1, dense<[[[31.0], [42.0]]]> : tensor<1x2x1xf64>
  // Reversed window [10, 1]: out[j] = 10 * x[j] + x[j + 1].
  %2 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {reverse = [true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x1xf64>, tensor<2x1x1xf64>) -> tensor<1x3x1xf64>
  check.expect_eq_const %2, dense<[[[12.0], [23.0], [34.0]]]> : tensor<1x3x1xf64>
  return
}

// -----

// NHWC input, HWIO kernel. x = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]; feature 0 of
// the kernel sums each 2x2 window, feature 1 is x[i][j] - x[i + 1][j + 1] = -4.
func.func @nhwc_two_dims() {
  %x = stablehlo.constant dense<[[[[1.0], [2.0], [3.0]], [[4.0], [5.0], [6.0]], [[7.0], [8.0], [9.0]]]]> : tensor<1x3x3x1xf32>
  %k = stablehlo.constant dense<[[[[1.0, 1.0]], [[1.0, 0.0]]], [[[1.0, 0.0]], [[1.0, -1.0]]]]> : tensor<2x2x1x2xf32>
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x1xf32>, tensor<2x2x1x2xf32>) -> tensor<1x2x2x2xf32>
  check.expect_eq_const %0, dense<[[[[12.0, -4.0], [16.0, -4.0]], [[24.0, -4.0], [28.0, -4.0]]]]> : tensor<1x2x2x2xf32>
  // Padding 1 on every side, stride 2, a 2x2 kernel of ones: windows at padded
  // (0, 0), (0, 2), (2, 0), (2, 2) hold 1, 2 + 3, 4 + 7 and 5 + 6 + 8 + 9.
  %ones = stablehlo.constant dense<1.0> : tensor<2x2x1x1xf32>
  %1 = stablehlo.convolution(%x, %ones) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x1xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x1xf32>
  check.expect_eq_const %1, dense<[[[[1.0], [5.0]], [[11.0], [28.0]]]]> : tensor<1x2x2x1xf32>
  // The same in NCHW / OIHW, written in the generic form with the raw layout.
  %xc = stablehlo.constant dense<[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]]]> : tensor<1x1x3x3xf64>
  %kc = stablehlo.constant dense<1.0> : tensor<1x1x2x2xf64>
  %2 = "stablehlo.convolution"(%xc, %kc) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 1, input_spatial_dimensions = [2, 3], kernel_input_feature_dimension = 1, kernel_output_feature_dimension = 0, kernel_spatial_dimensions = [2, 3], output_batch_dimension = 0, output_feature_dimension = 1, output_spatial_dimensions = [2, 3]>, feature_group_count = 1 : i64, padding = dense<1> : tensor<2x2xi64>, window_strides = array<i64: 2, 2>} : (tensor<1x1x3x3xf64>, tensor<1x1x2x2xf64>) -> tensor<1x1x2x2xf64>
  check.expect_eq_const %2, dense<[[[[1.0, 5.0], [11.0, 28.0]]]]> : tensor<1x1x2x2xf64>
  return
}

// -----

// feature_group_count 2: features [1, 3] and [2, 4] each meet their own kernel
// feature, 10 and 100 (integers use the direct loop).
func.func @feature_groups() {
  %x = stablehlo.constant dense<[[[1, 2], [3, 4]]]> : tensor<1x2x2xi32>
  %k = stablehlo.constant dense<[[[10, 100]]]> : tensor<1x1x2xi32>
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x2x2xi32>, tensor<1x1x2xi32>) -> tensor<1x2x2xi32>
  check.expect_eq_const %0, dense<[[[10, 200], [30, 400]]]> : tensor<1x2x2xi32>
  %xf = stablehlo.constant dense<[[[[1.0, 2.0]], [[3.0, 4.0]]]]> : tensor<1x2x1x2xf32>
  %kf = stablehlo.constant dense<[[[[10.0, 100.0]]]]> : tensor<1x1x1x2xf32>
  %1 = stablehlo.convolution(%xf, %kf) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x2x1x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x2x1x2xf32>
  check.expect_eq_const %1, dense<[[[[10.0, 200.0]], [[30.0, 400.0]]]]> : tensor<1x2x1x2xf32>
  return
}

// -----

// batch_group_count 2: batch 0 ([1, 2]) meets output feature 0 (10), batch 1
// ([3, 4]) output feature 1 (100); the result has one batch entry.
func.func @batch_groups() {
  %x = stablehlo.constant dense<[[[1.0], [2.0]], [[3.0], [4.0]]]> : tensor<2x2x1xf32>
  %k = stablehlo.constant dense<[[[10.0, 100.0]]]> : tensor<1x1x2xf32>
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {} {batch_group_count = 2 : i64, feature_group_count = 1 : i64} : (tensor<2x2x1xf32>, tensor<1x1x2xf32>) -> tensor<1x2x2xf32>
  check.expect_eq_const %0, dense<[[[10.0, 300.0], [20.0, 400.0]]]> : tensor<1x2x2xf32>
  return
}

// -----

// An i8 convolution with an i32 result does not wrap at 127; an empty batch
// gives an empty result; a window larger than the input gives no windows.
func.func @types_and_empty() {
  %x = stablehlo.constant dense<[[[100], [100]]]> : tensor<1x2x1xi8>
  %k = stablehlo.constant dense<[[[2]], [[3]]]> : tensor<2x1x1xi8>
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x1xi8>, tensor<2x1x1xi8>) -> tensor<1x1x1xi32>
  check.expect_eq_const %0, dense<500> : tensor<1x1x1xi32>
  %e = stablehlo.constant dense<> : tensor<0x3x3x1xf32>
  %ones = stablehlo.constant dense<1.0> : tensor<2x2x1x1xf32>
  %1 = stablehlo.convolution(%e, %ones) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<0x3x3x1xf32>, tensor<2x2x1x1xf32>) -> tensor<0x2x2x1xf32>
  check.expect_eq_const %1, dense<> : tensor<0x2x2x1xf32>
  %s = stablehlo.constant dense<1.0> : tensor<1x1x1x1xf32>
  %2 = stablehlo.convolution(%s, %ones) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x1x1x1xf32>, tensor<2x2x1x1xf32>) -> tensor<1x0x0x1xf32>
  check.expect_eq_const %2, dense<> : tensor<1x0x0x1xf32>
  return
}
