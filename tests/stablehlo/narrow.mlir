// The narrow storage types: 2- and 4-bit integers and the 4-, 6- and 8-bit floats.
// Ops compute in i8, u8 or f32 and round back, so integers wrap at their width and
// floats round to nearest, ties to even. Expected values are worked out by hand from
// each format's exponent bias and mantissa width.
// Run: tlaloc run narrow.mlir --split-input-file

func.func @int4_wraps() {
  %a = stablehlo.constant dense<[7, -8, 3, -1]> : tensor<4xi4>
  %b = stablehlo.constant dense<[1, -1, 4, -1]> : tensor<4xi4>
  %0 = stablehlo.add %a, %b : tensor<4xi4>
  check.expect_eq_const %0, dense<[-8, 7, 7, -2]> : tensor<4xi4>
  // 3 * 4 = 12 = 16 - 4.
  %1 = stablehlo.multiply %a, %b : tensor<4xi4>
  check.expect_eq_const %1, dense<[7, -8, -4, 1]> : tensor<4xi4>
  %2 = stablehlo.negate %a : tensor<4xi4>
  check.expect_eq_const %2, dense<[-7, -8, -3, 1]> : tensor<4xi4>
  func.return
}

// -----

func.func @uint2_and_uint4() {
  %a = stablehlo.constant dense<[3, 0, 2]> : tensor<3xui2>
  %b = stablehlo.constant dense<[1, 1, 3]> : tensor<3xui2>
  %0 = stablehlo.add %a, %b : tensor<3xui2>
  check.expect_eq_const %0, dense<[0, 1, 1]> : tensor<3xui2>
  %c = stablehlo.constant dense<[0, 9, 15]> : tensor<3xui4>
  %1 = stablehlo.not %c : tensor<3xui4>
  check.expect_eq_const %1, dense<[15, 6, 0]> : tensor<3xui4>
  %2 = stablehlo.compare GT, %c, %1, UNSIGNED : (tensor<3xui4>, tensor<3xui4>) -> tensor<3xi1>
  check.expect_eq_const %2, dense<[false, true, true]> : tensor<3xi1>
  func.return
}

// -----

// A region's values are widened too: the sum of [7, 7, 7] wraps once per add.
func.func @int4_reduce() {
  %x = stablehlo.constant dense<[7, 7, 7]> : tensor<3xi4>
  %zero = stablehlo.constant dense<0> : tensor<i4>
  %0 = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<3xi4>, tensor<i4>) -> tensor<i4>
  check.expect_eq_const %0, dense<5> : tensor<i4>
  func.return
}

// -----

// To a narrow integer, integers wrap and floats saturate.
func.func @convert_int4() {
  %a = stablehlo.constant dense<[17, -9, 5]> : tensor<3xi32>
  %0 = stablehlo.convert %a : (tensor<3xi32>) -> tensor<3xi4>
  check.expect_eq_const %0, dense<[1, 7, 5]> : tensor<3xi4>
  %f = stablehlo.constant dense<[100.0, -100.0, 2.5]> : tensor<3xf32>
  %1 = stablehlo.convert %f : (tensor<3xf32>) -> tensor<3xi4>
  check.expect_eq_const %1, dense<[7, -8, 2]> : tensor<3xi4>
  %2 = stablehlo.convert %0 : (tensor<3xi4>) -> tensor<3xf32>
  check.expect_eq_const %2, dense<[1.0, 7.0, 5.0]> : tensor<3xf32>
  func.return
}

// -----

// f8E4M3FN: bias 7, three mantissa bits, no infinity, S.1111.111 the only NaN, 448 the
// largest value. 1 + 1/16 lies halfway between 1 and 1.125 and goes to the even code.
func.func @f8e4m3fn_rounding() {
  %x = stablehlo.constant dense<[1.0625, 1.1875, 0.1, 448.0, 465.0, 0.0009765625]> : tensor<6xf32>
  %0 = stablehlo.convert %x : (tensor<6xf32>) -> tensor<6xf8E4M3FN>
  check.expect_eq_const %0, dense<[0x38, 0x3A, 0x1D, 0x7E, 0x7F, 0x00]> : tensor<6xf8E4M3FN>
  %1 = stablehlo.convert %0 : (tensor<6xf8E4M3FN>) -> tensor<6xf32>
  check.expect_eq_const %1, dense<[1.0, 1.25, 0.1015625, 448.0, 0x7FC00000, 0.0]> : tensor<6xf32>
  func.return
}

