// stablehlo.dot_general: result dims are batch, lhs free, rhs free; the result
// element type may be wider than the operands'. Values worked out by hand.
// Run: tlaloc run dot_general.mlir --split-input-file

// [[1, 2, 3], [4, 5, 6]] . [1, 0, -1] = [1 - 3, 4 - 6]
func.func @matrix_vector() {
  %a = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %v = stablehlo.constant dense<[1.0, 0.0, -1.0]> : tensor<3xf32>
  %0 = stablehlo.dot_general %a, %v, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  check.expect_eq_const %0, dense<[-2.0, -2.0]> : tensor<2xf32>
  return
}

// -----

// Batch 0: [[1, 2], [3, 4]] . [1, 1]; batch 1: [[5, 6], [7, 8]] . [1, -1].
func.func @batched() {
  %a = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]> : tensor<2x2x2xf64>
  %b = stablehlo.constant dense<[[[1.0], [1.0]], [[1.0], [-1.0]]]> : tensor<2x2x1xf64>
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x2x2xf64>, tensor<2x2x1xf64>) -> tensor<2x2x1xf64>
  check.expect_eq_const %0, dense<[[[3.0], [7.0]], [[-1.0], [-1.0]]]> : tensor<2x2x1xf64>
  return
}

// -----

// Contracting dims 1 and 2 with the identity: a[i, 0, 0] + a[i, 1, 1]. The rhs
// contracting dims are listed in the other order in the second product, which
// pairs a's dim 1 with b's dim 1: with b transposed the result is the same.
func.func @several_contracting_dims() {
  %a = stablehlo.constant dense<[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]> : tensor<2x2x2xi32>
  %b = stablehlo.constant dense<[[1, 0], [0, 1]]> : tensor<2x2xi32>
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1, 2] x [0, 1] : (tensor<2x2x2xi32>, tensor<2x2xi32>) -> tensor<2xi32>
  check.expect_eq_const %0, dense<[5, 13]> : tensor<2xi32>
  %c = stablehlo.constant dense<[[1, 10], [100, 1000]]> : tensor<2x2xi32>
  // a[i, j, k] * c[j, k]: 1 + 20 + 300 + 4000 and 5 + 60 + 700 + 8000.
  %1 = stablehlo.dot_general %a, %c, contracting_dims = [1, 2] x [0, 1] : (tensor<2x2x2xi32>, tensor<2x2xi32>) -> tensor<2xi32>
  check.expect_eq_const %1, dense<[4321, 8765]> : tensor<2xi32>
  // a[i, j, k] * c[k, j]: 1 + 200 + 30 + 4000 and 5 + 600 + 70 + 8000.
  %2 = stablehlo.dot_general %a, %c, contracting_dims = [1, 2] x [1, 0] : (tensor<2x2x2xi32>, tensor<2x2xi32>) -> tensor<2xi32>
  check.expect_eq_const %2, dense<[4231, 8675]> : tensor<2xi32>
  return
}

// -----

// i8 operands with an i32 result: 100 * 2 + 100 * 1 = 300 does not wrap. An i32
// result that overflows wraps: 2147483647 * 2 = -2 (mod 2^32).
func.func @integer_types() {
  %a = stablehlo.constant dense<[100, 100]> : tensor<2xi8>
  %b = stablehlo.constant dense<[2, 1]> : tensor<2xi8>
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>} : (tensor<2xi8>, tensor<2xi8>) -> tensor<i32>
  check.expect_eq_const %0, dense<300> : tensor<i32>
  %c = stablehlo.constant dense<[2147483647]> : tensor<1xi32>
  %d = stablehlo.constant dense<[2]> : tensor<1xi32>
  %1 = stablehlo.dot_general %c, %d, contracting_dims = [0] x [0] : (tensor<1xi32>, tensor<1xi32>) -> tensor<i32>
  check.expect_eq_const %1, dense<-2> : tensor<i32>
  %e = stablehlo.constant dense<[[3000000000, 1], [2, -1]]> : tensor<2x2xi64>
  %f = stablehlo.constant dense<[2, 5]> : tensor<2xi64>
  %2 = stablehlo.dot_general %e, %f, contracting_dims = [1] x [0] : (tensor<2x2xi64>, tensor<2xi64>) -> tensor<2xi64>
  check.expect_eq_const %2, dense<[6000000005, -1]> : tensor<2xi64>
  return
}

// -----

// No contracting dims: an outer product. An empty contracting dim: zeros.
func.func @outer_and_empty() {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf64>
  %b = stablehlo.constant dense<[3.0, 4.0]> : tensor<2xf64>
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [] x [] : (tensor<2xf64>, tensor<2xf64>) -> tensor<2x2xf64>
  check.expect_eq_const %0, dense<[[3.0, 4.0], [6.0, 8.0]]> : tensor<2x2xf64>
  %e = stablehlo.constant dense<> : tensor<2x0xf32>
  %f = stablehlo.constant dense<> : tensor<0x3xf32>
  %1 = stablehlo.dot_general %e, %f, contracting_dims = [1] x [0] : (tensor<2x0xf32>, tensor<0x3xf32>) -> tensor<2x3xf32>
  check.expect_eq_const %1, dense<0.0> : tensor<2x3xf32>
  %g = stablehlo.constant dense<> : tensor<0x2xf32>
  %h = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %2 = stablehlo.dot_general %g, %h, contracting_dims = [1] x [0] : (tensor<0x2xf32>, tensor<2xf32>) -> tensor<0xf32>
  check.expect_eq_const %2, dense<> : tensor<0xf32>
  return
}

// -----

// bf16 operands with an f32 result; NaN propagates through the sum.
func.func @half_and_nan() {
  %a = stablehlo.constant dense<[[1.5, 2.0], [0x7FC0, 1.0]]> : tensor<2x2xbf16>
  %b = stablehlo.constant dense<[2.0, 0.25]> : tensor<2xbf16>
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x2xbf16>, tensor<2xbf16>) -> tensor<2xf32>
  check.expect_eq_const %0, dense<[3.5, 0x7FC00000]> : tensor<2xf32>
  return
}

// -----

// An algorithm asking for tf32 inputs and f32 accumulation: the f32 kernel meets it.
// Exact here: every product and sum is an integer below 2^11.
func.func @algorithm_met() {
  %a = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %0 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT],
    algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32,
                 lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1,
                 allow_imprecise_accumulation = false> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_eq_const %0, dense<[[7.0, 10.0], [15.0, 22.0]]> : tensor<2x2xf32>
  return
}
