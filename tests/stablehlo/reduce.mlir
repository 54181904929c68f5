// stablehlo.reduce: one-op bodies (the fast path), variadic bodies and bodies
// that are called per element. Run: tlaloc run reduce.mlir --split-input-file

func.func @sum_rows_and_columns_f32() {
  %x = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]]> : tensor<2x3xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  %1 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
  %2 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
  check.expect_eq_const %0, dense<[6.0, 15.5]> : tensor<2xf32>
  check.expect_eq_const %1, dense<[5.0, 7.0, 9.5]> : tensor<3xf32>
  check.expect_eq_const %2, dense<21.5> : tensor<f32>
  return
}

// -----

// The init value takes part once per output (spec: it is the schedule's first operand).
func.func @sum_with_init_i32() {
  %x = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %i = stablehlo.constant dense<10> : tensor<i32>
  %0 = stablehlo.reduce(%x init: %i) applies stablehlo.add across dimensions = [0] : (tensor<2x3xi32>, tensor<i32>) -> tensor<3xi32>
  check.expect_eq_const %0, dense<[15, 17, 19]> : tensor<3xi32>
  return
}

// -----

// i32 sums wrap: 2147483647 + 1 = -2147483648.
func.func @sum_wraps_i32() {
  %x = stablehlo.constant dense<[2147483647, 1]> : tensor<2xi32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<2xi32>, tensor<i32>) -> tensor<i32>
  check.expect_eq_const %0, dense<-2147483648> : tensor<i32>
  return
}

// -----

// maximum propagates NaN; minimum over both axes of i8; product in f64.
func.func @max_min_prod() {
  %x = stablehlo.constant dense<[[1.0, 0x7FC00000, 3.0], [-1.0, -2.0, -3.0]]> : tensor<2x3xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  check.expect_eq_const %0, dense<[0x7FC00000, -1.0]> : tensor<2xf32>
  %y = stablehlo.constant dense<[[5, -7], [127, -128]]> : tensor<2x2xi8>
  %big = stablehlo.constant dense<127> : tensor<i8>
  %1 = stablehlo.reduce(%y init: %big) applies stablehlo.minimum across dimensions = [0, 1] : (tensor<2x2xi8>, tensor<i8>) -> tensor<i8>
  check.expect_eq_const %1, dense<-128> : tensor<i8>
  %p = stablehlo.constant dense<[[0.5, 4.0], [-3.0, 2.0]]> : tensor<2x2xf64>
  %one = stablehlo.constant dense<1.0> : tensor<f64>
  %2 = stablehlo.reduce(%p init: %one) applies stablehlo.multiply across dimensions = [1] : (tensor<2x2xf64>, tensor<f64>) -> tensor<2xf64>
  check.expect_eq_const %2, dense<[2.0, -6.0]> : tensor<2xf64>
  return
}

// -----

// On i1, maximum is "or" and minimum is "and".
func.func @bool_any_all() {
  %x = stablehlo.constant dense<[[false, true], [false, false]]> : tensor<2x2xi1>
  %f = stablehlo.constant dense<false> : tensor<i1>
  %t = stablehlo.constant dense<true> : tensor<i1>
  %0 = stablehlo.reduce(%x init: %f) applies stablehlo.maximum across dimensions = [1] : (tensor<2x2xi1>, tensor<i1>) -> tensor<2xi1>
  %1 = stablehlo.reduce(%x init: %t) applies stablehlo.minimum across dimensions = [0] : (tensor<2x2xi1>, tensor<i1>) -> tensor<2xi1>
  check.expect_eq_const %0, dense<[true, false]> : tensor<2xi1>
  check.expect_eq_const %1, dense<[false, false]> : tensor<2xi1>
  return
}

// -----

// Reducing an empty dimension gives the init value; so does a general body.
func.func @empty_dimension() {
  %x = stablehlo.constant dense<> : tensor<2x0xf32>
  %i = stablehlo.constant dense<7.0> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %i) applies stablehlo.add across dimensions = [1] : (tensor<2x0xf32>, tensor<f32>) -> tensor<2xf32>
  check.expect_eq_const %0, dense<[7.0, 7.0]> : tensor<2xf32>
  %1 = stablehlo.reduce(%x init: %i) across dimensions = [1] : (tensor<2x0xf32>, tensor<f32>) -> tensor<2xf32>
   reducer(%a: tensor<f32>, %b: tensor<f32>) {
    %2 = stablehlo.subtract %a, %b : tensor<f32>
    stablehlo.return %2 : tensor<f32>
  }
  check.expect_eq_const %1, dense<[7.0, 7.0]> : tensor<2xf32>
  return
}

// -----

// A body that is not one op: acc * x + 1, with one element per row so the result
// does not depend on the schedule: 2 * 3 + 1 and 2 * -4 + 1.
func.func @general_body_generic_form() {
  %x = stablehlo.constant dense<[[3], [-4]]> : tensor<2x1xi64>
  %i = stablehlo.constant dense<2> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %0 = "stablehlo.reduce"(%x, %i) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    %1 = stablehlo.multiply %a, %b : tensor<i64>
    %2 = stablehlo.add %1, %one : tensor<i64>
    stablehlo.return %2 : tensor<i64>
  }) {dimensions = array<i64: 1>} : (tensor<2x1xi64>, tensor<i64>) -> tensor<2xi64>
  check.expect_eq_const %0, dense<[7, -7]> : tensor<2xi64>
  return
}

// -----

// argmax as a variadic reduce (values, indices), JAX's tie rule: the larger
// value wins, and on equal values the smaller index.
func.func @variadic_argmax() {
  %v = stablehlo.constant dense<[[3.0, 7.0, 7.0, 1.0], [-1.0, -5.0, 2.0, 2.0]]> : tensor<2x4xf32>
  %k = stablehlo.constant dense<[[0, 1, 2, 3], [0, 1, 2, 3]]> : tensor<2x4xi32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.reduce(%v init: %ninf), (%k init: %z) across dimensions = [1] : (tensor<2x4xf32>, tensor<2x4xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
   reducer(%a: tensor<f32>, %c: tensor<f32>) (%b: tensor<i32>, %d: tensor<i32>) {
    %1 = stablehlo.compare  GT, %a, %c,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %2 = stablehlo.compare  EQ, %a, %c,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %3 = stablehlo.compare  LT, %b, %d,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %4 = stablehlo.select %2, %3, %1 : tensor<i1>, tensor<i1>
    %5 = stablehlo.select %4, %a, %c : tensor<i1>, tensor<f32>
    %6 = stablehlo.select %4, %b, %d : tensor<i1>, tensor<i32>
    stablehlo.return %5, %6 : tensor<f32>, tensor<i32>
  }
  check.expect_eq_const %0#0, dense<[7.0, 2.0]> : tensor<2xf32>
  check.expect_eq_const %0#1, dense<[1, 2]> : tensor<2xi32>
  return
}