// -----

// f8E5M2 is IEEE-like (bias 15, two mantissa bits): overflow gives infinity.
func.func @f8e5m2_arithmetic() {
  %a = stablehlo.constant dense<[1.0, 57344.0, 3.0]> : tensor<3xf8E5M2>
  %b = stablehlo.constant dense<[0.25, 57344.0, 0.5]> : tensor<3xf8E5M2>
  %0 = stablehlo.add %a, %b : tensor<3xf8E5M2>
  check.expect_eq_const %0, dense<[1.25, 0x7C, 3.5]> : tensor<3xf8E5M2>
  %1 = stablehlo.multiply %a, %b : tensor<3xf8E5M2>
  check.expect_eq_const %1, dense<[0.25, 0x7C, 1.5]> : tensor<3xf8E5M2>
  // sqrt(57344) = 239.47 lies below 240, halfway between 224 and 256.
  %2 = stablehlo.sqrt %b : tensor<3xf8E5M2>
  check.expect_eq_const %2, dense<[0.5, 224.0, 0.75]> : tensor<3xf8E5M2>
  func.return
}

// -----

// FNUZ formats have no -0 (its code 0x80 is NaN); f8E4M3FNUZ has bias 8.
func.func @fnuz() {
  %x = stablehlo.constant dense<[-0.0, 240.0, -1.5]> : tensor<3xf32>
  %0 = stablehlo.convert %x : (tensor<3xf32>) -> tensor<3xf8E4M3FNUZ>
  check.expect_eq_const %0, dense<[0x00, 0x7F, 0xC4]> : tensor<3xf8E4M3FNUZ>
  %y = stablehlo.constant dense<[-0.0, 57344.0]> : tensor<2xf32>
  %1 = stablehlo.convert %y : (tensor<2xf32>) -> tensor<2xf8E5M2FNUZ>
  check.expect_eq_const %1, dense<[0x00, 0x7F]> : tensor<2xf8E5M2FNUZ>
  func.return
}

// -----

// The 4- and 6-bit floats hold finite values only and saturate. f8E8M0FNU holds the
// powers of two 2^-127 .. 2^127; with no mantissa bit, a tie rounds up (6 to 8, 0.75 to 1).
func.func @small_floats() {
  %x = stablehlo.constant dense<[5.0, 100.0, -0.3]> : tensor<3xf32>
  %0 = stablehlo.convert %x : (tensor<3xf32>) -> tensor<3xf4E2M1FN>
  check.expect_eq_const %0, dense<[4.0, 6.0, -0.5]> : tensor<3xf4E2M1FN>
  %1 = stablehlo.convert %x : (tensor<3xf32>) -> tensor<3xf6E3M2FN>
  check.expect_eq_const %1, dense<[5.0, 28.0, -0.3125]> : tensor<3xf6E3M2FN>
  %2 = stablehlo.convert %x : (tensor<3xf32>) -> tensor<3xf6E2M3FN>
  check.expect_eq_const %2, dense<[5.0, 7.5, -0.25]> : tensor<3xf6E2M3FN>
  %p = stablehlo.constant dense<[5.0, 6.0, 0.75]> : tensor<3xf32>
  %3 = stablehlo.convert %p : (tensor<3xf32>) -> tensor<3xf8E8M0FNU>
  check.expect_eq_const %3, dense<[4.0, 8.0, 1.0]> : tensor<3xf8E8M0FNU>
  func.return
}

// -----

// Bits reinterpreted: an i4 of -1 is the u4 15; a u8 splits into two u4, low first.
func.func @bitcast_narrow() {
  %a = stablehlo.constant dense<[-1, 5]> : tensor<2xi4>
  %0 = stablehlo.bitcast_convert %a : (tensor<2xi4>) -> tensor<2xui4>
  check.expect_eq_const %0, dense<[15, 5]> : tensor<2xui4>
  %b = stablehlo.constant dense<[0xA7]> : tensor<1xui8>
  %1 = stablehlo.bitcast_convert %b : (tensor<1xui8>) -> tensor<1x2xui4>
  check.expect_eq_const %1, dense<[[7, 10]]> : tensor<1x2xui4>
  %c = stablehlo.constant dense<[1.0, -2.0]> : tensor<2xf8E4M3FN>
  %2 = stablehlo.bitcast_convert %c : (tensor<2xf8E4M3FN>) -> tensor<2xui8>
  check.expect_eq_const %2, dense<[56, 192]> : tensor<2xui8>
  func.return
}
