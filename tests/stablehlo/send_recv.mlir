// Tokens and point-to-point messages: after_all, send and recv, run by one process
// and by several through interpreter.run_parallel. A message waits on its channel
// until a recv takes it, oldest first. Run: tlaloc run send_recv.mlir --split-input-file

// One process receives what it sent, in the order sent; after_all joins tokens.
func.func @main() {
  %t0 = stablehlo.after_all : !stablehlo.token
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = stablehlo.constant dense<[3.0, 4.0]> : tensor<2xf32>
  %t1 = "stablehlo.send"(%a, %t0) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>} : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
  %t2 = "stablehlo.send"(%b, %t1) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>} : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
  %t3 = stablehlo.after_all %t1, %t2 : !stablehlo.token
  %x, %t4 = "stablehlo.recv"(%t3) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>} : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
  %y, %t5 = "stablehlo.recv"(%t4) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>} : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
  check.expect_eq_const %x, dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_eq_const %y, dense<[3.0, 4.0]> : tensor<2xf32>
  return
}

// -----

// Two values in one message, from process 0 to process 1; process 1 answers on
// another channel with their sum, which process 0 returns. Tokens pass through calls.
func.func @ask(%p: tensor<i32>, %q: tensor<2xi64>, %t: !stablehlo.token) -> (tensor<2xi64>, !stablehlo.token) {
  %t1 = call @post(%p, %q, %t) : (tensor<i32>, tensor<2xi64>, !stablehlo.token) -> !stablehlo.token
  %r, %t2 = "stablehlo.recv"(%t1) {channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, is_host_transfer = false} : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
  return %r, %t2 : tensor<2xi64>, !stablehlo.token
}
func.func private @post(%p: tensor<i32>, %q: tensor<2xi64>, %t: !stablehlo.token) -> !stablehlo.token {
  %t1 = "stablehlo.send"(%p, %q, %t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (tensor<i32>, tensor<2xi64>, !stablehlo.token) -> !stablehlo.token
  return %t1 : !stablehlo.token
}
func.func @answer(%t: !stablehlo.token) -> (tensor<i32>, !stablehlo.token) {
  %p, %q, %t1 = "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (!stablehlo.token) -> (tensor<i32>, tensor<2xi64>, !stablehlo.token)
  %p64 = stablehlo.convert %p : (tensor<i32>) -> tensor<i64>
  %pp = stablehlo.broadcast_in_dim %p64, dims = [] : (tensor<i64>) -> tensor<2xi64>
  %s = stablehlo.add %pp, %q : tensor<2xi64>
  %t2 = "stablehlo.send"(%s, %t1) {channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>} : (tensor<2xi64>, !stablehlo.token) -> !stablehlo.token
  return %p, %t2 : tensor<i32>, !stablehlo.token
}
func.func @main() {
  %p = stablehlo.constant dense<7> : tensor<i32>
  %q = stablehlo.constant dense<[10, 20]> : tensor<2xi64>
  %t = stablehlo.after_all : !stablehlo.token
  %r:4 = "interpreter.run_parallel"(%p, %q, %t, %t) {programs = [[@ask], [@answer]]} : (tensor<i32>, tensor<2xi64>, !stablehlo.token, !stablehlo.token) -> (tensor<2xi64>, !stablehlo.token, tensor<i32>, !stablehlo.token)
  check.expect_eq_const %r#0, dense<[17, 27]> : tensor<2xi64>
  check.expect_eq_const %r#2, dense<7> : tensor<i32>
  return
}
