// stablehlo.reduce_window: one-op bodies (the fast path), variadic and general
// bodies, padding, strides and both dilations. Run: tlaloc run reduce_window.mlir --split-input-file

// Padded [[p, p, p, p], [1, 2, 3, p], [4, 5, 6, p]] with 2x2 windows at stride 1.
func.func @sum_padded_f32() {
  %x = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%x, %z) <{padding = dense<[[1, 0], [0, 1]]> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  check.expect_eq_const %0, dense<[[3.0, 5.0, 3.0], [12.0, 16.0, 9.0]]> : tensor<2x3xf32>
  return
}

// -----

// Padding cells hold the init value, and each window starts from it once more:
// the top-left window is 10 + 10 + 10 + 1 + 2.
func.func @sum_padded_init_i32() {
  %x = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %i = stablehlo.constant dense<10> : tensor<i32>
  %0 = "stablehlo.reduce_window"(%x, %i) <{padding = dense<[[1, 0], [0, 1]]> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1, 1>}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %1 = stablehlo.add %a, %b : tensor<i32>
    stablehlo.return %1 : tensor<i32>
  }) : (tensor<2x3xi32>, tensor<i32>) -> tensor<2x3xi32>
  check.expect_eq_const %0, dense<[[33, 35, 43], [22, 26, 39]]> : tensor<2x3xi32>
  return
}

// -----

// base_dilations 2 gives [1, h, 5, h, 2]; a window of 2 with dilation 2 reads
// positions s and s + 2, so the middle window sees only holes (the init value).
func.func @max_dilations_i32() {
  %x = stablehlo.constant dense<[1, 5, 2]> : tensor<3xi32>
  %i = stablehlo.constant dense<-2147483648> : tensor<i32>
  %0 = "stablehlo.reduce_window"(%x, %i) <{base_dilations = array<i64: 2>, window_dilations = array<i64: 2>, window_dimensions = array<i64: 2>, window_strides = array<i64: 1>}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %1 = stablehlo.maximum %a, %b : tensor<i32>
    stablehlo.return %1 : tensor<i32>
  }) : (tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
  check.expect_eq_const %0, dense<[5, -2147483648, 5]> : tensor<3xi32>
  return
}

// -----

// maximum and minimum propagate NaN; strides skip the last element.
func.func @max_min_nan_f32() {
  %x = stablehlo.constant dense<[1.0, 0x7FC00000, 3.0, -4.0, 8.0]> : tensor<5xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %inf = stablehlo.constant dense<0x7F800000> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%x, %ninf) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<5xf32>, tensor<f32>) -> tensor<2xf32>
  %2 = "stablehlo.reduce_window"(%x, %inf) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %3 = stablehlo.minimum %a, %b : tensor<f32>
    stablehlo.return %3 : tensor<f32>
  }) : (tensor<5xf32>, tensor<f32>) -> tensor<2xf32>
  check.expect_eq_const %0, dense<[0x7FC00000, 3.0]> : tensor<2xf32>
  check.expect_eq_const %2, dense<[0x7FC00000, -4.0]> : tensor<2xf32>
  return
}

// -----

// i8 sums wrap: 100 + 100 = -56; products too: 16 * 16 = 0 (mod 256).
func.func @wrap_i8() {
  %x = stablehlo.constant dense<[100, 100, -100]> : tensor<3xi8>
  %z = stablehlo.constant dense<0> : tensor<i8>
  %0 = "stablehlo.reduce_window"(%x, %z) <{window_dimensions = array<i64: 2>}> ({
  ^bb0(%a: tensor<i8>, %b: tensor<i8>):
    %1 = stablehlo.add %a, %b : tensor<i8>
    stablehlo.return %1 : tensor<i8>
  }) : (tensor<3xi8>, tensor<i8>) -> tensor<2xi8>
  check.expect_eq_const %0, dense<[-56, 0]> : tensor<2xi8>
  %y = stablehlo.constant dense<[16, 16, 3]> : tensor<3xi8>
  %one = stablehlo.constant dense<1> : tensor<i8>
  %2 = "stablehlo.reduce_window"(%y, %one) <{window_dimensions = array<i64: 2>}> ({
  ^bb0(%a: tensor<i8>, %b: tensor<i8>):
    %3 = stablehlo.multiply %a, %b : tensor<i8>
    stablehlo.return %3 : tensor<i8>
  }) : (tensor<3xi8>, tensor<i8>) -> tensor<2xi8>
  check.expect_eq_const %2, dense<[0, 48]> : tensor<2xi8>
  return
}

