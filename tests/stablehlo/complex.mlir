// Complex element types (complex<f32> is c64, complex<f64> is c128) and the ops on
// them: arithmetic, functions, comparison, conversion, the parts and fft. Expected
// values are worked out by hand.
// Run: tlaloc run complex.mlir --split-input-file

func.func @arithmetic() {
  %a = stablehlo.constant dense<[(1.0, 2.0), (3.0, -1.0)]> : tensor<2xcomplex<f32>>
  %b = stablehlo.constant dense<[(2.0, 0.0), (0.0, 1.0)]> : tensor<2xcomplex<f32>>
  %0 = stablehlo.add %a, %b : tensor<2xcomplex<f32>>
  check.expect_eq_const %0, dense<[(3.0, 2.0), (3.0, 0.0)]> : tensor<2xcomplex<f32>>
  %1 = stablehlo.subtract %a, %b : tensor<2xcomplex<f32>>
  check.expect_eq_const %1, dense<[(-1.0, 2.0), (3.0, -2.0)]> : tensor<2xcomplex<f32>>
  // (3 - i) i = 3i - i^2 = 1 + 3i.
  %2 = stablehlo.multiply %a, %b : tensor<2xcomplex<f32>>
  check.expect_eq_const %2, dense<[(2.0, 4.0), (1.0, 3.0)]> : tensor<2xcomplex<f32>>
  // (3 - i) / i = (3 - i)(-i) = -1 - 3i.
  %3 = stablehlo.divide %a, %b : tensor<2xcomplex<f32>>
  check.expect_almost_eq_const %3, dense<[(0.5, 1.0), (-1.0, -3.0)]> : tensor<2xcomplex<f32>>
  %4 = stablehlo.negate %a : tensor<2xcomplex<f32>>
  check.expect_eq_const %4, dense<[(-1.0, -2.0), (-3.0, 1.0)]> : tensor<2xcomplex<f32>>
  // i^2 = -1.
  %i = stablehlo.constant dense<(0.0, 1.0)> : tensor<complex<f64>>
  %two = stablehlo.constant dense<(2.0, 0.0)> : tensor<complex<f64>>
  %5 = stablehlo.power %i, %two : tensor<complex<f64>>
  check.expect_almost_eq_const %5, dense<(-1.0, 0.0)> : tensor<complex<f64>>
  func.return
}

// -----

// abs is the modulus, a real of the parts' type; sign is z / |z|.
func.func @abs_sign() {
  %z = stablehlo.constant dense<[(3.0, 4.0), (-5.0, 12.0), (0.0, 0.0)]> : tensor<3xcomplex<f32>>
  %0 = stablehlo.abs %z : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
  check.expect_eq_const %0, dense<[5.0, 13.0, 0.0]> : tensor<3xf32>
  %1 = stablehlo.sign %z : tensor<3xcomplex<f32>>
  check.expect_almost_eq_const %1, dense<[(0.6, 0.8), (-0.38461538, 0.92307692), (0.0, 0.0)]> : tensor<3xcomplex<f32>>
  func.return
}

// -----

// exp(i pi) = -1, log(-1) = i pi, sqrt(-4) = 2i, sqrt(2i) = 1 + i.
func.func @functions() {
  %0 = stablehlo.constant dense<[(0.0, 3.141592653589793), (-1.0, 0.0), (-4.0, 0.0), (0.0, 2.0)]> : tensor<4xcomplex<f64>>
  %e = stablehlo.exponential %0 : tensor<4xcomplex<f64>>
  %e0 = stablehlo.slice %e [0:1] : (tensor<4xcomplex<f64>>) -> tensor<1xcomplex<f64>>
  check.expect_almost_eq_const %e0, dense<[(-1.0, 0.0)]> : tensor<1xcomplex<f64>>
  %l = stablehlo.log %0 : tensor<4xcomplex<f64>>
  %l1 = stablehlo.slice %l [1:2] : (tensor<4xcomplex<f64>>) -> tensor<1xcomplex<f64>>
  check.expect_almost_eq_const %l1, dense<[(0.0, 3.141592653589793)]> : tensor<1xcomplex<f64>>
  %s = stablehlo.sqrt %0 : tensor<4xcomplex<f64>>
  %s23 = stablehlo.slice %s [2:4] : (tensor<4xcomplex<f64>>) -> tensor<2xcomplex<f64>>
  check.expect_almost_eq_const %s23, dense<[(0.0, 2.0), (1.0, 1.0)]> : tensor<2xcomplex<f64>>
  // exp(z) - 1 and log(1 + z) at 0 are 0; 1 / sqrt(-4) = -i / 2.
  %z = stablehlo.constant dense<(0.0, 0.0)> : tensor<complex<f64>>
  %m = stablehlo.exponential_minus_one %z : tensor<complex<f64>>
  check.expect_eq_const %m, dense<(0.0, 0.0)> : tensor<complex<f64>>
  %p = stablehlo.log_plus_one %z : tensor<complex<f64>>
  check.expect_eq_const %p, dense<(0.0, 0.0)> : tensor<complex<f64>>
  %r = stablehlo.rsqrt %0 : tensor<4xcomplex<f64>>
  %r2 = stablehlo.slice %r [2:3] : (tensor<4xcomplex<f64>>) -> tensor<1xcomplex<f64>>
  check.expect_almost_eq_const %r2, dense<[(0.0, -0.5)]> : tensor<1xcomplex<f64>>
  func.return
}

