// gather and scatter with several dimension-number configurations. Values worked
// out by hand from the spec's formulas.
// Run: tlaloc run gather_scatter.mlir --split-input-file

// Rows by index (index_vector_dim = rank: each index is a scalar). The start 5 is
// clamped to 3 - 1 = 2.
func.func @gather_rows() {
  %x = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>
  %i = stablehlo.constant dense<[2, 0, 5]> : tensor<3xi64>
  %r = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 2>}> : (tensor<3x2xi32>, tensor<3xi64>) -> tensor<3x2xi32>
  check.expect_eq_const %r, dense<[[5, 6], [1, 2], [5, 6]]> : tensor<3x2xi32>
  return
}

// -----

// Index vectors of two; the column start 2 is clamped to 3 - 2 = 1.
func.func @gather_two_coordinates() {
  %x = stablehlo.constant dense<[[0, 1, 2], [3, 4, 5]]> : tensor<2x3xi32>
  %i = stablehlo.constant dense<[[1, 0], [0, 2]]> : tensor<2x2xi32>
  %r = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0, 1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 2>, indices_are_sorted = false}> : (tensor<2x3xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %r, dense<[[3, 4], [1, 2]]> : tensor<2x2xi32>
  return
}

// -----

// The offset dim first: result[o, b] = x[idx[b], o].
func.func @gather_offset_first() {
  %x = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %i = stablehlo.constant dense<[[1], [2]]> : tensor<2x1xi32>
  %r = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 2>}> : (tensor<3x2xf32>, tensor<2x1xi32>) -> tensor<2x2xf32>
  check.expect_eq_const %r, dense<[[3.0, 5.0], [4.0, 6.0]]> : tensor<2x2xf32>
  return
}

// -----

// A 2x2 window kept whole (nothing collapsed); the start 2 is clamped to 1.
func.func @gather_window() {
  %x = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi8>
  %i = stablehlo.constant dense<[[2]]> : tensor<1x1xi32>
  %r = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1, 2], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 2, 2>}> : (tensor<3x2xi8>, tensor<1x1xi32>) -> tensor<1x2x2xi8>
  check.expect_eq_const %r, dense<[[[3, 4], [5, 6]]]> : tensor<1x2x2xi8>
  %e = stablehlo.constant dense<> : tensor<0x1xi32>
  %s = "stablehlo.gather"(%x, %e) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 2>}> : (tensor<3x2xi8>, tensor<0x1xi32>) -> tensor<0x2xi8>
  check.expect_eq_const %s, dense<> : tensor<0x2xi8>
  return
}

// -----

// Batching dims: indices row b picks a column of operand row b.
func.func @gather_batching() {
  %x = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf64>
  %i = stablehlo.constant dense<[[2], [0]]> : tensor<2x1xi32>
  %r = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1>}> : (tensor<2x3xf64>, tensor<2x1xi32>) -> tensor<2xf64>
  check.expect_eq_const %r, dense<[3.0, 4.0]> : tensor<2xf64>
  return
}

// -----

// A region that returns the update: the result index 7 is outside the operand and
// the spec leaves it implementation-defined; Tlaloc skips it.
func.func @scatter_replace() {
  %x = stablehlo.constant dense<[0, 0, 0, 0]> : tensor<4xi32>
  %i = stablehlo.constant dense<[[1], [3], [7]]> : tensor<3x1xi64>
  %u = stablehlo.constant dense<[5, 6, 9]> : tensor<3xi32>
  %r = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    stablehlo.return %b : tensor<i32>
  }) : (tensor<4xi32>, tensor<3x1xi64>, tensor<3xi32>) -> tensor<4xi32>
  check.expect_eq_const %r, dense<[0, 5, 0, 6]> : tensor<4xi32>
  return
}

// -----

// Batching dims: update b goes to operand row b, at the column its index names.
func.func @scatter_batching() {
  %x = stablehlo.constant dense<0.0> : tensor<2x3xf32>
  %i = stablehlo.constant dense<[[2], [0]]> : tensor<2x1xi32>
  %u = stablehlo.constant dense<[7.0, 8.0]> : tensor<2xf32>
  %r = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) : (tensor<2x3xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<2x3xf32>
  check.expect_eq_const %r, dense<[[0.0, 0.0, 7.0], [8.0, 0.0, 0.0]]> : tensor<2x3xf32>
  return
}

// -----

// A 2x2 window written at row 1.
func.func @scatter_window() {
  %x = stablehlo.constant dense<1> : tensor<3x2xi8>
  %i = stablehlo.constant dense<[[1]]> : tensor<1x1xi32>
  %u = stablehlo.constant dense<[[[-1, -2], [-3, -4]]]> : tensor<1x2x2xi8>
  %r = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1, 2], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<i8>, %b: tensor<i8>):
    stablehlo.return %b : tensor<i8>
  }) : (tensor<3x2xi8>, tensor<1x1xi32>, tensor<1x2x2xi8>) -> tensor<3x2xi8>
  check.expect_eq_const %r, dense<[[1, 1], [-1, -2], [-3, -4]]> : tensor<3x2xi8>
  return
}

// -----

// Two inputs: the region takes (old0, old1, update0, update1) and here replaces
// the first and keeps the second.
func.func @scatter_variadic() {
  %x = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %y = stablehlo.constant dense<[0.5, 1.5, 2.5]> : tensor<3xbf16>
  %i = stablehlo.constant dense<[2, 0]> : tensor<2xi32>
  %u = stablehlo.constant dense<[30, 10]> : tensor<2xi32>
  %v = stablehlo.constant dense<[9.0, 9.0]> : tensor<2xbf16>
  %r:2 = "stablehlo.scatter"(%x, %y, %i, %u, %v) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<bf16>, %c: tensor<i32>, %d: tensor<bf16>):
    stablehlo.return %c, %b : tensor<i32>, tensor<bf16>
  }) : (tensor<3xi32>, tensor<3xbf16>, tensor<2xi32>, tensor<2xi32>, tensor<2xbf16>) -> (tensor<3xi32>, tensor<3xbf16>)
  check.expect_eq_const %r#0, dense<[10, 2, 30]> : tensor<3xi32>
  check.expect_eq_const %r#1, dense<[0.5, 1.5, 2.5]> : tensor<3xbf16>
  return
}
