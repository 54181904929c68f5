// stablehlo.composite: the interpreter runs the decomposition function with the
// composite's operands, as a call would; name, composite_attributes and version
// are carried along and do not change the result.
// Run: tlaloc run composite.mlir --split-input-file

func.func @composite_with_attributes() {
  %0 = stablehlo.constant dense<[1.0, -2.5, 0.0]> : tensor<3xf32>
  %1 = stablehlo.composite "my.add_two" %0 {composite_attributes = {n = 2 : i64, tag = "x"}, decomposition = @add_two, version = 1 : i32} : (tensor<3xf32>) -> tensor<3xf32>
  check.expect_eq_const %1, dense<[3.0, -0.5, 2.0]> : tensor<3xf32>
  return
}
func.func private @add_two(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.constant dense<2.0> : tensor<3xf32>
  %1 = stablehlo.add %arg0, %0 : tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// Two operands and two results, no attributes: (a + b, a - b) on i8 wraps.
func.func @composite_two_results() {
  %a = stablehlo.constant dense<[100, -128, 5]> : tensor<3xi8>
  %b = stablehlo.constant dense<[100, 1, -7]> : tensor<3xi8>
  %0:2 = stablehlo.composite "my.sum_diff" %a, %b {decomposition = @sum_diff} : (tensor<3xi8>, tensor<3xi8>) -> (tensor<3xi8>, tensor<3xi8>)
  check.expect_eq_const %0#0, dense<[-56, -127, -2]> : tensor<3xi8>
  check.expect_eq_const %0#1, dense<[0, 127, 12]> : tensor<3xi8>
  return
}
func.func private @sum_diff(%a: tensor<3xi8>, %b: tensor<3xi8>) -> (tensor<3xi8>, tensor<3xi8>) {
  %0 = stablehlo.add %a, %b : tensor<3xi8>
  %1 = stablehlo.subtract %a, %b : tensor<3xi8>
  return %0, %1 : tensor<3xi8>, tensor<3xi8>
}

// -----

// A decomposition may itself use a composite; an empty tensor passes through.
func.func @composite_nested_and_empty() {
  %0 = stablehlo.constant dense<[4, 9]> : tensor<2xui32>
  %1 = stablehlo.composite "my.outer" %0 {decomposition = @outer, version = 3 : i32} : (tensor<2xui32>) -> tensor<2xui32>
  check.expect_eq_const %1, dense<[16, 36]> : tensor<2xui32>
  %e = stablehlo.constant dense<> : tensor<0xf64>
  %2 = stablehlo.composite "my.neg" %e {decomposition = @neg} : (tensor<0xf64>) -> tensor<0xf64>
  check.expect_eq_const %2, dense<> : tensor<0xf64>
  return
}
func.func private @outer(%arg0: tensor<2xui32>) -> tensor<2xui32> {
  %0 = stablehlo.composite "my.double" %arg0 {decomposition = @double} : (tensor<2xui32>) -> tensor<2xui32>
  %1 = stablehlo.composite "my.double" %0 {decomposition = @double} : (tensor<2xui32>) -> tensor<2xui32>
  return %1 : tensor<2xui32>
}
func.func private @double(%arg0: tensor<2xui32>) -> tensor<2xui32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<2xui32>
  return %0 : tensor<2xui32>
}
func.func private @neg(%arg0: tensor<0xf64>) -> tensor<0xf64> {
  %0 = stablehlo.negate %arg0 : tensor<0xf64>
  return %0 : tensor<0xf64>
}

// -----

// The generic form, with a nested dictionary and a tensor in the attributes.
func.func @composite_generic() {
  %0 = stablehlo.constant dense<[[1.5, -0.0]]> : tensor<1x2xf32>
  %1 = "stablehlo.composite"(%0) {composite_attributes = {inner = {k = [1, 2]}, t = dense<1> : tensor<i32>}, decomposition = @neg2, name = "my.neg", version = 0 : i32} : (tensor<1x2xf32>) -> tensor<1x2xf32>
  check.expect_eq_const %1, dense<[[-1.5, 0.0]]> : tensor<1x2xf32>
  return
}
func.func private @neg2(%arg0: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %0 = stablehlo.negate %arg0 : tensor<1x2xf32>
  return %0 : tensor<1x2xf32>
}
