// A function with parameters, run by `tlaloc run --args` (tests/CMakeLists.txt).
func.func @main(%a: tensor<2xi32>, %b: tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>) {
  %0 = stablehlo.add %a, %b : tensor<2xi32>
  %1 = stablehlo.multiply %a, %b : tensor<2xi32>
  return %0, %1 : tensor<2xi32>, tensor<2xi32>
}
