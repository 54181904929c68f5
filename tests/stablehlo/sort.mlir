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

// -----

// A comparator that is one `compare LT` of the first pair on integers takes the
// typed fast path: stable, payload order kept among equal keys.
func.func @sort_fast_lt_i64_stable() {
  %k = stablehlo.constant dense<[5, -1, 5, -9223372036854775808, -1]> : tensor<5xi64>
  %v = stablehlo.constant dense<[0, 1, 2, 3, 4]> : tensor<5xi32>
  %0:2 = "stablehlo.sort"(%k, %v) <{dimension = 0 : i64}> ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>, %c: tensor<i32>, %d: tensor<i32>):
    %1 = stablehlo.compare  LT, %a, %b,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }) : (tensor<5xi64>, tensor<5xi32>) -> (tensor<5xi64>, tensor<5xi32>)
  check.expect_eq_const %0#0, dense<[-9223372036854775808, -1, -1, 5, 5]> : tensor<5xi64>
  check.expect_eq_const %0#1, dense<[3, 1, 4, 0, 2]> : tensor<5xi32>
  return
}

// -----

// GT on unsigned keys (255 is the largest ui8), equal keys stay in order.
func.func @sort_fast_gt_u8_stable() {
  %k = stablehlo.constant dense<[[1, 255, 1, 0]]> : tensor<1x4xui8>
  %v = stablehlo.constant dense<[[0, 1, 2, 3]]> : tensor<1x4xi32>
  %0:2 = "stablehlo.sort"(%k, %v) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<ui8>, %b: tensor<ui8>, %c: tensor<i32>, %d: tensor<i32>):
    %1 = stablehlo.compare  GT, %a, %b,  UNSIGNED : (tensor<ui8>, tensor<ui8>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }) : (tensor<1x4xui8>, tensor<1x4xi32>) -> (tensor<1x4xui8>, tensor<1x4xi32>)
  check.expect_eq_const %0#0, dense<[[255, 1, 1, 0]]> : tensor<1x4xui8>
  check.expect_eq_const %0#1, dense<[[1, 0, 2, 3]]> : tensor<1x4xi32>
  return
}

// -----

// Comparing the second pair is not the fast path's pattern: sorted by the payload.
func.func @sort_by_second_operand() {
  %k = stablehlo.constant dense<[10, 20, 30]> : tensor<3xi32>
  %v = stablehlo.constant dense<[2, 0, 1]> : tensor<3xi32>
  %0:2 = "stablehlo.sort"(%k, %v) <{dimension = 0 : i64}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<i32>, %d: tensor<i32>):
    %1 = stablehlo.compare  LT, %c, %d,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }) : (tensor<3xi32>, tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>)
  check.expect_eq_const %0#0, dense<[20, 30, 10]> : tensor<3xi32>
  check.expect_eq_const %0#1, dense<[0, 1, 2]> : tensor<3xi32>
  return
}

