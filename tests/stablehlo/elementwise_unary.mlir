// Elementwise ops of one operand, with values derived from the spec's semantics.
// Run: tlaloc run elementwise_unary.mlir --split-input-file

// abs and negate wrap at the most negative integer; sign keeps -0.0 and NaN.
func.func @abs_negate_sign() {
  %0 = stablehlo.constant dense<[-128, -5, 0, 7]> : tensor<4xi8>
  %1 = stablehlo.abs %0 : tensor<4xi8>
  check.expect_eq_const %1, dense<[-128, 5, 0, 7]> : tensor<4xi8>
  %2 = stablehlo.negate %0 : tensor<4xi8>
  check.expect_eq_const %2, dense<[-128, 5, 0, -7]> : tensor<4xi8>
  %3 = stablehlo.constant dense<[-2.5, -0.0, 0.0, 0x7FC00000, 3.0]> : tensor<5xf32>
  %4 = stablehlo.sign %3 : tensor<5xf32>
  check.expect_eq_const %4, dense<[-1.0, -0.0, 0.0, 0x7FC00000, 1.0]> : tensor<5xf32>
  %5 = stablehlo.abs %3 : tensor<5xf32>
  check.expect_eq_const %5, dense<[2.5, 0.0, 0.0, 0x7FC00000, 3.0]> : tensor<5xf32>
  %6 = stablehlo.negate %3 : tensor<5xf32>
  check.expect_eq_const %6, dense<[2.5, 0.0, -0.0, 0x7FC00000, -3.0]> : tensor<5xf32>
  return
}

// -----

// Rounding: floor/ceil toward -inf/+inf; round_nearest_even breaks ties to even,
// round_nearest_afz away from zero; -0.0 stays -0.0.
func.func @rounding() {
  %0 = stablehlo.constant dense<[-2.5, -1.5, -0.5, -0.0, 0.5, 1.5, 2.5, 2.7]> : tensor<8xf32>
  %1 = stablehlo.floor %0 : tensor<8xf32>
  check.expect_eq_const %1, dense<[-3.0, -2.0, -1.0, -0.0, 0.0, 1.0, 2.0, 2.0]> : tensor<8xf32>
  %2 = stablehlo.ceil %0 : tensor<8xf32>
  check.expect_eq_const %2, dense<[-2.0, -1.0, -0.0, -0.0, 1.0, 2.0, 3.0, 3.0]> : tensor<8xf32>
  %3 = stablehlo.round_nearest_even %0 : tensor<8xf32>
  check.expect_eq_const %3, dense<[-2.0, -2.0, -0.0, -0.0, 0.0, 2.0, 2.0, 3.0]> : tensor<8xf32>
  %4 = stablehlo.round_nearest_afz %0 : tensor<8xf32>
  check.expect_eq_const %4, dense<[-3.0, -2.0, -1.0, -0.0, 1.0, 2.0, 3.0, 3.0]> : tensor<8xf32>
  return
}

// -----

func.func @exp_log_family() {
  %0 = stablehlo.constant dense<[0.0, 1.0, -1.0]> : tensor<3xf64>
  %1 = stablehlo.exponential %0 : tensor<3xf64>
  check.expect_almost_eq_const %1, dense<[1.0, 2.718281828459045, 0.36787944117144233]> : tensor<3xf64>
  %2 = stablehlo.exponential_minus_one %0 : tensor<3xf64>
  check.expect_almost_eq_const %2, dense<[0.0, 1.718281828459045, -0.6321205588285577]> : tensor<3xf64>
  %3 = stablehlo.constant dense<[1.0, 0.0, -1.0, 0x7FF0000000000000]> : tensor<4xf64>
  %4 = stablehlo.log %3 : tensor<4xf64>
  check.expect_eq_const %4, dense<[0.0, 0xFFF0000000000000, 0x7FF8000000000000, 0x7FF0000000000000]> : tensor<4xf64>
  %5 = stablehlo.constant dense<[0.0, -1.0, 1.718281828459045]> : tensor<3xf64>
  %6 = stablehlo.log_plus_one %5 : tensor<3xf64>
  check.expect_almost_eq_const %6, dense<[0.0, 0xFFF0000000000000, 1.0]> : tensor<3xf64>
  %7 = stablehlo.constant dense<[0.0, 2.0, -2.0]> : tensor<3xf32>
  %8 = stablehlo.logistic %7 : tensor<3xf32>
  check.expect_almost_eq_const %8, dense<[0.5, 0.880797, 0.119203]> : tensor<3xf32>
  return
}

