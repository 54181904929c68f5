// while, if, case, optimization_barrier and calls inside regions.
// Run: tlaloc run control_flow.mlir --split-input-file

// Counts to 10 while adding 0.5 each time: the loop-carried values leave the
// loop as they were when cond first failed.
func.func @while_counter() {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c10 = stablehlo.constant dense<10> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %f0 = stablehlo.constant dense<1.0> : tensor<f32>
  %half = stablehlo.constant dense<0.5> : tensor<f32>
  %0:2 = stablehlo.while(%iterArg = %c0, %iterArg_0 = %f0) : tensor<i64>, tensor<f32>
   cond {
    %1 = stablehlo.compare  LT, %iterArg, %c10,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  } do {
    %1 = stablehlo.add %iterArg, %one : tensor<i64>
    %2 = stablehlo.add %iterArg_0, %half : tensor<f32>
    stablehlo.return %1, %2 : tensor<i64>, tensor<f32>
  }
  check.expect_eq_const %0#0, dense<10> : tensor<i64>
  check.expect_eq_const %0#1, dense<6.0> : tensor<f32>
  return
}

// -----

// A cond that is false at once: the body never runs.
func.func @while_zero_trips() {
  %c5 = stablehlo.constant dense<5> : tensor<i32>
  %0 = stablehlo.while(%iterArg = %c5) : tensor<i32>
   cond {
    %1 = stablehlo.compare  LT, %iterArg, %iterArg,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  } do {
    %1 = stablehlo.add %iterArg, %iterArg : tensor<i32>
    stablehlo.return %1 : tensor<i32>
  }
  check.expect_eq_const %0, dense<5> : tensor<i32>
  return
}

// -----

// 3 outer x 4 inner iterations; the inner loop reads the outer iterArg.
func.func @nested_while() {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %c3 = stablehlo.constant dense<3> : tensor<i32>
  %c4 = stablehlo.constant dense<4> : tensor<i32>
  %0:2 = stablehlo.while(%i = %c0, %acc = %c0) : tensor<i32>, tensor<i32>
   cond {
    %1 = stablehlo.compare  LT, %i, %c3,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  } do {
    %1:2 = stablehlo.while(%j = %c0, %a = %acc) : tensor<i32>, tensor<i32>
     cond {
      %3 = stablehlo.compare  LT, %j, %c4,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %3 : tensor<i1>
    } do {
      %3 = stablehlo.add %j, %c1 : tensor<i32>
      %4 = stablehlo.add %a, %i : tensor<i32>
      stablehlo.return %3, %4 : tensor<i32>, tensor<i32>
    }
    %2 = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %2, %1#1 : tensor<i32>, tensor<i32>
  }
  // acc = 4 * (0 + 1 + 2) = 12
  check.expect_eq_const %0#0, dense<3> : tensor<i32>
  check.expect_eq_const %0#1, dense<12> : tensor<i32>
  return
}

// -----

