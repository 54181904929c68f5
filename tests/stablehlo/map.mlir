// stablehlo.map: the computation applied at each position. Run: tlaloc run map.mlir --split-input-file

// a * b + a on f32 matrices.
func.func @map_two_inputs_f32() {
  %x = stablehlo.constant dense<[[1.0, -2.0], [0.5, 3.0]]> : tensor<2x2xf32>
  %y = stablehlo.constant dense<[[2.0, 4.0], [-2.0, 0.0]]> : tensor<2x2xf32>
  %0 = "stablehlo.map"(%x, %y) <{dimensions = array<i64: 0, 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.multiply %a, %b : tensor<f32>
    %2 = stablehlo.add %1, %a : tensor<f32>
    stablehlo.return %2 : tensor<f32>
  }) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_eq_const %0, dense<[[3.0, -10.0], [-0.5, 3.0]]> : tensor<2x2xf32>
  return
}

// -----

// The result's element type is the computation's: an i32 comparison gives i1.
func.func @map_to_bool() {
  %x = stablehlo.constant dense<[-1, 0, 5]> : tensor<3xi32>
  %0 = "stablehlo.map"(%x) <{dimensions = array<i64: 0>}> ({
  ^bb0(%a: tensor<i32>):
    %z = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.compare  GT, %a, %z,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }) : (tensor<3xi32>) -> tensor<3xi1>
  check.expect_eq_const %0, dense<[false, false, true]> : tensor<3xi1>
  return
}

// -----

// Integer overflow wraps inside the computation; u8 255 + 1 = 0.
func.func @map_wraps_u8() {
  %x = stablehlo.constant dense<[255, 7]> : tensor<2xui8>
  %0 = "stablehlo.map"(%x) <{dimensions = array<i64: 0>}> ({
  ^bb0(%a: tensor<ui8>):
    %one = stablehlo.constant dense<1> : tensor<ui8>
    %1 = stablehlo.add %a, %one : tensor<ui8>
    stablehlo.return %1 : tensor<ui8>
  }) : (tensor<2xui8>) -> tensor<2xui8>
  check.expect_eq_const %0, dense<[0, 8]> : tensor<2xui8>
  return
}

// -----

// Rank 0 and empty inputs; NaN flows through the computation.
func.func @map_scalar_and_empty() {
  %x = stablehlo.constant dense<0x7FC00000> : tensor<f32>
  %0 = "stablehlo.map"(%x) <{dimensions = array<i64>}> ({
  ^bb0(%a: tensor<f32>):
    %1 = stablehlo.negate %a : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<f32>) -> tensor<f32>
  %2 = stablehlo.is_finite %0 : (tensor<f32>) -> tensor<i1>
  check.expect_eq_const %2, dense<false> : tensor<i1>
  %e = stablehlo.constant dense<> : tensor<0x3xf64>
  %3 = "stablehlo.map"(%e) <{dimensions = array<i64: 0, 1>}> ({
  ^bb0(%a: tensor<f64>):
    %4 = stablehlo.negate %a : tensor<f64>
    stablehlo.return %4 : tensor<f64>
  }) : (tensor<0x3xf64>) -> tensor<0x3xf64>
  check.expect_eq_const %3, dense<> : tensor<0x3xf64>
  return
}

// -----

// Negating zero gives negative zero (its sign bit shows through bitcast_convert).
func.func @map_negative_zero() {
  %x = stablehlo.constant dense<[0.0, -0.0]> : tensor<2xf32>
  %0 = "stablehlo.map"(%x) <{dimensions = array<i64: 0>}> ({
  ^bb0(%a: tensor<f32>):
    %1 = stablehlo.negate %a : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<2xf32>) -> tensor<2xf32>
  %2 = stablehlo.bitcast_convert %0 : (tensor<2xf32>) -> tensor<2xi32>
  check.expect_eq_const %2, dense<[-2147483648, 0]> : tensor<2xi32>
  return
}
