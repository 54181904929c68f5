// SPMD programs as XLA's partitioner reads them: the module says its process grid
// (mhlo.num_partitions), every device runs @main on the whole values, and a manual
// region (a shard_map) is entered through @Sharding + @SPMDFullToShardShape and left
// through @Sharding + @SPMDShardToFullShape, each with its mhlo.sharding. Expected
// values derived by hand. Run: tlaloc run spmd.mlir --split-input-file

// Four devices, x = [[1, 2], [3, 4]] cut in 2 x 2 tiles. The iota <=[2,2]T(1,0) lists
// the devices 0, 2, 1, 3 over the tiles, so devices 0, 1, 2, 3 hold 1, 3, 2, 4. Each
// multiplies its tile by partition_id + 1: 1, 6, 6, 16, put back together by the
// explicit list 0, 1, 2, 3 (device k the k-th tile, row-major). Their sum over the
// four devices, replicated, is 29.
module @tiles attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @main() {
    %x = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
    %0 = stablehlo.custom_call @Sharding(%x) {mhlo.sharding = "{devices=[2,2]<=[2,2]T(1,0)}"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = "{manual}"} : (tensor<2x2xf32>) -> tensor<1x1xf32>
    %p = stablehlo.partition_id : tensor<ui32>
    %pf = stablehlo.convert %p : (tensor<ui32>) -> tensor<f32>
    %one = stablehlo.constant dense<1.0> : tensor<f32>
    %k = stablehlo.add %pf, %one : tensor<f32>
    %kk = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
    %2 = stablehlo.multiply %1, %kk : tensor<1x1xf32>
    %3 = "stablehlo.all_reduce"(%2) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<1x1xf32>) -> tensor<1x1xf32>
    %4 = stablehlo.custom_call @Sharding(%2) {mhlo.sharding = "{manual}"} : (tensor<1x1xf32>) -> tensor<1x1xf32>
    %5 = stablehlo.custom_call @SPMDShardToFullShape(%4) {mhlo.sharding = "{devices=[2,2]0,1,2,3}"} : (tensor<1x1xf32>) -> tensor<2x2xf32>
    %6 = stablehlo.custom_call @Sharding(%3) {mhlo.sharding = "{manual}"} : (tensor<1x1xf32>) -> tensor<1x1xf32>
    %7 = stablehlo.custom_call @SPMDShardToFullShape(%6) {mhlo.sharding = "{replicated}"} : (tensor<1x1xf32>) -> tensor<1x1xf32>
    check.expect_eq_const %5, dense<[[1.0, 6.0], [6.0, 16.0]]> : tensor<2x2xf32>
    check.expect_eq_const %7, dense<[[29.0]]> : tensor<1x1xf32>
    return
  }
}

// -----

// Rows split over 2 of 4 devices and copied over the other 2
// (last_tile_dim_replicate): devices 0 and 1 hold row 0, devices 2 and 3 row 1. Each
// multiplies by partition_id + 1, so the copies differ; the first device listed for
// each tile (0 and 2) gives it: [[1, 2], [9, 12]].
module @copies attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @main() {
    %x = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
    %0 = stablehlo.custom_call @Sharding(%x) {mhlo.sharding = "{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = "{manual}"} : (tensor<2x2xf32>) -> tensor<1x2xf32>
    %p = stablehlo.partition_id : tensor<ui32>
    %pf = stablehlo.convert %p : (tensor<ui32>) -> tensor<f32>
    %one = stablehlo.constant dense<1.0> : tensor<f32>
    %k = stablehlo.add %pf, %one : tensor<f32>
    %kk = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<f32>) -> tensor<1x2xf32>
    %2 = stablehlo.multiply %1, %kk : tensor<1x2xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {mhlo.sharding = "{manual}"} : (tensor<1x2xf32>) -> tensor<1x2xf32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {mhlo.sharding = "{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}"} : (tensor<1x2xf32>) -> tensor<2x2xf32>
    check.expect_eq_const %4, dense<[[1.0, 2.0], [9.0, 12.0]]> : tensor<2x2xf32>
    return
  }
}

