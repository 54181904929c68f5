// stablehlo.select_and_scatter. Run: tlaloc run select_and_scatter.mlir --split-input-file

// Max-pool's gradient: 2x2 windows at stride 2 over a 4x4 input; each window's
// gradient goes to its maximum (the first in row-major order: 7 at [2, 3], not
// the 7 at [3, 2]). The result starts from the init value 0.
func.func @max_pool_gradient() {
  %x = stablehlo.constant dense<[[1.0, 5.0, 2.0, 0.0], [3.0, 4.0, 8.0, 1.0], [0.0, 0.0, 6.0, 7.0], [9.0, 1.0, 7.0, 2.0]]> : tensor<4x4xf32>
  %g = stablehlo.constant dense<[[10.0, 20.0], [30.0, 40.0]]> : tensor<2x2xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.select_and_scatter"(%x, %g, %z) <{padding = dense<0> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.compare  GE, %a, %b,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<4x4xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<4x4xf32>
  check.expect_eq_const %0, dense<[[0.0, 10.0, 0.0, 0.0], [0.0, 0.0, 20.0, 0.0], [0.0, 0.0, 0.0, 40.0], [30.0, 0.0, 0.0, 0.0]]> : tensor<4x4xf32>
  return
}

// -----

// Overlapping windows (size 2, stride 1) scatter into the same position; with GE
// the first of equal maxima is kept. Windows: [1,3] [3,3] [3,2] pick positions
// 1, 1, 2; sources 1, 2, 4 add up to 3 at position 1 and 4 at position 2.
func.func @overlapping_windows_i32() {
  %x = stablehlo.constant dense<[1, 3, 3, 2]> : tensor<4xi32>
  %s = stablehlo.constant dense<[1, 2, 4]> : tensor<3xi32>
  %z = stablehlo.constant dense<100> : tensor<i32>
  %0 = "stablehlo.select_and_scatter"(%x, %s, %z) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 1>}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %1 = stablehlo.compare  GE, %a, %b,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }, {
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %1 = stablehlo.add %a, %b : tensor<i32>
    stablehlo.return %1 : tensor<i32>
  }) : (tensor<4xi32>, tensor<3xi32>, tensor<i32>) -> tensor<4xi32>
  check.expect_eq_const %0, dense<[100, 103, 104, 100]> : tensor<4xi32>
  return
}

// -----

// Padding is never selected, and a window of padding only scatters nothing.
// Padded [p, p, -5, -7, p] with windows of 2 at stride 1: [p,p] none, [p,-5] -5,
// [-5,-7] -5, [-7,p] -7 (maximum selection with GE).
func.func @padding_never_selected() {
  %x = stablehlo.constant dense<[-5.0, -7.0]> : tensor<2xf32>
  %s = stablehlo.constant dense<[1.0, 2.0, 4.0, 8.0]> : tensor<4xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.select_and_scatter"(%x, %s, %z) <{padding = dense<[[2, 1]]> : tensor<1x2xi64>, window_dimensions = array<i64: 2>, window_strides = array<i64: 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.compare  GE, %a, %b,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<2xf32>, tensor<4xf32>, tensor<f32>) -> tensor<2xf32>
  check.expect_eq_const %0, dense<[6.0, 8.0]> : tensor<2xf32>
  return
}

// -----

// NaN: GE with NaN is false, so a NaN candidate replaces the pick and a NaN pick
// is replaced by the next element. [NaN, 1] picks 1; [2, NaN] picks NaN.
func.func @nan_selection() {
  %x = stablehlo.constant dense<[0x7FC00000, 1.0, 2.0, 0x7FC00000]> : tensor<4xf32>
  %s = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.select_and_scatter"(%x, %s, %z) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.compare  GE, %a, %b,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<4xf32>, tensor<2xf32>, tensor<f32>) -> tensor<4xf32>
  check.expect_eq_const %0, dense<[0.0, 1.0, 0.0, 2.0]> : tensor<4xf32>
  return
}

// -----

// An empty operand has no windows; the result is empty.
func.func @empty_operand() {
  %x = stablehlo.constant dense<> : tensor<0xf32>
  %s = stablehlo.constant dense<> : tensor<0xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.select_and_scatter"(%x, %s, %z) <{window_dimensions = array<i64: 1>, window_strides = array<i64: 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.compare  GE, %a, %b,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<0xf32>, tensor<0xf32>, tensor<f32>) -> tensor<0xf32>
  check.expect_eq_const %0, dense<> : tensor<0xf32>
  return
}
