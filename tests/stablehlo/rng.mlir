// stablehlo.rng and stablehlo.rng_bit_generator (threefry-2x32; the bits are
// Tlaloc's choice, documented in docs/STABLEHLO.md "Random numbers").
// Run: tlaloc run rng.mlir --split-input-file

// Threefry-2x32 of key (0, 0) and counter (0, 0) is (0x6b200159, 0x99ba4efe), the
// Random123 known answer. Block 0 is the 64-bit word 0x6b20015999ba4efe; the
// counter advances by the one block used.
func.func @bit_generator_known_answer() {
  %s = stablehlo.constant dense<[0, 0]> : tensor<2xui64>
  %0:2 = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<1xui64>)
  check.expect_eq_const %0#0, dense<[0, 1]> : tensor<2xui64>
  check.expect_eq_const %0#1, dense<[7719171245655871230]> : tensor<1xui64>
  return
}

// -----

// 32-bit elements take the word's little-endian halves, low half first; DEFAULT
// is THREE_FRY. Three ui32 need two blocks.
func.func @bit_generator_default_ui32() {
  %s = stablehlo.constant dense<[0, 0]> : tensor<2xui64>
  %0:2 = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm DEFAULT>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3xui32>)
  check.expect_eq_const %0#0, dense<[0, 2]> : tensor<2xui64>
  %1 = stablehlo.slice %0#1 [0:2] : (tensor<3xui32>) -> tensor<2xui32>
  check.expect_eq_const %1, dense<[2579123966, 1797259609]> : tensor<2xui32>
  return
}

// -----

// The same state gives the same bits; the returned state gives the next ones:
// drawing 2 ui64 at once equals drawing 1 and then 1 from the new state.
func.func @bit_generator_determinism() {
  %s = stablehlo.constant dense<[42, 7]> : tensor<2xui64>
  %0:2 = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x3xf32>)
  %1:2 = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x3xf32>)
  %b0 = stablehlo.bitcast_convert %0#1 : (tensor<2x3xf32>) -> tensor<2x3xi32>
  %b1 = stablehlo.bitcast_convert %1#1 : (tensor<2x3xf32>) -> tensor<2x3xi32>
  stablehlo.custom_call @check.expect_eq(%b0, %b1) : (tensor<2x3xi32>, tensor<2x3xi32>) -> ()
  check.expect_eq_const %0#0, dense<[42, 10]> : tensor<2xui64>
  %2:2 = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2xi64>)
  %3:2 = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<1xi64>)
  %4:2 = "stablehlo.rng_bit_generator"(%3#0) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<1xi64>)
  %5 = stablehlo.concatenate %3#1, %4#1, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  stablehlo.custom_call @check.expect_eq(%2#1, %5) : (tensor<2xi64>, tensor<2xi64>) -> ()
  return
}

// -----

// An empty output uses no block and leaves the state as it is.
func.func @bit_generator_empty() {
  %s = stablehlo.constant dense<[1, 18446744073709551615]> : tensor<2xui64>
  %0:2 = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<0x4xui8>)
  check.expect_eq_const %0#0, dense<[1, 18446744073709551615]> : tensor<2xui64>
  %1:2 = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3xui8>)
  // The counter wraps modulo 2^64.
  check.expect_eq_const %1#0, dense<[1, 0]> : tensor<2xui64>
  return
}

// -----