// -----

// Comparison is of (real, imaginary) pairs, lexicographically; NaN is unequal.
func.func @compare_and_extremes() {
  %a = stablehlo.constant dense<[(1.0, 2.0), (1.0, 2.0), (0x7FC00000, 0.0), (1.0, 5.0)]> : tensor<4xcomplex<f32>>
  %b = stablehlo.constant dense<[(1.0, 2.0), (1.0, 3.0), (0x7FC00000, 0.0), (0.0, 9.0)]> : tensor<4xcomplex<f32>>
  %0 = stablehlo.compare EQ, %a, %b : (tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>) -> tensor<4xi1>
  check.expect_eq_const %0, dense<[true, false, false, false]> : tensor<4xi1>
  %1 = stablehlo.compare NE, %a, %b : (tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>) -> tensor<4xi1>
  check.expect_eq_const %1, dense<[false, true, true, true]> : tensor<4xi1>
  %2 = stablehlo.compare LT, %a, %b : (tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>) -> tensor<4xi1>
  check.expect_eq_const %2, dense<[false, true, false, false]> : tensor<4xi1>
  %c = stablehlo.constant dense<[(1.0, 5.0), (1.0, 5.0)]> : tensor<2xcomplex<f32>>
  %d = stablehlo.constant dense<[(2.0, 0.0), (1.0, 6.0)]> : tensor<2xcomplex<f32>>
  %3 = stablehlo.maximum %c, %d : tensor<2xcomplex<f32>>
  check.expect_eq_const %3, dense<[(2.0, 0.0), (1.0, 6.0)]> : tensor<2xcomplex<f32>>
  %4 = stablehlo.minimum %c, %d : tensor<2xcomplex<f32>>
  check.expect_eq_const %4, dense<[(1.0, 5.0), (1.0, 5.0)]> : tensor<2xcomplex<f32>>
  func.return
}

// -----

// Real to complex has a zero imaginary part; complex to a real type (or i1) takes
// the real part.
func.func @convert() {
  %x = stablehlo.constant dense<[1.5, -2.0]> : tensor<2xf32>
  %0 = stablehlo.convert %x : (tensor<2xf32>) -> tensor<2xcomplex<f64>>
  check.expect_eq_const %0, dense<[(1.5, 0.0), (-2.0, 0.0)]> : tensor<2xcomplex<f64>>
  %z = stablehlo.constant dense<[(2.5, 7.0), (-1.0, -1.0), (0.0, 1.0)]> : tensor<3xcomplex<f32>>
  %1 = stablehlo.convert %z : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
  check.expect_eq_const %1, dense<[2.5, -1.0, 0.0]> : tensor<3xf32>
  %2 = stablehlo.convert %z : (tensor<3xcomplex<f32>>) -> tensor<3xi32>
  check.expect_eq_const %2, dense<[2, -1, 0]> : tensor<3xi32>
  %3 = stablehlo.convert %z : (tensor<3xcomplex<f32>>) -> tensor<3xi1>
  check.expect_eq_const %3, dense<[true, true, false]> : tensor<3xi1>
  %4 = stablehlo.convert %z : (tensor<3xcomplex<f32>>) -> tensor<3xcomplex<f64>>
  check.expect_eq_const %4, dense<[(2.5, 7.0), (-1.0, -1.0), (0.0, 1.0)]> : tensor<3xcomplex<f64>>
  func.return
}

// -----

func.func @parts() {
  %z = stablehlo.constant dense<[(1.0, 2.0), (3.0, -1.0)]> : tensor<2xcomplex<f64>>
  %re = stablehlo.real %z : (tensor<2xcomplex<f64>>) -> tensor<2xf64>
  check.expect_eq_const %re, dense<[1.0, 3.0]> : tensor<2xf64>
  %im = stablehlo.imag %z : (tensor<2xcomplex<f64>>) -> tensor<2xf64>
  check.expect_eq_const %im, dense<[2.0, -1.0]> : tensor<2xf64>
  %back = stablehlo.complex %re, %im : tensor<2xcomplex<f64>>
  check.expect_eq %back, %z : tensor<2xcomplex<f64>>
  %i = stablehlo.iota dim = 0 : tensor<3xcomplex<f32>>
  check.expect_eq_const %i, dense<[(0.0, 0.0), (1.0, 0.0), (2.0, 0.0)]> : tensor<3xcomplex<f32>>
  func.return
}

