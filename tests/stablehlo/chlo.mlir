// chlo ops as JAX writes them: special functions, top_k, and the hyperbolic and
// inverse trigonometric functions. Expected values are known constants: Euler's
// gamma, pi^2/6 = zeta(2), pi^4/90 = zeta(4), Apery's zeta(3), sqrt(pi), erf's
// tables, and the spec's top_k example.
// Run: tlaloc run chlo.mlir --split-input-file

func.func @lgamma() {
  %x = stablehlo.constant dense<[0.5, 1.0, 3.0, -0.5]> : tensor<4xf64>
  // log sqrt(pi), 0, log 2, log(2 sqrt(pi)) (Gamma(-1/2) = -2 sqrt(pi))
  %0 = chlo.lgamma %x : tensor<4xf64> -> tensor<4xf64>
  check.expect_almost_eq_const %0, dense<[0.5723649429247001, 0.0, 0.6931471805599453, 1.2655121234846454]> : tensor<4xf64>
  func.return
}

// -----

func.func @lgamma_generic() {
  %x = stablehlo.constant dense<[0.5, 3.0]> : tensor<2xf32>
  %0 = "chlo.lgamma"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  check.expect_almost_eq_const %0, dense<[0.5723649429247001, 0.6931471805599453]> : tensor<2xf32>
  func.return
}

// -----

func.func @digamma() {
  %x = stablehlo.constant dense<[1.0, 0.5, 2.0]> : tensor<3xf64>
  // -gamma, -gamma - 2 log 2, 1 - gamma
  %0 = chlo.digamma %x : tensor<3xf64> -> tensor<3xf64>
  check.expect_almost_eq_const %0, dense<[-0.5772156649015329, -1.9635100260214235, 0.42278433509846713]> : tensor<3xf64>
  func.return
}

// -----

func.func @polygamma() {
  %n = stablehlo.constant dense<[0.0, 1.0, 2.0]> : tensor<3xf64>
  %x = stablehlo.constant dense<1.0> : tensor<3xf64>
  // -gamma, zeta(2), -2 zeta(3)
  %0 = chlo.polygamma %n, %x : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
  check.expect_almost_eq_const %0, dense<[-0.5772156649015329, 1.6449340668482264, -2.4041138063191885]> : tensor<3xf64>
  func.return
}

// -----

func.func @zeta() {
  %x = stablehlo.constant dense<[2.0, 4.0, 3.0]> : tensor<3xf64>
  %q = stablehlo.constant dense<[1.0, 1.0, 2.0]> : tensor<3xf64>
  // pi^2/6, pi^4/90, zeta(3) - 1
  %0 = chlo.zeta %x, %q : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
  check.expect_almost_eq_const %0, dense<[1.6449340668482264, 1.0823232337111382, 0.2020569031595942]> : tensor<3xf64>
  func.return
}

// -----

func.func @erf_inv_and_erfc() {
  %x = stablehlo.constant dense<[0.0, 0.5, -0.5]> : tensor<3xf32>
  %0 = chlo.erf_inv %x : tensor<3xf32> -> tensor<3xf32>
  check.expect_almost_eq_const %0, dense<[0.0, 0.4769362762044699, -0.4769362762044699]> : tensor<3xf32>
  %y = stablehlo.constant dense<[0.0, 1.0, -1.0]> : tensor<3xf64>
  %1 = chlo.erfc %y : tensor<3xf64> -> tensor<3xf64>
  check.expect_almost_eq_const %1, dense<[1.0, 0.15729920705028513, 1.8427007929497148]> : tensor<3xf64>
  func.return
}

// -----

func.func @bessel_i1e() {
  %x = stablehlo.constant dense<[0.0, 1.0, -1.0]> : tensor<3xf64>
  // exp(-1) I1(1), I1(1) = 0.565159103992485
  %0 = chlo.bessel_i1e %x : tensor<3xf64> -> tensor<3xf64>
  check.expect_almost_eq_const %0, dense<[0.0, 0.20791041534970844, -0.20791041534970844]> : tensor<3xf64>
  func.return
}

// -----

func.func @next_after() {
  %x = stablehlo.constant dense<[1.0, 1.0, 0.0, -0.0]> : tensor<4xf32>
  %y = stablehlo.constant dense<[2.0, 0.0, 1.0, -1.0]> : tensor<4xf32>
  // One unit in the last place either way; from zero, the smallest subnormal.
  %0 = chlo.next_after %x, %y : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  check.expect_eq_const %0, dense<[0x3F800001, 0x3F7FFFFF, 0x00000001, 0x80000001]> : tensor<4xf32>
  %h = stablehlo.constant dense<[1.0, 0.0]> : tensor<2xf16>
  %g = stablehlo.constant dense<[2.0, -1.0]> : tensor<2xf16>
  %1 = chlo.next_after %h, %g : tensor<2xf16>, tensor<2xf16> -> tensor<2xf16>
  check.expect_eq_const %1, dense<[0x3C01, 0x8001]> : tensor<2xf16>
  func.return
}

