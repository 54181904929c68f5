// convert, bitcast_convert and reduce_precision.
// Run: tlaloc run convert.mlir --split-input-file

// Float to integer rounds toward zero. Out-of-range values are implementation-
// defined in the spec: Tlaloc saturates them and gives 0 for NaN.
func.func @float_to_int() {
  %0 = stablehlo.constant dense<[2.7, -2.7, -0.0, 1.0e+10, -1.0e+10, 0x7FC00000]> : tensor<6xf32>
  %1 = stablehlo.convert %0 : (tensor<6xf32>) -> tensor<6xi32>
  check.expect_eq_const %1, dense<[2, -2, 0, 2147483647, -2147483648, 0]> : tensor<6xi32>
  %2 = stablehlo.convert %0 : (tensor<6xf32>) -> tensor<6xui8>
  check.expect_eq_const %2, dense<[2, 0, 0, 255, 0, 0]> : tensor<6xui8>
  return
}

// -----

// Integers wrap to narrower types (two's complement); to i1, nonzero is true.
func.func @int_to_int() {
  %0 = stablehlo.constant dense<[300, -1, 127, 0]> : tensor<4xi32>
  %1 = stablehlo.convert %0 : (tensor<4xi32>) -> tensor<4xi8>
  check.expect_eq_const %1, dense<[44, -1, 127, 0]> : tensor<4xi8>
  %2 = stablehlo.convert %0 : (tensor<4xi32>) -> tensor<4xui8>
  check.expect_eq_const %2, dense<[44, 255, 127, 0]> : tensor<4xui8>
  %3 = stablehlo.convert %0 : (tensor<4xi32>) -> tensor<4xi1>
  check.expect_eq_const %3, dense<[true, true, true, false]> : tensor<4xi1>
  %4 = stablehlo.convert %3 : (tensor<4xi1>) -> tensor<4xf32>
  check.expect_eq_const %4, dense<[1.0, 1.0, 1.0, 0.0]> : tensor<4xf32>
  %5 = stablehlo.constant dense<[-5, 200]> : tensor<2xi64>
  %6 = stablehlo.convert %5 : (tensor<2xi64>) -> tensor<2xf64>
  check.expect_eq_const %6, dense<[-5.0, 200.0]> : tensor<2xf64>
  return
}

// -----

// Narrowing floats rounds to nearest even: 1.00390625 and 1.01171875 are halfway
// between bf16 neighbours and go to the even mantissa (1.0 and 1.015625).
func.func @float_to_float() {
  %0 = stablehlo.constant dense<[1.00390625, 1.01171875, 0x7F800000, -0.0]> : tensor<4xf32>
  %1 = stablehlo.convert %0 : (tensor<4xf32>) -> tensor<4xbf16>
  check.expect_eq_const %1, dense<[1.0, 1.015625, 0x7F80, -0.0]> : tensor<4xbf16>
  %2 = stablehlo.constant dense<[65520.0, 1.0e-08, 0.5]> : tensor<3xf32>
  %3 = stablehlo.convert %2 : (tensor<3xf32>) -> tensor<3xf16>
  check.expect_eq_const %3, dense<[0x7C00, 0.0, 0.5]> : tensor<3xf16>
  %4 = stablehlo.constant dense<0.1> : tensor<f64>
  %5 = stablehlo.convert %4 : (tensor<f64>) -> tensor<f32>
  check.expect_eq_const %5, dense<0x3DCCCCCD> : tensor<f32>
  return
}

// -----

