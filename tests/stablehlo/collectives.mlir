// The collectives, run by several processes of one program through
// interpreter.run_parallel (programs: one row per replica, one column per
// partition). Expected values derived by hand. Run: tlaloc run collectives.mlir --split-input-file

// Three replicas sum their operands; every one gets the sum.
func.func @sum(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @main() {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = stablehlo.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %c = stablehlo.constant dense<[100.0, 200.0]> : tensor<2xf32>
  %r:3 = "interpreter.run_parallel"(%a, %b, %c) {programs = [[@sum], [@sum], [@sum]]} : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  check.expect_eq_const %r#0, dense<[111.0, 222.0]> : tensor<2xf32>
  check.expect_eq_const %r#1, dense<[111.0, 222.0]> : tensor<2xf32>
  check.expect_eq_const %r#2, dense<[111.0, 222.0]> : tensor<2xf32>
  return
}

// -----

// A region that is more than one op runs once per element, on the values in the
// group's order: f(f(1, 2), 3) with f(a, b) = (a + b) * 2 is (6 + 3) * 2 = 18.
func.func @ordered(%x: tensor<i64>) -> tensor<i64> {
  %0 = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      %two = stablehlo.constant dense<2> : tensor<i64>
      %s = stablehlo.add %a, %b : tensor<i64>
      %t = stablehlo.multiply %s, %two : tensor<i64>
      stablehlo.return %t : tensor<i64>
  }) {replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : (tensor<i64>) -> tensor<i64>
  return %0 : tensor<i64>
}
func.func @main() {
  %a = stablehlo.constant dense<1> : tensor<i64>
  %b = stablehlo.constant dense<2> : tensor<i64>
  %c = stablehlo.constant dense<3> : tensor<i64>
  %r:3 = "interpreter.run_parallel"(%a, %b, %c) {programs = [[@ordered], [@ordered], [@ordered]]} : (tensor<i64>, tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>, tensor<i64>)
  check.expect_eq_const %r#0, dense<18> : tensor<i64>
  check.expect_eq_const %r#2, dense<18> : tensor<i64>
  return
}

// -----

// Two groups of four replicas take the maximum within each: {0, 2} and {1, 3}.
func.func @max(%x: tensor<i32>) -> tensor<i32> {
  %0 = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %m = stablehlo.maximum %a, %b : tensor<i32>
      stablehlo.return %m : tensor<i32>
  }) {replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>} : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}
func.func @main() {
  %a = stablehlo.constant dense<5> : tensor<i32>
  %b = stablehlo.constant dense<-1> : tensor<i32>
  %c = stablehlo.constant dense<7> : tensor<i32>
  %d = stablehlo.constant dense<-4> : tensor<i32>
  %r:4 = "interpreter.run_parallel"(%a, %b, %c, %d) {programs = [[@max], [@max], [@max], [@max]]} : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>)
  check.expect_eq_const %r#0, dense<7> : tensor<i32>
  check.expect_eq_const %r#1, dense<-1> : tensor<i32>
  check.expect_eq_const %r#2, dense<7> : tensor<i32>
  check.expect_eq_const %r#3, dense<-1> : tensor<i32>
  return
}

// -----

