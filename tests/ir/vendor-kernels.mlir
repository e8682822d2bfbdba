// RUN: mindir-opt %s --msjit-linalg-O1 --msjit-bufferized | FileCheck %s

// Conv2D, pooling and float MatMul survive the tensor stage and bufferize into
// calls of the runtime's vendor kernels; MatMul is first batched to rank 3.
// CHECK-DAG: func.func private @msrt_kernel_conv2d_f32(memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, {{.*}}, i64, i64, i64, i64, i64, i64, i64, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @msrt_kernel_max_pool2d_f32(
// CHECK-DAG: func.func private @msrt_kernel_matmul_f32(memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
// The gradient kernels: dy, the other operand, then the result buffer; attributes as i64s
// (shape attributes are not passed: the result buffer has that shape).
// CHECK-DAG: func.func private @msrt_kernel_conv2d_backprop_input_f32([[M4:memref<\?x\?x\?x\?xf32, strided<\[\?, \?, \?, \?\], offset: \?>>]], [[M4]], [[M4]], i64, i64, i64, i64, i64, i64, i64, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @msrt_kernel_conv2d_backprop_filter_f32([[M4]], [[M4]], [[M4]], i64, i64, i64, i64, i64, i64, i64, i64, i64) attributes
// CHECK-DAG: func.func private @msrt_kernel_max_pool2d_grad_f32([[M4]], [[M4]], [[M4]], i64, i64, i64, i64, i64, i64, i64, i64) attributes
// CHECK-DAG: func.func private @msrt_kernel_avg_pool2d_grad_f32([[M4]], [[M4]], i64, i64, i64, i64, i64, i64, i64, i64, i64) attributes
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

// CHECK-LABEL: func.func @grads(
// CHECK-SAME: %[[X:.*]]: memref<2x4x7x6xf32>, %[[W:.*]]: memref<6x2x3x2xf32>, %[[DY:.*]]: memref<2x6x3x7xf32>, %[[P:.*]]: memref<2x3x7x6xf32>, %[[DP:.*]]: memref<2x3x4x6xf32>, %[[DX:.*]]: memref<2x4x7x6xf32>, %[[DW:.*]]: memref<6x2x3x2xf32>, %[[DMAX:.*]]: memref<2x3x7x6xf32>, %[[DAVG:.*]]: memref<2x3x7x6xf32>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : i64
// CHECK: %[[DYC:.*]] = memref.cast %[[DY]]
// CHECK: %[[WC:.*]] = memref.cast %[[W]]
// CHECK: %[[DXC:.*]] = memref.cast %[[DX]]
// stride 2 1, dilation 1 2, pad 1 0 2 1, group 2
// CHECK: call @msrt_kernel_conv2d_backprop_input_f32(%[[DYC]], %[[WC]], %[[DXC]], %[[C2]], %[[C1]], %[[C1]], %[[C2]], %[[C1]], %[[C0]], %[[C2]], %[[C1]], %[[C2]])
// CHECK: %[[XC:.*]] = memref.cast %[[X]]
// CHECK: %[[DWC:.*]] = memref.cast %[[DW]]
// CHECK: call @msrt_kernel_conv2d_backprop_filter_f32(%[[DYC]], %[[XC]], %[[DWC]], %[[C2]], %[[C1]], %[[C1]], %[[C2]], %[[C1]], %[[C0]], %[[C2]], %[[C1]], %[[C2]])
// CHECK: %[[PC:.*]] = memref.cast %[[P]]
// CHECK: %[[DPC:.*]] = memref.cast %[[DP]]
// CHECK: %[[DMAXC:.*]] = memref.cast %[[DMAX]]
// kernel 3 2, stride 2 1, pad 1 1 0 1
// CHECK: call @msrt_kernel_max_pool2d_grad_f32(%[[PC]], %[[DPC]], %[[DMAXC]], %[[C3]], %[[C2]], %[[C2]], %[[C1]], %[[C1]], %[[C1]], %[[C0]], %[[C1]])
// CHECK: %[[DAVGC:.*]] = memref.cast %[[DAVG]]
// then count_include_pad = false
// CHECK: call @msrt_kernel_avg_pool2d_grad_f32(%[[DPC]], %[[DAVGC]], %[[C3]], %[[C2]], %[[C2]], %[[C1]], %[[C1]], %[[C1]], %[[C0]], %[[C1]], %[[C0]])
// CHECK-NOT: mindir.
func.func @grads(%x: tensor<2x4x7x6xf32>, %w: tensor<6x2x3x2xf32>, %dy: tensor<2x6x3x7xf32>, %p: tensor<2x3x7x6xf32>, %dp: tensor<2x3x4x6xf32>) -> (tensor<2x4x7x6xf32>, tensor<6x2x3x2xf32>, tensor<2x3x7x6xf32>, tensor<2x3x7x6xf32>) {
  %0 = mindir.Conv2DBackpropInput %dy, %w {stride = array<i64: 2, 1>, dilation = array<i64: 1, 2>, pad = array<i64: 1, 0, 2, 1>, group = 2, input_shape = array<i64: 2, 4, 7, 6>} : (tensor<2x6x3x7xf32>, tensor<6x2x3x2xf32>) -> tensor<2x4x7x6xf32>
  %1 = mindir.Conv2DBackpropFilter %dy, %x {stride = array<i64: 2, 1>, dilation = array<i64: 1, 2>, pad = array<i64: 1, 0, 2, 1>, group = 2, filter_shape = array<i64: 6, 2, 3, 2>} : (tensor<2x6x3x7xf32>, tensor<2x4x7x6xf32>) -> tensor<6x2x3x2xf32>
  %2 = mindir.MaxPoolGrad %p, %dp {kernel = array<i64: 3, 2>, stride = array<i64: 2, 1>, pad = array<i64: 1, 1, 0, 1>} : (tensor<2x3x7x6xf32>, tensor<2x3x4x6xf32>) -> tensor<2x3x7x6xf32>
  %3 = mindir.AvgPoolGrad %dp {kernel = array<i64: 3, 2>, stride = array<i64: 2, 1>, pad = array<i64: 1, 1, 0, 1>, count_include_pad = false, input_shape = array<i64: 2, 3, 7, 6>} : (tensor<2x3x4x6xf32>) -> tensor<2x3x7x6xf32>
  return %0, %1, %2, %3 : tensor<2x4x7x6xf32>, tensor<6x2x3x2xf32>, tensor<2x3x7x6xf32>, tensor<2x3x7x6xf32>
}