func.func @bitcast_convert() {
  %0 = stablehlo.constant dense<[1.0, -0.0, 0x7F800000]> : tensor<3xf32>
  %1 = stablehlo.bitcast_convert %0 : (tensor<3xf32>) -> tensor<3xi32>
  check.expect_eq_const %1, dense<[1065353216, -2147483648, 2139095040]> : tensor<3xi32>
  %2 = stablehlo.bitcast_convert %1 : (tensor<3xi32>) -> tensor<3xf32>
  check.expect_eq_const %2, dense<[1.0, -0.0, 0x7F800000]> : tensor<3xf32>
  %3 = stablehlo.constant dense<[-1, -128]> : tensor<2xi8>
  %4 = stablehlo.bitcast_convert %3 : (tensor<2xi8>) -> tensor<2xui8>
  check.expect_eq_const %4, dense<[255, 128]> : tensor<2xui8>
  %5 = stablehlo.constant dense<[1.0]> : tensor<1xbf16>
  %6 = stablehlo.bitcast_convert %5 : (tensor<1xbf16>) -> tensor<1xf16>
  check.expect_eq_const %6, dense<0x3F80> : tensor<1xf16>
  return
}

// -----

// Across widths: to a narrower type a new last axis holds each value's pieces, low
// bits first (the bits are one little-endian stream; element k of i1 is bit k).
func.func @bitcast_convert_widths() {
  %0 = stablehlo.constant dense<[1.0, -2.0]> : tensor<2xf32>
  %1 = stablehlo.bitcast_convert %0 : (tensor<2xf32>) -> tensor<2x2xui16>
  check.expect_eq_const %1, dense<[[0, 16256], [0, 49152]]> : tensor<2x2xui16>
  %2 = stablehlo.bitcast_convert %1 : (tensor<2x2xui16>) -> tensor<2xf32>
  check.expect_eq %2, %0 : tensor<2xf32>
  %3 = stablehlo.constant dense<[true, false, true, false, false, false, false, true]> : tensor<8xi1>
  %4 = stablehlo.bitcast_convert %3 : (tensor<8xi1>) -> tensor<ui8>
  check.expect_eq_const %4, dense<133> : tensor<ui8>
  %5 = stablehlo.bitcast_convert %4 : (tensor<ui8>) -> tensor<8xi1>
  check.expect_eq %5, %3 : tensor<8xi1>
  func.return
}

// -----

// f32 values reduced to f16's format (5 exponent, 10 mantissa bits): ties round
// to even (1 + 2^-11 to 1, 1 + 3 * 2^-11 to 1 + 2^-9), 65520 rounds up past f16's
// largest value to infinity, 1e-8 is below its normal range and flushes to a
// signed zero; NaN stays NaN.
func.func @reduce_precision() {
  %0 = stablehlo.constant dense<[1.0, 1.00048828125, 1.00146484375, 65504.0, 65520.0, 1.0e-08, -1.0e-08, 0x7FC00000]> : tensor<8xf32>
  %1 = "stablehlo.reduce_precision"(%0) {exponent_bits = 5 : i32, mantissa_bits = 10 : i32} : (tensor<8xf32>) -> tensor<8xf32>
  check.expect_eq_const %1, dense<[1.0, 1.0, 1.001953125, 65504.0, 0x7F800000, 0.0, -0.0, 0x7FC00000]> : tensor<8xf32>
  %2 = stablehlo.constant dense<[1.5, 3.0e+38, 0x7F80]> : tensor<3xbf16>
  %3 = "stablehlo.reduce_precision"(%2) {exponent_bits = 8 : i32, mantissa_bits = 0 : i32} : (tensor<3xbf16>) -> tensor<3xbf16>
  check.expect_eq_const %3, dense<[2.0, 0x7F80, 0x7F80]> : tensor<3xbf16>
  // The pretty form names the format in one word: e<exponent bits>m<mantissa bits>.
  %4 = stablehlo.reduce_precision %0, format = e5m10 : tensor<8xf32>
  check.expect_eq %4, %1 : tensor<8xf32>
  return
}

// -----

func.func @empty() {
  %0 = stablehlo.constant dense<> : tensor<0xf32>
  %1 = stablehlo.convert %0 : (tensor<0xf32>) -> tensor<0xi8>
  check.expect_eq_const %1, dense<> : tensor<0xi8>
  %2 = stablehlo.bitcast_convert %0 : (tensor<0xf32>) -> tensor<0xi32>
  check.expect_eq_const %2, dense<> : tensor<0xi32>
  return
}