// An i8 counter wraps (two's complement): 127 + 1 is -128, which ends the loop.
func.func @while_wraps() {
  %c120 = stablehlo.constant dense<120> : tensor<i8>
  %c1 = stablehlo.constant dense<1> : tensor<i8>
  %c0 = stablehlo.constant dense<0> : tensor<i8>
  %0 = stablehlo.while(%iterArg = %c120) : tensor<i8>
   cond {
    %1 = stablehlo.compare  GT, %iterArg, %c0,  SIGNED : (tensor<i8>, tensor<i8>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  } do {
    %1 = stablehlo.add %iterArg, %c1 : tensor<i8>
    stablehlo.return %1 : tensor<i8>
  }
  check.expect_eq_const %0, dense<-128> : tensor<i8>
  return
}

// -----

func.func @if_both_branches() {
  %t = stablehlo.constant dense<true> : tensor<i1>
  %f = stablehlo.constant dense<false> : tensor<i1>
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = stablehlo.constant dense<[-0.0, 3.0]> : tensor<2xf32>
  %0 = "stablehlo.if"(%t) ({
    stablehlo.return %a : tensor<2xf32>
  }, {
    stablehlo.return %b : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  %1 = "stablehlo.if"(%f) ({
    stablehlo.return %a : tensor<2xf32>
  }, {
    %2 = stablehlo.add %a, %b : tensor<2xf32>
    stablehlo.return %2 : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  check.expect_eq_const %0, dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_eq_const %1, dense<[1.0, 5.0]> : tensor<2xf32>
  return
}

// -----

// An index outside [0, 3) takes the last branch (spec: case).
func.func @case_in_and_out_of_range() {
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %i1 = stablehlo.constant dense<1> : tensor<i32>
  %i7 = stablehlo.constant dense<7> : tensor<i32>
  %im = stablehlo.constant dense<-1> : tensor<i32>
  %x = stablehlo.constant dense<10> : tensor<i64>
  %y = stablehlo.constant dense<20> : tensor<i64>
  %z = stablehlo.constant dense<30> : tensor<i64>
  %0 = "stablehlo.case"(%i0) ({ stablehlo.return %x : tensor<i64> }, { stablehlo.return %y : tensor<i64> }, { stablehlo.return %z : tensor<i64> }) : (tensor<i32>) -> tensor<i64>
  %1 = "stablehlo.case"(%i1) ({ stablehlo.return %x : tensor<i64> }, { stablehlo.return %y : tensor<i64> }, { stablehlo.return %z : tensor<i64> }) : (tensor<i32>) -> tensor<i64>
  %2 = "stablehlo.case"(%i7) ({ stablehlo.return %x : tensor<i64> }, { stablehlo.return %y : tensor<i64> }, { stablehlo.return %z : tensor<i64> }) : (tensor<i32>) -> tensor<i64>
  %3 = "stablehlo.case"(%im) ({ stablehlo.return %x : tensor<i64> }, { stablehlo.return %y : tensor<i64> }, { stablehlo.return %z : tensor<i64> }) : (tensor<i32>) -> tensor<i64>
  check.expect_eq_const %0, dense<10> : tensor<i64>
  check.expect_eq_const %1, dense<20> : tensor<i64>
  check.expect_eq_const %2, dense<30> : tensor<i64>
  check.expect_eq_const %3, dense<30> : tensor<i64>
  return
}

// -----

func.func private @double(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// x doubles four times: 16 * x.
func.func @call_in_loop_body() {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %c4 = stablehlo.constant dense<4> : tensor<i32>
  %x = stablehlo.constant dense<[1.0, -0.5, 0.0]> : tensor<3xf32>
  %0:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<3xf32>
   cond {
    %1 = stablehlo.compare  LT, %i, %c4,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  } do {
    %1 = stablehlo.add %i, %c1 : tensor<i32>
    %2 = func.call @double(%v) : (tensor<3xf32>) -> tensor<3xf32>
    stablehlo.return %1, %2 : tensor<i32>, tensor<3xf32>
  }
  check.expect_eq_const %0#1, dense<[16.0, -8.0, 0.0]> : tensor<3xf32>
  return
}

// -----

func.func @optimization_barrier() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %b = stablehlo.constant dense<0x7FC00000> : tensor<f32>
  %0:2 = "stablehlo.optimization_barrier"(%a, %b) : (tensor<2xi32>, tensor<f32>) -> (tensor<2xi32>, tensor<f32>)
  check.expect_eq_const %0#0, dense<[1, 2]> : tensor<2xi32>
  check.expect_eq_const %0#1, dense<0x7FC00000> : tensor<f32>
  // The pretty form lists one type per operand; a check's attributes may follow its type.
  %1:2 = stablehlo.optimization_barrier %a, %b : tensor<2xi32>, tensor<f32>
  check.expect_eq %1#0, %a : tensor<2xi32>
  %c = stablehlo.constant dense<5.0> : tensor<f64>
  check.expect_almost_eq_const %c, dense<5.1> : tensor<f64> {tolerance = 0.125 : f64}
  return
}