// -----

// The DFT X[k] = sum x[n] exp(-2 pi i k n / N). Of [1, 2, 3] (N = 3, no power of
// two): X0 = 6, X1 = 1 + 2w + 3w^2 with w = exp(-2 pi i / 3), = -1.5 + 0.866i.
func.func @fft_1d() {
  %x = stablehlo.constant dense<[(1.0, 0.0), (0.0, 0.0), (0.0, 0.0), (0.0, 0.0)]> : tensor<4xcomplex<f64>>
  %0 = stablehlo.fft %x, type = FFT, length = [4] : (tensor<4xcomplex<f64>>) -> tensor<4xcomplex<f64>>
  check.expect_almost_eq_const %0, dense<(1.0, 0.0)> : tensor<4xcomplex<f64>>
  %1 = stablehlo.fft %0, type = IFFT, length = [4] : (tensor<4xcomplex<f64>>) -> tensor<4xcomplex<f64>>
  check.expect_almost_eq %1, %x : tensor<4xcomplex<f64>>
  %y = stablehlo.constant dense<[(1.0, 0.0), (2.0, 0.0), (3.0, 0.0)]> : tensor<3xcomplex<f32>>
  %2 = stablehlo.fft %y, type = FFT, length = [3] : (tensor<3xcomplex<f32>>) -> tensor<3xcomplex<f32>>
  check.expect_almost_eq_const %2, dense<[(6.0, 0.0), (-1.5, 0.8660254), (-1.5, -0.8660254)]> : tensor<3xcomplex<f32>>
  // RFFT keeps N/2 + 1 values; IRFFT gives the real signal back.
  %r = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %3 = stablehlo.fft %r, type = RFFT, length = [3] : (tensor<3xf32>) -> tensor<2xcomplex<f32>>
  check.expect_almost_eq_const %3, dense<[(6.0, 0.0), (-1.5, 0.8660254)]> : tensor<2xcomplex<f32>>
  %4 = stablehlo.fft %3, type = IRFFT, length = [3] : (tensor<2xcomplex<f32>>) -> tensor<3xf32>
  check.expect_almost_eq_const %4, dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  func.return
}

// -----

// Over two axes of [[1, 2], [3, 4]]: X00 = 10, X01 = (1 - 2) + (3 - 4) = -2,
// X10 = (1 + 2) - (3 + 4) = -4, X11 = 1 - 2 - 3 + 4 = 0; a batch axis in front.
func.func @fft_2d() {
  %x = stablehlo.constant dense<[[[(1.0, 0.0), (2.0, 0.0)], [(3.0, 0.0), (4.0, 0.0)]]]> : tensor<1x2x2xcomplex<f32>>
  %0 = stablehlo.fft %x, type = FFT, length = [2, 2] : (tensor<1x2x2xcomplex<f32>>) -> tensor<1x2x2xcomplex<f32>>
  check.expect_almost_eq_const %0, dense<[[[(10.0, 0.0), (-2.0, 0.0)], [(-4.0, 0.0), (0.0, 0.0)]]]> : tensor<1x2x2xcomplex<f32>>
  %r = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf64>
  %1 = stablehlo.fft %r, type = RFFT, length = [2, 2] : (tensor<2x2xf64>) -> tensor<2x2xcomplex<f64>>
  check.expect_almost_eq_const %1, dense<[[(10.0, 0.0), (-2.0, 0.0)], [(-4.0, 0.0), (0.0, 0.0)]]> : tensor<2x2xcomplex<f64>>
  %2 = stablehlo.fft %1, type = IRFFT, length = [2, 2] : (tensor<2x2xcomplex<f64>>) -> tensor<2x2xf64>
  check.expect_almost_eq %2, %r : tensor<2x2xf64>
  func.return
}

// -----

