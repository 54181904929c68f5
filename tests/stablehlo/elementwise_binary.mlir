// Elementwise ops of two or three operands, with values derived from the spec.
// Run: tlaloc run elementwise_binary.mlir --split-input-file

// Integer add/subtract/multiply wrap; on i1 add is "or" and multiply "and".
func.func @arithmetic_wraps() {
  %0 = stablehlo.constant dense<[127, -128, 100, 3]> : tensor<4xi8>
  %1 = stablehlo.constant dense<[1, -1, 2, -4]> : tensor<4xi8>
  %2 = stablehlo.add %0, %1 : tensor<4xi8>
  check.expect_eq_const %2, dense<[-128, 127, 102, -1]> : tensor<4xi8>
  %3 = stablehlo.subtract %0, %1 : tensor<4xi8>
  check.expect_eq_const %3, dense<[126, -127, 98, 7]> : tensor<4xi8>
  %4 = stablehlo.multiply %0, %1 : tensor<4xi8>
  check.expect_eq_const %4, dense<[127, -128, -56, -12]> : tensor<4xi8>
  %5 = stablehlo.constant dense<[250, 3]> : tensor<2xui8>
  %6 = stablehlo.constant dense<[10, 5]> : tensor<2xui8>
  %7 = stablehlo.add %5, %6 : tensor<2xui8>
  check.expect_eq_const %7, dense<[4, 8]> : tensor<2xui8>
  %8 = stablehlo.subtract %6, %5 : tensor<2xui8>
  check.expect_eq_const %8, dense<[16, 2]> : tensor<2xui8>
  %9 = stablehlo.constant dense<[true, true, false, false]> : tensor<4xi1>
  %10 = stablehlo.constant dense<[true, false, true, false]> : tensor<4xi1>
  %11 = stablehlo.add %9, %10 : tensor<4xi1>
  check.expect_eq_const %11, dense<[true, true, true, false]> : tensor<4xi1>
  %12 = stablehlo.multiply %9, %10 : tensor<4xi1>
  check.expect_eq_const %12, dense<[true, false, false, false]> : tensor<4xi1>
  return
}

// -----

func.func @float_arithmetic() {
  %0 = stablehlo.constant dense<[1.5, 0x7F800000, -0.0, 1.0]> : tensor<4xf32>
  %1 = stablehlo.constant dense<[2.25, 0xFF800000, 0.0, 0.0]> : tensor<4xf32>
  %2 = stablehlo.add %0, %1 : tensor<4xf32>
  check.expect_eq_const %2, dense<[3.75, 0x7FC00000, 0.0, 1.0]> : tensor<4xf32>
  %3 = stablehlo.multiply %0, %1 : tensor<4xf32>
  check.expect_eq_const %3, dense<[3.375, 0xFF800000, -0.0, 0.0]> : tensor<4xf32>
  %4 = stablehlo.divide %0, %1 : tensor<4xf32>
  check.expect_eq_const %4, dense<[0.6666667, 0x7FC00000, 0x7FC00000, 0x7F800000]> : tensor<4xf32>
  %5 = stablehlo.subtract %0, %1 : tensor<4xf32>
  check.expect_eq_const %5, dense<[-0.75, 0x7F800000, -0.0, 1.0]> : tensor<4xf32>
  return
}

// -----

// Integer division truncates toward zero. x / 0 is implementation-defined; Tlaloc
// gives -1 (all bits set), and MIN / -1 wraps to MIN.
func.func @integer_divide() {
  %0 = stablehlo.constant dense<[7, -7, 7, -7, 5, -2147483648]> : tensor<6xi32>
  %1 = stablehlo.constant dense<[2, 2, -2, -2, 0, -1]> : tensor<6xi32>
  %2 = stablehlo.divide %0, %1 : tensor<6xi32>
  check.expect_eq_const %2, dense<[3, -3, -3, 3, -1, -2147483648]> : tensor<6xi32>
  %3 = stablehlo.constant dense<[200, 7]> : tensor<2xui8>
  %4 = stablehlo.constant dense<[3, 0]> : tensor<2xui8>
  %5 = stablehlo.divide %3, %4 : tensor<2xui8>
  check.expect_eq_const %5, dense<[66, 255]> : tensor<2xui8>
  return
}

// -----

// remainder takes the dividend's sign (C's fmod); x % 0 is x for integers and
// NaN for floats; MIN % -1 is 0.
func.func @remainder() {
  %0 = stablehlo.constant dense<[7, -7, 7, -7, 5, -128]> : tensor<6xi8>
  %1 = stablehlo.constant dense<[3, 3, -3, -3, 0, -1]> : tensor<6xi8>
  %2 = stablehlo.remainder %0, %1 : tensor<6xi8>
  check.expect_eq_const %2, dense<[1, -1, 1, -1, 5, 0]> : tensor<6xi8>
  %3 = stablehlo.constant dense<[5.5, -5.5, 5.5, 1.0, -0.0]> : tensor<5xf64>
  %4 = stablehlo.constant dense<[2.0, 2.0, -2.0, 0.0, 3.0]> : tensor<5xf64>
  %5 = stablehlo.remainder %3, %4 : tensor<5xf64>
  check.expect_eq_const %5, dense<[1.5, -1.5, 1.5, 0x7FF8000000000000, -0.0]> : tensor<5xf64>
  return
}