// -----

// sqrt(-0.0) = -0.0, sqrt(-1) = NaN, rsqrt(0) = +inf; cbrt keeps the sign.
func.func @roots() {
  %0 = stablehlo.constant dense<[4.0, -0.0, -1.0, 0.0]> : tensor<4xf32>
  %1 = stablehlo.sqrt %0 : tensor<4xf32>
  check.expect_eq_const %1, dense<[2.0, -0.0, 0x7FC00000, 0.0]> : tensor<4xf32>
  %2 = stablehlo.rsqrt %0 : tensor<4xf32>
  check.expect_eq_const %2, dense<[0.5, 0xFF800000, 0x7FC00000, 0x7F800000]> : tensor<4xf32>
  %3 = stablehlo.constant dense<[27.0, -8.0, -0.0]> : tensor<3xf64>
  %4 = stablehlo.cbrt %3 : tensor<3xf64>
  check.expect_almost_eq_const %4, dense<[3.0, -2.0, -0.0]> : tensor<3xf64>
  %5 = stablehlo.constant dense<[4.0, 0.25]> : tensor<2xbf16>
  %6 = stablehlo.sqrt %5 : tensor<2xbf16>
  check.expect_eq_const %6, dense<[2.0, 0.5]> : tensor<2xbf16>
  return
}

// -----

func.func @trigonometry() {
  %0 = stablehlo.constant dense<[0.0, 1.0, -0.5]> : tensor<3xf64>
  %1 = stablehlo.sine %0 : tensor<3xf64>
  check.expect_almost_eq_const %1, dense<[0.0, 0.8414709848078965, -0.479425538604203]> : tensor<3xf64>
  %2 = stablehlo.cosine %0 : tensor<3xf64>
  check.expect_almost_eq_const %2, dense<[1.0, 0.5403023058681398, 0.8775825618903728]> : tensor<3xf64>
  %3 = stablehlo.tan %0 : tensor<3xf64>
  check.expect_almost_eq_const %3, dense<[0.0, 1.5574077246549023, -0.5463024898437905]> : tensor<3xf64>
  %4 = stablehlo.tanh %0 : tensor<3xf64>
  check.expect_almost_eq_const %4, dense<[0.0, 0.7615941559557649, -0.46211715726000974]> : tensor<3xf64>
  return
}

// -----

func.func @is_finite() {
  %0 = stablehlo.constant dense<[1.0, 0x7F800000, 0xFF800000, 0x7FC00000, -0.0]> : tensor<5xf32>
  %1 = stablehlo.is_finite %0 : (tensor<5xf32>) -> tensor<5xi1>
  check.expect_eq_const %1, dense<[true, false, false, false, true]> : tensor<5xi1>
  return
}

// -----

func.func @empty_and_f16() {
  %0 = stablehlo.constant dense<> : tensor<0x2xf32>
  %1 = stablehlo.exponential %0 : tensor<0x2xf32>
  check.expect_eq_const %1, dense<> : tensor<0x2xf32>
  %2 = stablehlo.constant dense<[-1.5, 2.0]> : tensor<2xf16>
  %3 = stablehlo.abs %2 : tensor<2xf16>
  check.expect_eq_const %3, dense<[1.5, 2.0]> : tensor<2xf16>
  %4 = "stablehlo.negate"(%2) : (tensor<2xf16>) -> tensor<2xf16>
  check.expect_eq_const %4, dense<[1.5, -2.0]> : tensor<2xf16>
  return
}