// Ops that move elements move c128's 16 bytes whole.
func.func @shape_ops_c128() {
  %a = stablehlo.constant dense<[[(1.0, 2.0), (3.0, -1.0), (9.0, 9.5)], [(5.0, 0.5), (7.0, 1.0), (8.0, 8.5)]]> : tensor<2x3xcomplex<f64>>
  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xcomplex<f64>>) -> tensor<3x2xcomplex<f64>>
  check.expect_eq_const %0, dense<[[(1.0, 2.0), (5.0, 0.5)], [(3.0, -1.0), (7.0, 1.0)], [(9.0, 9.5), (8.0, 8.5)]]> : tensor<3x2xcomplex<f64>>
  %1 = stablehlo.reverse %a, dims = [1] : tensor<2x3xcomplex<f64>>
  check.expect_eq_const %1, dense<[[(9.0, 9.5), (3.0, -1.0), (1.0, 2.0)], [(8.0, 8.5), (7.0, 1.0), (5.0, 0.5)]]> : tensor<2x3xcomplex<f64>>
  %2 = stablehlo.slice %a [1:2, 0:3:2] : (tensor<2x3xcomplex<f64>>) -> tensor<1x2xcomplex<f64>>
  check.expect_eq_const %2, dense<[[(5.0, 0.5), (8.0, 8.5)]]> : tensor<1x2xcomplex<f64>>
  %3 = stablehlo.concatenate %2, %2, dim = 0 : (tensor<1x2xcomplex<f64>>, tensor<1x2xcomplex<f64>>) -> tensor<2x2xcomplex<f64>>
  check.expect_eq_const %3, dense<[[(5.0, 0.5), (8.0, 8.5)], [(5.0, 0.5), (8.0, 8.5)]]> : tensor<2x2xcomplex<f64>>
  %z = stablehlo.constant dense<(0.0, -1.0)> : tensor<complex<f64>>
  %4 = stablehlo.pad %2, %z, low = [0, 1], high = [0, 0], interior = [0, 1] : (tensor<1x2xcomplex<f64>>, tensor<complex<f64>>) -> tensor<1x4xcomplex<f64>>
  check.expect_eq_const %4, dense<[[(0.0, -1.0), (5.0, 0.5), (0.0, -1.0), (8.0, 8.5)]]> : tensor<1x4xcomplex<f64>>
  %5 = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<complex<f64>>) -> tensor<2xcomplex<f64>>
  check.expect_eq_const %5, dense<(0.0, -1.0)> : tensor<2xcomplex<f64>>
  %p = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %row = stablehlo.slice %a [0:1, 0:2] : (tensor<2x3xcomplex<f64>>) -> tensor<1x2xcomplex<f64>>
  %r = stablehlo.reshape %row : (tensor<1x2xcomplex<f64>>) -> tensor<2xcomplex<f64>>
  %6 = stablehlo.select %p, %r, %5 : tensor<2xi1>, tensor<2xcomplex<f64>>
  check.expect_eq_const %6, dense<[(1.0, 2.0), (0.0, -1.0)]> : tensor<2xcomplex<f64>>
  %s = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x3xcomplex<f64>>, tensor<complex<f64>>) -> tensor<2xcomplex<f64>>
  check.expect_eq_const %s, dense<[(13.0, 9.5), (20.0, 9.0)]> : tensor<2xcomplex<f64>>
  func.return
}

// -----

// a = [[2, 0], [i, 1]] (lower), b = [2, 1 + i]: a x = b gives [1, 1]; with a's
// transpose [[2, i], [0, 1]], x = [1.5 - 0.5i, 1 + i]; with its adjoint
// [[2, -i], [0, 1]], x = [0.5 + 0.5i, 1 + i].
func.func @triangular_solve_complex() {
  %a = stablehlo.constant dense<[[(2.0, 0.0), (9.0, 9.0)], [(0.0, 1.0), (1.0, 0.0)]]> : tensor<2x2xcomplex<f64>>
  %b = stablehlo.constant dense<[[(2.0, 0.0)], [(1.0, 1.0)]]> : tensor<2x1xcomplex<f64>>
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false} : (tensor<2x2xcomplex<f64>>, tensor<2x1xcomplex<f64>>) -> tensor<2x1xcomplex<f64>>
  check.expect_almost_eq_const %0, dense<[[(1.0, 0.0)], [(1.0, 0.0)]]> : tensor<2x1xcomplex<f64>>
  %1 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, transpose_a = #stablehlo<transpose TRANSPOSE>, unit_diagonal = false} : (tensor<2x2xcomplex<f64>>, tensor<2x1xcomplex<f64>>) -> tensor<2x1xcomplex<f64>>
  check.expect_almost_eq_const %1, dense<[[(1.5, -0.5)], [(1.0, 1.0)]]> : tensor<2x1xcomplex<f64>>
  %2 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, transpose_a = #stablehlo<transpose ADJOINT>, unit_diagonal = false} : (tensor<2x2xcomplex<f64>>, tensor<2x1xcomplex<f64>>) -> tensor<2x1xcomplex<f64>>
  check.expect_almost_eq_const %2, dense<[[(0.5, 0.5)], [(1.0, 1.0)]]> : tensor<2x1xcomplex<f64>>
  func.return
}
