// The dynamic-shape ops: dynamic_broadcast_in_dim, dynamic_reshape, dynamic_iota,
// dynamic_pad, dynamic_gather, dynamic_conv. Sizes come from operand values; a
// `?` in a result type is known only when the op runs, a static dim must agree.
// Results of `?` type are compared through custom_call @check.expect_eq, which
// compares the run-time shapes. Run: tlaloc run dynamic.mlir --split-input-file

// The operand's axis 0 becomes result axis 1; result axis 0 (size 2 from the
// shape operand) repeats it.
func.func @broadcast_in_dim_dynamic_result() {
  %x = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %s = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
  %0 = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [1] : (tensor<3xi32>, tensor<2xi64>) -> tensor<?x3xi32>
  %e = stablehlo.constant dense<[[1, 2, 3], [1, 2, 3]]> : tensor<2x3xi32>
  stablehlo.custom_call @check.expect_eq(%0, %e) : (tensor<?x3xi32>, tensor<2x3xi32>) -> ()
  return
}

// -----

// Dims in any order: operand [2, 1] to result [1, 2] with dims [1, 0]; the size-1
// axis expands, the size-2 one does not, as the hints say.
func.func @broadcast_in_dim_hints() {
  %x = stablehlo.constant dense<[[1.5], [-0.0]]> : tensor<2x1xf32>
  %s = stablehlo.constant dense<[3, 2]> : tensor<2xi32>
  %0 = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [1, 0] {known_expanding_dimensions = array<i64: 1>, known_nonexpanding_dimensions = array<i64: 0>} : (tensor<2x1xf32>, tensor<2xi32>) -> tensor<3x2xf32>
  check.expect_eq_const %0, dense<[[1.5, -0.0], [1.5, -0.0], [1.5, -0.0]]> : tensor<3x2xf32>
  %b = stablehlo.constant dense<true> : tensor<i1>
  %t = stablehlo.constant dense<[2, 0]> : tensor<2xui8>
  %1 = stablehlo.dynamic_broadcast_in_dim %b, %t, dims = [] : (tensor<i1>, tensor<2xui8>) -> tensor<?x?xi1>
  %e = stablehlo.constant dense<> : tensor<2x0xi1>
  stablehlo.custom_call @check.expect_eq(%1, %e) : (tensor<?x?xi1>, tensor<2x0xi1>) -> ()
  return
}

// -----

// Row-major order is kept: [0..5] as 3x2 is [[0, 1], [2, 3], [4, 5]].
func.func @reshape() {
  %x = stablehlo.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<6xf64>
  %s = stablehlo.constant dense<[3, 2]> : tensor<2xi64>
  %0 = stablehlo.dynamic_reshape %x, %s : (tensor<6xf64>, tensor<2xi64>) -> tensor<?x?xf64>
  %e = stablehlo.constant dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]> : tensor<3x2xf64>
  stablehlo.custom_call @check.expect_eq(%0, %e) : (tensor<?x?xf64>, tensor<3x2xf64>) -> ()
  %z = stablehlo.constant dense<> : tensor<0xi8>
  %t = stablehlo.constant dense<[0, 5]> : tensor<2xi32>
  %1 = stablehlo.dynamic_reshape %z, %t : (tensor<0xi8>, tensor<2xi32>) -> tensor<0x5xi8>
  check.expect_eq_const %1, dense<> : tensor<0x5xi8>
  return
}

// -----

