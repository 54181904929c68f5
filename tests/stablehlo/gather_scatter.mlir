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
