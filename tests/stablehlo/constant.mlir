// Constants of every supported element type, in each dense form (lists, splats,
// hex), checked against values written independently.
// Run: tlaloc run constant.mlir --split-input-file

func.func @list_and_splat_f32() {
  %0 = stablehlo.constant dense<[[1.0, -2.5], [3.25e+02, 0.0]]> : tensor<2x2xf32>
  check.expect_eq_const %0, dense<[[1.0, -2.5], [325.0, 0.0]]> : tensor<2x2xf32>
  %1 = stablehlo.constant dense<7.5> : tensor<3xf32>
  check.expect_eq_const %1, dense<[7.5, 7.5, 7.5]> : tensor<3xf32>
  return
}

// -----

// Hex is the raw little-endian bytes: 0x3F800000 is 1.0, 0x7FC00000 a NaN.
func.func @hex_f32() {
  %0 = stablehlo.constant dense<"0x0000803F000000C0"> : tensor<2xf32>
  check.expect_eq_const %0, dense<[1.0, -2.0]> : tensor<2xf32>
  %1 = stablehlo.constant dense<[0x7F800000, 0xFF800000]> : tensor<2xf32>
  check.expect_eq_const %1, dense<"0x0000807F000080FF"> : tensor<2xf32>
  return
}

// -----

func.func @integers() {
  %0 = stablehlo.constant dense<[-128, 127]> : tensor<2xi8>
  check.expect_eq_const %0, dense<"0x807F"> : tensor<2xi8>
  %1 = stablehlo.constant dense<[255, 0]> : tensor<2xui8>
  check.expect_eq_const %1, dense<"0xFF00"> : tensor<2xui8>
  %2 = stablehlo.constant dense<-9223372036854775808> : tensor<i64>
  check.expect_eq_const %2, dense<"0x0000000000000080"> : tensor<i64>
  %3 = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  check.expect_eq_const %3, dense<[true, false]> : tensor<2xi1>
  return
}

// -----

// bf16 and f16 literals round to nearest even: 1.00390625 is halfway between the
// bf16 neighbours 1.0 and 1.0078125 and rounds to 1.0 (even mantissa).
func.func @half_precision() {
  %0 = stablehlo.constant dense<[1.00390625, 3.0]> : tensor<2xbf16>
  check.expect_eq_const %0, dense<"0x803F4040"> : tensor<2xbf16>
  %1 = stablehlo.constant dense<[1.0, -2.0]> : tensor<2xf16>
  check.expect_eq_const %1, dense<"0x003C00C0"> : tensor<2xf16>
  %2 = stablehlo.constant dense<0.1> : tensor<f64>
  check.expect_eq_const %2, dense<"0x9A9999999999B93F"> : tensor<f64>
  return
}

// -----

func.func @empty_and_scalar() {
  %0 = stablehlo.constant dense<> : tensor<0x3xf32>
  check.expect_eq_const %0, dense<> : tensor<0x3xf32>
  %1 = stablehlo.constant dense<42> : tensor<i32>
  check.expect_eq_const %1, dense<42> : tensor<i32>
  return
}

// -----

func.func @wide_integers() {
  %0 = stablehlo.constant dense<[-32768, 32767]> : tensor<2xi16>
  check.expect_eq_const %0, dense<"0x0080FF7F"> : tensor<2xi16>
  %1 = stablehlo.constant dense<[65535, 1]> : tensor<2xui16>
  check.expect_eq_const %1, dense<"0xFFFF0100"> : tensor<2xui16>
  %2 = stablehlo.constant dense<4294967295> : tensor<ui32>
  check.expect_eq_const %2, dense<"0xFFFFFFFF"> : tensor<ui32>
  %3 = stablehlo.constant dense<18446744073709551615> : tensor<ui64>
  check.expect_eq_const %3, dense<"0xFFFFFFFFFFFFFFFF"> : tensor<ui64>
  %4 = stablehlo.constant dense<-5> : tensor<si16>
  check.expect_eq_const %4, dense<"0xFBFF"> : tensor<i16>
  return
}