// iota counts along iota_dimension and repeats along the others.
func.func @iota() {
  %s = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
  %0 = stablehlo.dynamic_iota %s, dim = 1 : (tensor<2xi64>) -> tensor<2x3xi32>
  check.expect_eq_const %0, dense<[[0, 1, 2], [0, 1, 2]]> : tensor<2x3xi32>
  %1 = stablehlo.dynamic_iota %s, dim = 0 : (tensor<2xi64>) -> tensor<?x?xbf16>
  %e = stablehlo.constant dense<[[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]> : tensor<2x3xbf16>
  stablehlo.custom_call @check.expect_eq(%1, %e) : (tensor<?x?xbf16>, tensor<2x3xbf16>) -> ()
  %n = stablehlo.constant dense<[4]> : tensor<1xui32>
  %2 = stablehlo.dynamic_iota %n, dim = 0 : (tensor<1xui32>) -> tensor<4xui8>
  check.expect_eq_const %2, dense<[0, 1, 2, 3]> : tensor<4xui8>
  return
}

// -----

// Low 1, interior 1, high 2 around [1, 2, 3]: 1 + 3 + 2 + 2 = 8 elements.
// Negative low padding removes elements.
func.func @pad() {
  %x = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %v = stablehlo.constant dense<0> : tensor<i32>
  %lo = stablehlo.constant dense<[1]> : tensor<1xi64>
  %hi = stablehlo.constant dense<[2]> : tensor<1xi64>
  %in = stablehlo.constant dense<[1]> : tensor<1xi64>
  %0 = stablehlo.dynamic_pad %x, %v, %lo, %hi, %in : (tensor<3xi32>, tensor<i32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xi32>
  %e = stablehlo.constant dense<[0, 1, 0, 2, 0, 3, 0, 0]> : tensor<8xi32>
  stablehlo.custom_call @check.expect_eq(%0, %e) : (tensor<?xi32>, tensor<8xi32>) -> ()
  %neg = stablehlo.constant dense<[-1]> : tensor<1xi64>
  %zero = stablehlo.constant dense<[0]> : tensor<1xi64>
  %1 = stablehlo.dynamic_pad %x, %v, %neg, %zero, %zero : (tensor<3xi32>, tensor<i32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2xi32>
  check.expect_eq_const %1, dense<[2, 3]> : tensor<2xi32>
  return
}

// -----

// A NaN padding value, padding on both axes of a 2-D f32 operand.
func.func @pad_nan_2d() {
  %x = stablehlo.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  %v = stablehlo.constant dense<0x7FC00000> : tensor<f32>
  %lo = stablehlo.constant dense<[0, 1]> : tensor<2xi32>
  %hi = stablehlo.constant dense<[1, 0]> : tensor<2xi32>
  %in = stablehlo.constant dense<[0, 0]> : tensor<2xi32>
  %0 = stablehlo.dynamic_pad %x, %v, %lo, %hi, %in : (tensor<1x2xf32>, tensor<f32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<2x3xf32>
  check.expect_eq_const %0, dense<[[0x7FC00000, 1.0, 2.0], [0x7FC00000, 0x7FC00000, 0x7FC00000]]> : tensor<2x3xf32>
  return
}

// -----

// Slices of size [1, 2] start at (0, 1), (2, 0) and (2, 2); the last start is
// clamped to (2, 1) so that the slice fits.
func.func @gather() {
  %x = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6], [7, 8, 9]]> : tensor<3x3xi32>
  %i = stablehlo.constant dense<[[0, 1], [2, 0], [2, 2]]> : tensor<3x2xi64>
  %s = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %0 = "stablehlo.dynamic_gather"(%x, %i, %s) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0, 1], index_vector_dim = 1>}> : (tensor<3x3xi32>, tensor<3x2xi64>, tensor<2xi64>) -> tensor<3x?xi32>
  %e = stablehlo.constant dense<[[2, 3], [7, 8], [8, 9]]> : tensor<3x2xi32>
  stablehlo.custom_call @check.expect_eq(%0, %e) : (tensor<3x?xi32>, tensor<3x2xi32>) -> ()
  return
}

// -----

// 1-D convolution of [1, 2, 3] with [1, 1], padding [[1, 1]]: the padded input
// is [0, 1, 2, 3, 0] and the window sums are [1, 3, 5, 3].
func.func @conv() {
  %x = stablehlo.constant dense<[[[1.0, 2.0, 3.0]]]> : tensor<1x1x3xf32>
  %k = stablehlo.constant dense<[[[1.0, 1.0]]]> : tensor<1x1x2xf32>
  %p = stablehlo.constant dense<[[1, 1]]> : tensor<1x2xi64>
  %0 = "stablehlo.dynamic_conv"(%x, %k, %p) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 1, input_spatial_dimensions = [2], kernel_input_feature_dimension = 1, kernel_output_feature_dimension = 0, kernel_spatial_dimensions = [2], output_batch_dimension = 0, output_feature_dimension = 1, output_spatial_dimensions = [2]>, feature_group_count = 1 : i64} : (tensor<1x1x3xf32>, tensor<1x1x2xf32>, tensor<1x2xi64>) -> tensor<1x1x?xf32>
  %e = stablehlo.constant dense<[[[1.0, 3.0, 5.0, 3.0]]]> : tensor<1x1x4xf32>
  stablehlo.custom_call @check.expect_eq(%0, %e) : (tensor<1x1x?xf32>, tensor<1x1x4xf32>) -> ()
  %q = stablehlo.constant dense<[[0, -1]]> : tensor<1x2xi64>
  %1 = "stablehlo.dynamic_conv"(%x, %k, %q) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 1, input_spatial_dimensions = [2], kernel_input_feature_dimension = 1, kernel_output_feature_dimension = 0, kernel_spatial_dimensions = [2], output_batch_dimension = 0, output_feature_dimension = 1, output_spatial_dimensions = [2]>, feature_group_count = 1 : i64} : (tensor<1x1x3xf32>, tensor<1x1x2xf32>, tensor<1x2xi64>) -> tensor<1x1x1xf32>
  check.expect_eq_const %1, dense<[[[3.0]]]> : tensor<1x1x1xf32>
  return
}
