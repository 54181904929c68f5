// compare (every direction and compare_type) and select.
// Run: tlaloc run compare_select.mlir --split-input-file

// FLOAT: NaN is unordered, so every direction but NE is false; -0.0 == +0.0.
func.func @compare_float() {
  %0 = stablehlo.constant dense<[1.0, 2.0, 0x7FC00000, -0.0]> : tensor<4xf32>
  %1 = stablehlo.constant dense<[2.0, 2.0, 0x7FC00000, 0.0]> : tensor<4xf32>
  %2 = stablehlo.compare  EQ, %0, %1,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  check.expect_eq_const %2, dense<[false, true, false, true]> : tensor<4xi1>
  %3 = stablehlo.compare  NE, %0, %1,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  check.expect_eq_const %3, dense<[true, false, true, false]> : tensor<4xi1>
  %4 = stablehlo.compare  LT, %0, %1,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  check.expect_eq_const %4, dense<[true, false, false, false]> : tensor<4xi1>
  %5 = stablehlo.compare  LE, %0, %1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  check.expect_eq_const %5, dense<[true, true, false, true]> : tensor<4xi1>
  %6 = stablehlo.compare  GT, %0, %1,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  check.expect_eq_const %6, dense<[false, false, false, false]> : tensor<4xi1>
  %7 = stablehlo.compare  GE, %0, %1,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  check.expect_eq_const %7, dense<[false, true, false, true]> : tensor<4xi1>
  return
}

// -----

// TOTALORDER: -NaN < -Inf < -1 < -0.0 < +0.0 < +Inf < +NaN, and NaN == NaN.
func.func @compare_totalorder() {
  %0 = stablehlo.constant dense<[0xFFC00000, 0xFF800000, -0.0, 0x7F800000, 0x7FC00000]> : tensor<5xf32>
  %1 = stablehlo.constant dense<[0xFF800000, -1.0, 0.0, 0x7FC00000, 0x7FC00000]> : tensor<5xf32>
  %2 = stablehlo.compare  LT, %0, %1,  TOTALORDER : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
  check.expect_eq_const %2, dense<[true, true, true, true, false]> : tensor<5xi1>
  %3 = stablehlo.compare  EQ, %0, %1,  TOTALORDER : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
  check.expect_eq_const %3, dense<[false, false, false, false, true]> : tensor<5xi1>
  return
}

// -----

// SIGNED and UNSIGNED read the same bits differently; i1 compares false < true.
func.func @compare_integers() {
  %0 = stablehlo.constant dense<[-1, 5, 0]> : tensor<3xi32>
  %1 = stablehlo.constant dense<[0, 5, 1]> : tensor<3xi32>
  %2 = stablehlo.compare  LT, %0, %1,  SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
  check.expect_eq_const %2, dense<[true, false, true]> : tensor<3xi1>
  %3 = stablehlo.constant dense<[255, 5, 0]> : tensor<3xui8>
  %4 = stablehlo.constant dense<[0, 5, 1]> : tensor<3xui8>
  %5 = stablehlo.compare  GT, %3, %4,  UNSIGNED : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xi1>
  check.expect_eq_const %5, dense<[true, false, false]> : tensor<3xi1>
  %6 = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %7 = stablehlo.constant dense<[false, false]> : tensor<2xi1>
  %8 = stablehlo.compare  GT, %6, %7,  UNSIGNED : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  check.expect_eq_const %8, dense<[true, false]> : tensor<2xi1>
  %9 = "stablehlo.compare"(%0, %1) {comparison_direction = #stablehlo<comparison_direction GE>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
  check.expect_eq_const %9, dense<[false, true, false]> : tensor<3xi1>
  return
}

// -----

func.func @select() {
  %0 = stablehlo.constant dense<[true, false, true]> : tensor<3xi1>
  %1 = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %2 = stablehlo.constant dense<[-1.0, -2.0, -3.0]> : tensor<3xf32>
  %3 = stablehlo.select %0, %1, %2 : tensor<3xi1>, tensor<3xf32>
  check.expect_eq_const %3, dense<[1.0, -2.0, 3.0]> : tensor<3xf32>
  %4 = stablehlo.constant dense<false> : tensor<i1>
  %5 = stablehlo.select %4, %1, %2 : (tensor<i1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  check.expect_eq_const %5, dense<[-1.0, -2.0, -3.0]> : tensor<3xf32>
  %6 = stablehlo.constant dense<[[7, 8]]> : tensor<1x2xi64>
  %7 = stablehlo.constant dense<[[9, 10]]> : tensor<1x2xi64>
  %8 = stablehlo.constant dense<[[false, true]]> : tensor<1x2xi1>
  %9 = stablehlo.select %8, %6, %7 : tensor<1x2xi1>, tensor<1x2xi64>
  check.expect_eq_const %9, dense<[[9, 8]]> : tensor<1x2xi64>
  return
}

// -----

// Unsigned compare types on the wide unsigned types: 2^63 + 1 and 2^64 - 1 are
// above 1 (a signed reading would put them below).
func.func @unsigned_wide() {
  %0 = stablehlo.constant dense<[9223372036854775809, 18446744073709551615, 0]> : tensor<3xui64>
  %1 = stablehlo.constant dense<[1, 18446744073709551615, 1]> : tensor<3xui64>
  %2 = stablehlo.compare  GT, %0, %1,  UNSIGNED : (tensor<3xui64>, tensor<3xui64>) -> tensor<3xi1>
  check.expect_eq_const %2, dense<[true, false, false]> : tensor<3xi1>
  %3 = stablehlo.constant dense<[4294967295, 7]> : tensor<2xui32>
  %4 = stablehlo.constant dense<[1, 7]> : tensor<2xui32>
  %5 = stablehlo.compare  GE, %3, %4 : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xi1>
  check.expect_eq_const %5, dense<[true, true]> : tensor<2xi1>
  %6 = stablehlo.constant dense<[65535, 0]> : tensor<2xui16>
  %7 = stablehlo.constant dense<[1, 1]> : tensor<2xui16>
  %8 = stablehlo.compare  LT, %6, %7,  UNSIGNED : (tensor<2xui16>, tensor<2xui16>) -> tensor<2xi1>
  check.expect_eq_const %8, dense<[false, true]> : tensor<2xi1>
  return
}
