// Bitwise ops, shifts and bit counts on two's-complement bit patterns.
// Run: tlaloc run bitwise.mlir --split-input-file

func.func @and_or_xor_not() {
  %0 = stablehlo.constant dense<[12, -1, 0]> : tensor<3xi32>
  %1 = stablehlo.constant dense<[10, 5, -1]> : tensor<3xi32>
  %2 = stablehlo.and %0, %1 : tensor<3xi32>
  check.expect_eq_const %2, dense<[8, 5, 0]> : tensor<3xi32>
  %3 = stablehlo.or %0, %1 : tensor<3xi32>
  check.expect_eq_const %3, dense<[14, -1, -1]> : tensor<3xi32>
  %4 = stablehlo.xor %0, %1 : tensor<3xi32>
  check.expect_eq_const %4, dense<[6, -6, -1]> : tensor<3xi32>
  %5 = stablehlo.not %0 : tensor<3xi32>
  check.expect_eq_const %5, dense<[-13, 0, -1]> : tensor<3xi32>
  %6 = stablehlo.constant dense<[0, 170]> : tensor<2xui8>
  %7 = stablehlo.not %6 : tensor<2xui8>
  check.expect_eq_const %7, dense<[255, 85]> : tensor<2xui8>
  return
}

// -----

// On i1 the same ops are logical.
func.func @logical() {
  %0 = stablehlo.constant dense<[true, true, false, false]> : tensor<4xi1>
  %1 = stablehlo.constant dense<[true, false, true, false]> : tensor<4xi1>
  %2 = stablehlo.and %0, %1 : tensor<4xi1>
  check.expect_eq_const %2, dense<[true, false, false, false]> : tensor<4xi1>
  %3 = stablehlo.or %0, %1 : tensor<4xi1>
  check.expect_eq_const %3, dense<[true, true, true, false]> : tensor<4xi1>
  %4 = stablehlo.xor %0, %1 : tensor<4xi1>
  check.expect_eq_const %4, dense<[false, true, true, false]> : tensor<4xi1>
  %5 = stablehlo.not %0 : tensor<4xi1>
  check.expect_eq_const %5, dense<[false, false, true, true]> : tensor<4xi1>
  return
}

// -----

// Shift amounts at or beyond the bit width (negative ones included, read as
// unsigned) give 0, or the sign fill for the arithmetic right shift.
func.func @shifts() {
  %0 = stablehlo.constant dense<[1, -8, 3, -8, 5, -1]> : tensor<6xi8>
  %1 = stablehlo.constant dense<[7, 1, 8, 9, -1, 0]> : tensor<6xi8>
  %2 = stablehlo.shift_left %0, %1 : tensor<6xi8>
  check.expect_eq_const %2, dense<[-128, -16, 0, 0, 0, -1]> : tensor<6xi8>
  %3 = stablehlo.shift_right_logical %0, %1 : tensor<6xi8>
  check.expect_eq_const %3, dense<[0, 124, 0, 0, 0, -1]> : tensor<6xi8>
  %4 = stablehlo.shift_right_arithmetic %0, %1 : tensor<6xi8>
  check.expect_eq_const %4, dense<[0, -4, 0, -1, 0, -1]> : tensor<6xi8>
  %5 = stablehlo.constant dense<[-9223372036854775808]> : tensor<1xi64>
  %6 = stablehlo.constant dense<[63]> : tensor<1xi64>
  %7 = stablehlo.shift_right_logical %5, %6 : tensor<1xi64>
  check.expect_eq_const %7, dense<[1]> : tensor<1xi64>
  %8 = stablehlo.shift_right_arithmetic %5, %6 : tensor<1xi64>
  check.expect_eq_const %8, dense<[-1]> : tensor<1xi64>
  return
}

// -----

func.func @bit_counts() {
  %0 = stablehlo.constant dense<[0, 1, -1, 255, 65536]> : tensor<5xi32>
  %1 = stablehlo.count_leading_zeros %0 : tensor<5xi32>
  check.expect_eq_const %1, dense<[32, 31, 0, 24, 15]> : tensor<5xi32>
  %2 = stablehlo.popcnt %0 : tensor<5xi32>
  check.expect_eq_const %2, dense<[0, 1, 32, 8, 1]> : tensor<5xi32>
  %3 = stablehlo.constant dense<[0, 128, 7]> : tensor<3xui8>
  %4 = stablehlo.count_leading_zeros %3 : tensor<3xui8>
  check.expect_eq_const %4, dense<[8, 0, 5]> : tensor<3xui8>
  %5 = stablehlo.popcnt %3 : tensor<3xui8>
  check.expect_eq_const %5, dense<[0, 1, 3]> : tensor<3xui8>
  %6 = stablehlo.constant dense<[-1]> : tensor<1xi64>
  %7 = stablehlo.popcnt %6 : tensor<1xi64>
  check.expect_eq_const %7, dense<[64]> : tensor<1xi64>
  return
}
