// stablehlo.sort with comparator regions. Run: tlaloc run sort.mlir --split-input-file

// Ascending along each row; equal keys keep their order (the i32 payload shows it).
func.func @sort_pairs_stable() {
  %k = stablehlo.constant dense<[[3.0, 1.0, 3.0, -0.5], [2.0, 2.0, 0.0, 1.0]]> : tensor<2x4xf32>
  %v = stablehlo.constant dense<[[0, 1, 2, 3], [0, 1, 2, 3]]> : tensor<2x4xi32>
  %0:2 = "stablehlo.sort"(%k, %v) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %1 = stablehlo.compare  LT, %a, %b,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }) : (tensor<2x4xf32>, tensor<2x4xi32>) -> (tensor<2x4xf32>, tensor<2x4xi32>)
  check.expect_eq_const %0#0, dense<[[-0.5, 1.0, 3.0, 3.0], [0.0, 1.0, 2.0, 2.0]]> : tensor<2x4xf32>
  check.expect_eq_const %0#1, dense<[[3, 1, 0, 2], [2, 3, 0, 1]]> : tensor<2x4xi32>
  return
}

// -----

// Descending along dimension 0 of i8, with a negative dimension (-2 is 0).
func.func @sort_descending_columns() {
  %x = stablehlo.constant dense<[[1, -128], [127, 5], [-3, 0]]> : tensor<3x2xi8>
  %0 = "stablehlo.sort"(%x) <{dimension = -2 : i64}> ({
  ^bb0(%a: tensor<i8>, %b: tensor<i8>):
    %1 = stablehlo.compare  GT, %a, %b,  SIGNED : (tensor<i8>, tensor<i8>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }) : (tensor<3x2xi8>) -> tensor<3x2xi8>
  check.expect_eq_const %0, dense<[[127, 5], [1, 0], [-3, -128]]> : tensor<3x2xi8>
  return
}

// -----

func.func @sort_empty() {
  %x = stablehlo.constant dense<> : tensor<0xf32>
  %0 = "stablehlo.sort"(%x) <{dimension = 0 : i64}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.compare  LT, %a, %b,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }) : (tensor<0xf32>) -> tensor<0xf32>
  check.expect_eq_const %0, dense<> : tensor<0xf32>
  return
}