// -----

func.func @top_k() {
  // The spec's example.
  %x = stablehlo.constant dense<[2.0, 9.0, 9.0, 4.0]> : tensor<4xf32>
  %values, %indices = chlo.top_k(%x, k = 3) : tensor<4xf32> -> (tensor<3xf32>, tensor<3xi32>)
  check.expect_eq_const %values, dense<[9.0, 9.0, 4.0]> : tensor<3xf32>
  check.expect_eq_const %indices, dense<[1, 2, 3]> : tensor<3xi32>
  func.return
}

// -----

func.func @top_k_rows_and_smallest() {
  %x = stablehlo.constant dense<[[3, 1, 2], [5, 5, -7]]> : tensor<2x3xi8>
  %0:2 = chlo.top_k(%x, k = 2) : tensor<2x3xi8> -> (tensor<2x2xi8>, tensor<2x2xi32>)
  check.expect_eq_const %0#0, dense<[[3, 2], [5, 5]]> : tensor<2x2xi8>
  check.expect_eq_const %0#1, dense<[[0, 2], [0, 1]]> : tensor<2x2xi32>
  %1:2 = chlo.top_k(%x, k = 2) {largest = false} : tensor<2x3xi8> -> (tensor<2x2xi8>, tensor<2x2xi32>)
  check.expect_eq_const %1#0, dense<[[1, 2], [-7, 5]]> : tensor<2x2xi8>
  check.expect_eq_const %1#1, dense<[[1, 2], [2, 0]]> : tensor<2x2xi32>
  func.return
}

// -----

// NaN is above every number, and +0 above -0 (the spec's total order).
func.func @top_k_total_order() {
  %x = stablehlo.constant dense<[-0.0, 0x7FC00000, 0.0, 0xFF800000]> : tensor<4xf32>
  %0:2 = "chlo.top_k"(%x) {k = 4 : i64} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi32>)
  check.expect_eq_const %0#1, dense<[1, 2, 0, 3]> : tensor<4xi32>
  func.return
}

// -----

func.func @hyperbolic_and_inverse_trigonometric() {
  %x = stablehlo.constant dense<[0.0, 0.5]> : tensor<2xf64>
  %0 = chlo.sinh %x : tensor<2xf64> -> tensor<2xf64>
  check.expect_almost_eq_const %0, dense<[0.0, 0.5210953054937474]> : tensor<2xf64>
  %1 = chlo.cosh %x : tensor<2xf64> -> tensor<2xf64>
  check.expect_almost_eq_const %1, dense<[1.0, 1.1276259652063807]> : tensor<2xf64>
  %2 = chlo.asin %x : tensor<2xf64> -> tensor<2xf64>
  // pi/6
  check.expect_almost_eq_const %2, dense<[0.0, 0.5235987755982989]> : tensor<2xf64>
  %3 = chlo.acos %x : tensor<2xf64> -> tensor<2xf64>
  // pi/2, pi/3
  check.expect_almost_eq_const %3, dense<[1.5707963267948966, 1.0471975511965979]> : tensor<2xf64>
  %4 = "chlo.atan"(%x) : (tensor<2xf64>) -> tensor<2xf64>
  check.expect_almost_eq_const %4, dense<[0.0, 0.4636476090008061]> : tensor<2xf64>
  %5 = chlo.atanh %x : tensor<2xf64> -> tensor<2xf64>
  // log(3) / 2
  check.expect_almost_eq_const %5, dense<[0.0, 0.5493061443340549]> : tensor<2xf64>
  %6 = chlo.asinh %x : tensor<2xf64> -> tensor<2xf64>
  check.expect_almost_eq_const %6, dense<[0.0, 0.48121182505960347]> : tensor<2xf64>
  %y = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf64>
  %7 = chlo.acosh %y : tensor<2xf64> -> tensor<2xf64>
  // log(2 + sqrt 3)
  check.expect_almost_eq_const %7, dense<[0.0, 1.3169578969248166]> : tensor<2xf64>
  %8 = chlo.tan %x : tensor<2xf64> -> tensor<2xf64>
  check.expect_almost_eq_const %8, dense<[0.0, 0.5463024898437905]> : tensor<2xf64>
  %9 = chlo.erf %x : tensor<2xf64> -> tensor<2xf64>
  check.expect_almost_eq_const %9, dense<[0.0, 0.5204998778130465]> : tensor<2xf64>
  func.return
}