// UNIFORM values lie in [a, b): clamping to [2, nextafter(3, 0)] changes nothing.
// An integer range of one value, and NORMAL with stddev 0, give a everywhere.
func.func @rng_ranges() {
  %a = stablehlo.constant dense<2.0> : tensor<f32>
  %b = stablehlo.constant dense<3.0> : tensor<f32>
  %shape = stablehlo.constant dense<[4, 5]> : tensor<2xi64>
  %0 = "stablehlo.rng"(%a, %b, %shape) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<4x5xf32>
  %hi = stablehlo.constant dense<2.99999976> : tensor<f32>
  %1 = stablehlo.clamp %a, %0, %hi : (tensor<f32>, tensor<4x5xf32>, tensor<f32>) -> tensor<4x5xf32>
  stablehlo.custom_call @check.expect_eq(%0, %1) : (tensor<4x5xf32>, tensor<4x5xf32>) -> ()
  %ia = stablehlo.constant dense<-3> : tensor<i32>
  %ib = stablehlo.constant dense<-2> : tensor<i32>
  %s3 = stablehlo.constant dense<[3]> : tensor<1xi32>
  %2 = "stablehlo.rng"(%ia, %ib, %s3) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<i32>, tensor<i32>, tensor<1xi32>) -> tensor<3xi32>
  check.expect_eq_const %2, dense<[-3, -3, -3]> : tensor<3xi32>
  %m = stablehlo.constant dense<5.0> : tensor<f64>
  %z = stablehlo.constant dense<0.0> : tensor<f64>
  %3 = "stablehlo.rng"(%m, %z, %s3) {rng_distribution = #stablehlo<rng_distribution NORMAL>} : (tensor<f64>, tensor<f64>, tensor<1xi32>) -> tensor<3xf64>
  check.expect_eq_const %3, dense<[5.0, 5.0, 5.0]> : tensor<3xf64>
  return
}

// -----

// Equal rng calls give equal values (one fixed key); a rank-0 shape gives a scalar.
func.func @rng_determinism() {
  %a = stablehlo.constant dense<0.0> : tensor<bf16>
  %b = stablehlo.constant dense<1.0> : tensor<bf16>
  %shape = stablehlo.constant dense<[6]> : tensor<1xi64>
  %0 = "stablehlo.rng"(%a, %b, %shape) {rng_distribution = #stablehlo<rng_distribution NORMAL>} : (tensor<bf16>, tensor<bf16>, tensor<1xi64>) -> tensor<6xbf16>
  %1 = "stablehlo.rng"(%a, %b, %shape) {rng_distribution = #stablehlo<rng_distribution NORMAL>} : (tensor<bf16>, tensor<bf16>, tensor<1xi64>) -> tensor<6xbf16>
  stablehlo.custom_call @check.expect_eq(%0, %1) : (tensor<6xbf16>, tensor<6xbf16>) -> ()
  %none = stablehlo.constant dense<> : tensor<0xi64>
  %2 = "stablehlo.rng"(%b, %b, %none) {rng_distribution = #stablehlo<rng_distribution NORMAL>} : (tensor<bf16>, tensor<bf16>, tensor<0xi64>) -> tensor<bf16>
  %3 = stablehlo.subtract %2, %2 : tensor<bf16>
  check.expect_eq_const %3, dense<0.0> : tensor<bf16>
  return
}

// -----

// The pretty forms JAX prints: `algorithm = ...` and `distribution = ...` as bare
// words (MLIR prints two spaces before them; one reads as well). Same bits as the generic form above: block 0 of key (0, 0).
func.func @bit_generator_pretty() {
  %s = stablehlo.constant dense<[0, 0]> : tensor<2xui64>
  %0:2 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<1xui64>)
  check.expect_eq_const %0#0, dense<[0, 1]> : tensor<2xui64>
  check.expect_eq_const %0#1, dense<[7719171245655871230]> : tensor<1xui64>
  %1:2 = stablehlo.rng_bit_generator %s, algorithm =  DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2xui32>)
  check.expect_eq_const %1#1, dense<[2579123966, 1797259609]> : tensor<2xui32>
  return
}

// -----

// rng in pretty form draws what the generic form draws (one fixed key), and NORMAL
// with b = 0 gives a + 0 z = a.
func.func @rng_pretty() {
  %a = stablehlo.constant dense<2.5> : tensor<f32>
  %b = stablehlo.constant dense<4.0> : tensor<f32>
  %shape = stablehlo.constant dense<[2, 2]> : tensor<2xi64>
  %0 = stablehlo.rng %a, %b, %shape, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x2xf32>
  %g = "stablehlo.rng"(%a, %b, %shape) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x2xf32>
  stablehlo.custom_call @check.expect_eq(%0, %g) : (tensor<2x2xf32>, tensor<2x2xf32>) -> ()
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %1 = stablehlo.rng %a, %z, %shape, distribution =  NORMAL : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x2xf32>
  check.expect_eq_const %1, dense<2.5> : tensor<2x2xf32>
  return
}