// Two replicas of two partitions. Without a channel the groups are replicas within
// a partition: (0,0)+(1,0) and (0,1)+(1,1). With channel 1 a group of replicas takes
// all their partitions: every process. With use_global_device_ids the ids are
// process indices (replica * 2 + partition): {0, 3} and {1, 2}.
func.func @by_replica(%x: tensor<i64>) -> tensor<i64> {
  %0 = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      %s = stablehlo.add %a, %b : tensor<i64>
      stablehlo.return %s : tensor<i64>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<i64>) -> tensor<i64>
  return %0 : tensor<i64>
}
func.func @everyone(%x: tensor<i64>) -> tensor<i64> {
  %0 = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      %s = stablehlo.add %a, %b : tensor<i64>
      stablehlo.return %s : tensor<i64>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>} : (tensor<i64>) -> tensor<i64>
  return %0 : tensor<i64>
}
func.func @flattened(%x: tensor<i64>) -> tensor<i64> {
  %0 = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      %s = stablehlo.add %a, %b : tensor<i64>
      stablehlo.return %s : tensor<i64>
  }) {replica_groups = dense<[[0, 3], [1, 2]]> : tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, use_global_device_ids} : (tensor<i64>) -> tensor<i64>
  return %0 : tensor<i64>
}
func.func @main() {
  %a = stablehlo.constant dense<1> : tensor<i64>
  %b = stablehlo.constant dense<10> : tensor<i64>
  %c = stablehlo.constant dense<100> : tensor<i64>
  %d = stablehlo.constant dense<1000> : tensor<i64>
  %r:4 = "interpreter.run_parallel"(%a, %b, %c, %d) {programs = [[@by_replica, @by_replica], [@by_replica, @by_replica]]} : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>)
  check.expect_eq_const %r#0, dense<101> : tensor<i64>
  check.expect_eq_const %r#1, dense<1010> : tensor<i64>
  check.expect_eq_const %r#2, dense<101> : tensor<i64>
  check.expect_eq_const %r#3, dense<1010> : tensor<i64>
  %s:4 = "interpreter.run_parallel"(%a, %b, %c, %d) {programs = [[@everyone, @everyone], [@everyone, @everyone]]} : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>)
  check.expect_eq_const %s#0, dense<1111> : tensor<i64>
  check.expect_eq_const %s#3, dense<1111> : tensor<i64>
  %t:4 = "interpreter.run_parallel"(%a, %b, %c, %d) {programs = [[@flattened, @flattened], [@flattened, @flattened]]} : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>)
  check.expect_eq_const %t#0, dense<1001> : tensor<i64>
  check.expect_eq_const %t#1, dense<110> : tensor<i64>
  check.expect_eq_const %t#2, dense<110> : tensor<i64>
  check.expect_eq_const %t#3, dense<1001> : tensor<i64>
  return
}

// -----

// all_gather concatenates in the group's order; reduce_scatter sums, then each
// keeps its part.
func.func @gather(%x: tensor<1x2xi32>) -> tensor<2x2xi32> {
  %0 = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>} : (tensor<1x2xi32>) -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}
func.func @scatter(%x: tensor<4xi32>) -> tensor<2xi32> {
  %0 = "stablehlo.reduce_scatter"(%x) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %s = stablehlo.add %a, %b : tensor<i32>
      stablehlo.return %s : tensor<i32>
  }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}
func.func @main() {
  %a = stablehlo.constant dense<[[1, 2]]> : tensor<1x2xi32>
  %b = stablehlo.constant dense<[[3, 4]]> : tensor<1x2xi32>
  %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@gather], [@gather]]} : (tensor<1x2xi32>, tensor<1x2xi32>) -> (tensor<2x2xi32>, tensor<2x2xi32>)
  check.expect_eq_const %r#0, dense<[[3, 4], [1, 2]]> : tensor<2x2xi32>
  check.expect_eq_const %r#1, dense<[[3, 4], [1, 2]]> : tensor<2x2xi32>
  %c = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %d = stablehlo.constant dense<[10, 20, 30, 40]> : tensor<4xi32>
  %s:2 = "interpreter.run_parallel"(%c, %d) {programs = [[@scatter], [@scatter]]} : (tensor<4xi32>, tensor<4xi32>) -> (tensor<2xi32>, tensor<2xi32>)
  check.expect_eq_const %s#0, dense<[11, 22]> : tensor<2xi32>
  check.expect_eq_const %s#1, dense<[33, 44]> : tensor<2xi32>
  return
}

// -----

// all_to_all across two partitions (channel 1): each splits rows in two and keeps
// the parts with its own index, side by side in the group's order.
func.func @exchange(%x: tensor<2x2xi64>) -> tensor<1x4xi64> {
  %0 = "stablehlo.all_to_all"(%x) {split_dimension = 0 : i64, concat_dimension = 1 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>} : (tensor<2x2xi64>) -> tensor<1x4xi64>
  return %0 : tensor<1x4xi64>
}
func.func @main() {
  %a = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %b = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi64>
  %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@exchange, @exchange]]} : (tensor<2x2xi64>, tensor<2x2xi64>) -> (tensor<1x4xi64>, tensor<1x4xi64>)
  check.expect_eq_const %r#0, dense<[[1, 2, 5, 6]]> : tensor<1x4xi64>
  check.expect_eq_const %r#1, dense<[[3, 4, 7, 8]]> : tensor<1x4xi64>
  return
}