// -----

// Two inputs reduced together (the general path): the largest value and the
// smallest index of each pair.
func.func @variadic_pairs() {
  %x = stablehlo.constant dense<[3.0, 7.0, -1.0, 2.0]> : tensor<4xf32>
  %y = stablehlo.constant dense<[4, 1, 9, 0]> : tensor<4xi32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %big = stablehlo.constant dense<100> : tensor<i32>
  %0:2 = "stablehlo.reduce_window"(%x, %y, %ninf, %big) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<i32>, %c: tensor<f32>, %d: tensor<i32>):
    %1 = stablehlo.maximum %a, %c : tensor<f32>
    %2 = stablehlo.minimum %b, %d : tensor<i32>
    stablehlo.return %1, %2 : tensor<f32>, tensor<i32>
  }) : (tensor<4xf32>, tensor<4xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
  check.expect_eq_const %0#0, dense<[7.0, 2.0]> : tensor<2xf32>
  check.expect_eq_const %0#1, dense<[1, 0]> : tensor<2xi32>
  return
}

// -----

// A body that is not one op is called per cell: max written as compare + select.
func.func @general_body_f64() {
  %x = stablehlo.constant dense<[[1.0, 4.0], [3.0, -2.0]]> : tensor<2x2xf64>
  %ninf = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
  %0 = "stablehlo.reduce_window"(%x, %ninf) <{window_dimensions = array<i64: 2, 1>}> ({
  ^bb0(%a: tensor<f64>, %b: tensor<f64>):
    %1 = stablehlo.compare  GT, %a, %b,  FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
    %2 = stablehlo.select %1, %a, %b : tensor<i1>, tensor<f64>
    stablehlo.return %2 : tensor<f64>
  }) : (tensor<2x2xf64>, tensor<f64>) -> tensor<1x2xf64>
  check.expect_eq_const %0, dense<[[3.0, 4.0]]> : tensor<1x2xf64>
  return
}

// -----

// 16-bit floats: 0.5 + 0.25 + 1.0 is exact in f16 and bf16.
func.func @sum_half() {
  %x = stablehlo.constant dense<[0.5, 0.25, 1.0]> : tensor<3xf16>
  %z = stablehlo.constant dense<0.0> : tensor<f16>
  %0 = "stablehlo.reduce_window"(%x, %z) <{window_dimensions = array<i64: 3>}> ({
  ^bb0(%a: tensor<f16>, %b: tensor<f16>):
    %1 = stablehlo.add %a, %b : tensor<f16>
    stablehlo.return %1 : tensor<f16>
  }) : (tensor<3xf16>, tensor<f16>) -> tensor<1xf16>
  check.expect_eq_const %0, dense<[1.75]> : tensor<1xf16>
  %y = stablehlo.constant dense<[0.5, 0.25, 1.0]> : tensor<3xbf16>
  %w = stablehlo.constant dense<0.0> : tensor<bf16>
  %2 = "stablehlo.reduce_window"(%y, %w) <{window_dimensions = array<i64: 2>}> ({
  ^bb0(%a: tensor<bf16>, %b: tensor<bf16>):
    %3 = stablehlo.add %a, %b : tensor<bf16>
    stablehlo.return %3 : tensor<bf16>
  }) : (tensor<3xbf16>, tensor<bf16>) -> tensor<2xbf16>
  check.expect_eq_const %2, dense<[0.75, 1.25]> : tensor<2xbf16>
  return
}

// -----

// No windows: an empty input, and a window larger than the input.
func.func @empty_results() {
  %x = stablehlo.constant dense<> : tensor<0xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%x, %z) <{window_dimensions = array<i64: 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<0xf32>, tensor<f32>) -> tensor<0xf32>
  check.expect_eq_const %0, dense<> : tensor<0xf32>
  %y = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %2 = "stablehlo.reduce_window"(%y, %z) <{window_dimensions = array<i64: 3>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %3 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %3 : tensor<f32>
  }) : (tensor<2xf32>, tensor<f32>) -> tensor<0xf32>
  check.expect_eq_const %2, dense<> : tensor<0xf32>
  return
}
