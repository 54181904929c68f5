// slice, dynamic_slice, dynamic_update_slice, pad. Values worked out by hand.
// Run: tlaloc run slicing.mlir --split-input-file

func.func @slice() {
  %0 = stablehlo.constant dense<[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]> : tensor<3x4xi64>
  %1 = stablehlo.slice %0 [1:3, 0:4:2] : (tensor<3x4xi64>) -> tensor<2x2xi64>
  check.expect_eq_const %1, dense<[[4, 6], [8, 10]]> : tensor<2x2xi64>
  // A stride that does not divide the range: ceil((4 - 1) / 2) = 2 elements.
  %2 = stablehlo.slice %0 [0:1, 1:4:2] : (tensor<3x4xi64>) -> tensor<1x2xi64>
  check.expect_eq_const %2, dense<[[1, 3]]> : tensor<1x2xi64>
  %3 = stablehlo.slice %0 [2:2, 0:4] : (tensor<3x4xi64>) -> tensor<0x4xi64>
  check.expect_eq_const %3, dense<> : tensor<0x4xi64>
  return
}

// -----

// Start indices are clamped to [0, dim - size]: 5 -> 2, -1 -> 0.
func.func @dynamic_slice() {
  %0 = stablehlo.constant dense<[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0], [9.0, 10.0, 11.0]]> : tensor<4x3xf32>
  %i = stablehlo.constant dense<1> : tensor<i32>
  %j = stablehlo.constant dense<0> : tensor<i32>
  %1 = stablehlo.dynamic_slice %0, %i, %j, sizes = [2, 2] : (tensor<4x3xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
  check.expect_eq_const %1, dense<[[3.0, 4.0], [6.0, 7.0]]> : tensor<2x2xf32>
  %big = stablehlo.constant dense<5> : tensor<i64>
  %neg = stablehlo.constant dense<-1> : tensor<i64>
  %2 = stablehlo.dynamic_slice %0, %big, %neg, sizes = [2, 2] : (tensor<4x3xf32>, tensor<i64>, tensor<i64>) -> tensor<2x2xf32>
  check.expect_eq_const %2, dense<[[6.0, 7.0], [9.0, 10.0]]> : tensor<2x2xf32>
  return
}

// -----

func.func @dynamic_update_slice() {
  %0 = stablehlo.constant dense<[[1, 1, 1], [1, 1, 1]]> : tensor<2x3xi8>
  %u = stablehlo.constant dense<[[-128, 127]]> : tensor<1x2xi8>
  %i = stablehlo.constant dense<1> : tensor<i64>
  %j = stablehlo.constant dense<1> : tensor<i64>
  %1 = stablehlo.dynamic_update_slice %0, %u, %i, %j : (tensor<2x3xi8>, tensor<1x2xi8>, tensor<i64>, tensor<i64>) -> tensor<2x3xi8>
  check.expect_eq_const %1, dense<[[1, 1, 1], [1, -128, 127]]> : tensor<2x3xi8>
  // Clamped: a start of 7 on the axis of 3 becomes 3 - 2 = 1; -4 becomes 0.
  %k = stablehlo.constant dense<7> : tensor<i64>
  %l = stablehlo.constant dense<-4> : tensor<i64>
  %2 = stablehlo.dynamic_update_slice %0, %u, %l, %k : (tensor<2x3xi8>, tensor<1x2xi8>, tensor<i64>, tensor<i64>) -> tensor<2x3xi8>
  check.expect_eq_const %2, dense<[[1, -128, 127], [1, 1, 1]]> : tensor<2x3xi8>
  return
}

// -----

// low 1, high 2, interior 1 on a row of 3: [p, a, p, b, p, c, p, p].
func.func @pad() {
  %0 = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %p = stablehlo.constant dense<0x7FC00000> : tensor<f32>
  %1 = stablehlo.pad %0, %p, low = [1], high = [2], interior = [1] : (tensor<3xf32>, tensor<f32>) -> tensor<8xf32>
  check.expect_eq_const %1, dense<[0x7FC00000, 1.0, 0x7FC00000, 2.0, 0x7FC00000, 3.0, 0x7FC00000, 0x7FC00000]> : tensor<8xf32>
  return
}

// -----

// Negative edge padding removes elements from the interior-padded row
// [1, 0, 2, 0, 3]: low -1 drops the 1, high -2 drops the trailing 0 and 3.
func.func @pad_negative() {
  %0 = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %p = stablehlo.constant dense<0> : tensor<i32>
  %1 = stablehlo.pad %0, %p, low = [-1], high = [-2], interior = [1] : (tensor<3xi32>, tensor<i32>) -> tensor<2xi32>
  check.expect_eq_const %1, dense<[0, 2]> : tensor<2xi32>
  %2 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %3 = stablehlo.pad %2, %p, low = [1, -1], high = [-1, 1], interior = [0, 0] : (tensor<2x2xi32>, tensor<i32>) -> tensor<2x2xi32>
  check.expect_eq_const %3, dense<[[0, 0], [2, 0]]> : tensor<2x2xi32>
  return
}

// -----

func.func @pad_empty() {
  %0 = stablehlo.constant dense<> : tensor<0xbf16>
  %p = stablehlo.constant dense<-0.0> : tensor<bf16>
  %1 = stablehlo.pad %0, %p, low = [1], high = [1], interior = [3] : (tensor<0xbf16>, tensor<bf16>) -> tensor<2xbf16>
  check.expect_eq_const %1, dense<"0x00800080"> : tensor<2xbf16>
  return
}