// -----

// collective_permute sends 0 -> 1 -> 2 (replica 0 gets zeros);
// collective_broadcast sends from the first of the group [1, 0] (replica 2, in no
// group, gets zeros).
func.func @shift(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @broadcast(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.collective_broadcast"(%x) {replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @main() {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = stablehlo.constant dense<[3.0, 4.0]> : tensor<2xf32>
  %c = stablehlo.constant dense<[5.0, 6.0]> : tensor<2xf32>
  %r:3 = "interpreter.run_parallel"(%a, %b, %c) {programs = [[@shift], [@shift], [@shift]]} : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  check.expect_eq_const %r#0, dense<[0.0, 0.0]> : tensor<2xf32>
  check.expect_eq_const %r#1, dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_eq_const %r#2, dense<[3.0, 4.0]> : tensor<2xf32>
  %s:3 = "interpreter.run_parallel"(%a, %b, %c) {programs = [[@broadcast], [@broadcast], [@broadcast]]} : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  check.expect_eq_const %s#0, dense<[3.0, 4.0]> : tensor<2xf32>
  check.expect_eq_const %s#1, dense<[3.0, 4.0]> : tensor<2xf32>
  check.expect_eq_const %s#2, dense<[0.0, 0.0]> : tensor<2xf32>
  return
}

// -----

// Each process of a 2 x 2 grid reads its ids; different programs per process run too.
func.func @ids() -> (tensor<ui32>, tensor<ui32>) {
  %r = stablehlo.replica_id : tensor<ui32>
  %p = stablehlo.partition_id : tensor<ui32>
  return %r, %p : tensor<ui32>, tensor<ui32>
}
func.func @replica_only() -> tensor<ui32> {
  %r = stablehlo.replica_id : tensor<ui32>
  return %r : tensor<ui32>
}
func.func @main() {
  %r:7 = "interpreter.run_parallel"() {programs = [[@ids, @ids], [@ids, @replica_only]]} : () -> (tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>)
  check.expect_eq_const %r#0, dense<0> : tensor<ui32>
  check.expect_eq_const %r#1, dense<0> : tensor<ui32>
  check.expect_eq_const %r#2, dense<0> : tensor<ui32>
  check.expect_eq_const %r#3, dense<1> : tensor<ui32>
  check.expect_eq_const %r#4, dense<1> : tensor<ui32>
  check.expect_eq_const %r#5, dense<0> : tensor<ui32>
  check.expect_eq_const %r#6, dense<1> : tensor<ui32>
  return
}

// -----

// collective_reduce: only the first process of the group [1, 0] keeps the sum.
// collective_broadcast with has_dynamic_root: the root operand names the sender by
// its place in the group ([1]: the group's second process, replica 0).
func.func @to_first(%x: tensor<2xi32>) -> tensor<2xi32> {
  %0 = "stablehlo.collective_reduce"(%x) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %s = stablehlo.add %a, %b : tensor<i32>
      stablehlo.return %s : tensor<i32>
  }) {replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>} : (tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}
func.func @from_root(%x: tensor<2xi32>) -> tensor<2xi32> {
  %root = stablehlo.constant dense<[1]> : tensor<1xi32>
  %0 = "stablehlo.collective_broadcast"(%x, %root) {replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>, has_dynamic_root} : (tensor<2xi32>, tensor<1xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}
func.func @main() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %b = stablehlo.constant dense<[10, 20]> : tensor<2xi32>
  %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@to_first], [@to_first]]} : (tensor<2xi32>, tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>)
  check.expect_eq_const %r#0, dense<[0, 0]> : tensor<2xi32>
  check.expect_eq_const %r#1, dense<[11, 22]> : tensor<2xi32>
  %s:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@from_root], [@from_root]]} : (tensor<2xi32>, tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>)
  check.expect_eq_const %s#0, dense<[1, 2]> : tensor<2xi32>
  check.expect_eq_const %s#1, dense<[1, 2]> : tensor<2xi32>
  return
}