// -----

// maximum/minimum propagate NaN and order -0.0 below +0.0; on i1 they are or/and.
func.func @maximum_minimum() {
  %0 = stablehlo.constant dense<[1.0, 0x7FC00000, 2.0, -0.0, 0.0]> : tensor<5xf32>
  %1 = stablehlo.constant dense<[2.0, 1.0, 0x7FC00000, 0.0, -0.0]> : tensor<5xf32>
  %2 = stablehlo.maximum %0, %1 : tensor<5xf32>
  check.expect_eq_const %2, dense<[2.0, 0x7FC00000, 0x7FC00000, 0.0, 0.0]> : tensor<5xf32>
  %3 = stablehlo.minimum %0, %1 : tensor<5xf32>
  check.expect_eq_const %3, dense<[1.0, 0x7FC00000, 0x7FC00000, -0.0, -0.0]> : tensor<5xf32>
  %4 = stablehlo.constant dense<[-3, 200]> : tensor<2xi64>
  %5 = stablehlo.constant dense<[2, -9]> : tensor<2xi64>
  %6 = stablehlo.maximum %4, %5 : tensor<2xi64>
  check.expect_eq_const %6, dense<[2, 200]> : tensor<2xi64>
  %7 = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %8 = stablehlo.constant dense<[false, false]> : tensor<2xi1>
  %9 = stablehlo.maximum %7, %8 : tensor<2xi1>
  check.expect_eq_const %9, dense<[true, false]> : tensor<2xi1>
  %10 = stablehlo.minimum %7, %8 : tensor<2xi1>
  check.expect_eq_const %10, dense<[false, false]> : tensor<2xi1>
  return
}

// -----

// Integer power by repeated multiplication (wrapping); float power is IEEE pow.
func.func @power() {
  %0 = stablehlo.constant dense<[2, -3, 5, 0, 2]> : tensor<5xi32>
  %1 = stablehlo.constant dense<[10, 3, 0, 0, 31]> : tensor<5xi32>
  %2 = stablehlo.power %0, %1 : tensor<5xi32>
  check.expect_eq_const %2, dense<[1024, -27, 1, 1, -2147483648]> : tensor<5xi32>
  %3 = stablehlo.constant dense<[2.0, 4.0, -8.0, 0.0]> : tensor<4xf32>
  %4 = stablehlo.constant dense<[-1.0, 0.5, 3.0, 0.0]> : tensor<4xf32>
  %5 = stablehlo.power %3, %4 : tensor<4xf32>
  check.expect_eq_const %5, dense<[0.5, 2.0, -512.0, 1.0]> : tensor<4xf32>
  return
}

// -----

// atan2(y, x) picks the quadrant from both signs.
func.func @atan2() {
  %0 = stablehlo.constant dense<[1.0, 1.0, -1.0, 0.0, -0.0]> : tensor<5xf64>
  %1 = stablehlo.constant dense<[1.0, -1.0, -1.0, -1.0, 1.0]> : tensor<5xf64>
  %2 = stablehlo.atan2 %0, %1 : tensor<5xf64>
  check.expect_almost_eq_const %2, dense<[0.7853981633974483, 2.356194490192345, -2.356194490192345, 3.141592653589793, -0.0]> : tensor<5xf64>
  return
}

// -----

// clamp(min, operand, max); min and max may be rank 0.
func.func @clamp() {
  %0 = stablehlo.constant dense<0> : tensor<i32>
  %1 = stablehlo.constant dense<[-5, 3, 12]> : tensor<3xi32>
  %2 = stablehlo.constant dense<10> : tensor<i32>
  %3 = stablehlo.clamp %0, %1, %2 : (tensor<i32>, tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
  check.expect_eq_const %3, dense<[0, 3, 10]> : tensor<3xi32>
  %4 = stablehlo.constant dense<[0.0, 0.0, 0.0]> : tensor<3xf32>
  %5 = stablehlo.constant dense<[0x7FC00000, -1.0, 2.0]> : tensor<3xf32>
  %6 = stablehlo.constant dense<[1.0, 1.0, 1.5]> : tensor<3xf32>
  %7 = stablehlo.clamp %4, %5, %6 : tensor<3xf32>
  check.expect_eq_const %7, dense<[0x7FC00000, 0.0, 1.5]> : tensor<3xf32>
  return
}

// -----

func.func @empty() {
  %0 = stablehlo.constant dense<> : tensor<0xi32>
  %1 = stablehlo.divide %0, %0 : tensor<0xi32>
  check.expect_eq_const %1, dense<> : tensor<0xi32>
  return
}
