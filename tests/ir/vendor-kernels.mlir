// RUN: mindir-opt %s --msjit-linalg-O1 --msjit-bufferized | FileCheck %s

// Conv2D, pooling and float MatMul survive the tensor stage and bufferize into
// calls of the runtime's vendor kernels; MatMul is first batched to rank 3.
// CHECK-DAG: func.func private @msrt_kernel_conv2d_f32(memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, {{.*}}, i64, i64, i64, i64, i64, i64, i64, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @msrt_kernel_max_pool2d_f32(
// CHECK-DAG: func.func private @msrt_kernel_matmul_f32(memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
// CHECK-LABEL: func.func @net
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<1x6x8x8xf32>
// CHECK: call @msrt_kernel_conv2d_f32({{.*}}) : (
// CHECK: call @msrt_kernel_max_pool2d_f32(
// CHECK: call @msrt_kernel_matmul_f32(
// CHECK-NOT: linalg.matmul
func.func @net(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>, %a: tensor<5x7xf32>, %b: tensor<6x7xf32>) -> (tensor<1x6x4x4xf32>, tensor<5x6xf32>) {
  %0 = mindir.Conv2D %x, %w {stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, group = 2} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x8x8xf32>
  %1 = mindir.ReLU %0 : (tensor<1x6x8x8xf32>) -> tensor<1x6x8x8xf32>
  %2 = mindir.MaxPool %1 {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>} : (tensor<1x6x8x8xf32>) -> tensor<1x6x4x4xf32>
  %3 = mindir.MatMul %a, %b {transpose_b = true} : (tensor<5x7xf32>, tensor<6x7xf32>) -> tensor<5x6xf32>
  return %2, %3 : tensor<1x6x4x4xf32>, tensor<5x6xf32>
}
