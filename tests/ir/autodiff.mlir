// RUN: mindir-opt %s --msjit-autodiff --split-input-file | FileCheck %s
// RUN: mindir-opt %s --msjit-autodiff --split-input-file --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// The backward graphs the bprop rules (ir/bprop/) build, as msjit-autodiff
// expands each mindir.Grad. Numerical correctness is tested end to end
// (tests/grad); these pin down the shape of each rule.

// A broadcast operand's adjoint is summed back over the broadcast dims
// (ReduceSum keep_dims, then Reshape to its shape).
// CHECK-LABEL: func.func @mul_broadcast
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<3xf32>, %[[S:.*]]: tensor<2x3xf32>)
// CHECK-DAG: %[[DX:.*]] = mindir.Mul %[[S]], %[[Y]] {msjit.backward}
// CHECK-DAG: %[[DY:.*]] = mindir.Mul %[[S]], %[[X]] {msjit.backward}
// CHECK: %[[SUM:.*]] = mindir.ReduceSum %[[DY]] {axes = array<i64: 0>, keep_dims = true, msjit.backward} : (tensor<2x3xf32>) -> tensor<1x3xf32>
// CHECK: %[[DY3:.*]] = mindir.Reshape %[[SUM]] {{.*}} -> tensor<3xf32>
// CHECK: return %{{.*}}, %[[DX]], %[[DY3]]
// The backward ops carry the forward op's location.
// LOC-LABEL: func.func @mul_broadcast
// LOC: mindir.ReduceSum {{.*}} loc(#[[MUL:loc[0-9]*]])
// LOC: #[[MUL]] = loc("model.py":3:8)
func.func private @grad_body_mul(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = mindir.Mul %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32> loc("model.py":3:8)
  return %0 : tensor<2x3xf32>
}
func.func @mul_broadcast(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %s: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>) {
  %0:3 = mindir.Grad @grad_body_mul(%x, %y, %s) {wrt = array<i64: 0, 1>, num_diff = 1, sens_param = true} : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>
}

// -----

// C = A^T B^T: dA = B^T dC^T, dB = dC^T A^T, each one MatMul with flags.
// CHECK-LABEL: func.func @matmul_tt
// CHECK-SAME: (%[[A:.*]]: tensor<4x3xf32>, %[[B:.*]]: tensor<5x4xf32>, %[[S:.*]]: tensor<3x5xf32>)
// CHECK-DAG: %[[DA:.*]] = mindir.MatMul %[[B]], %[[S]] {msjit.backward, transpose_a = true, transpose_b = true} : {{.*}} -> tensor<4x3xf32>
// CHECK-DAG: %[[DB:.*]] = mindir.MatMul %[[S]], %[[A]] {msjit.backward, transpose_a = true, transpose_b = true} : {{.*}} -> tensor<5x4xf32>
// CHECK: return %{{.*}}, %[[DA]], %[[DB]]
func.func private @grad_body_mm(%a: tensor<4x3xf32>, %b: tensor<5x4xf32>) -> tensor<3x5xf32> {
  %0 = mindir.MatMul %a, %b {transpose_a = true, transpose_b = true} : (tensor<4x3xf32>, tensor<5x4xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
func.func @matmul_tt(%a: tensor<4x3xf32>, %b: tensor<5x4xf32>, %s: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<4x3xf32>, tensor<5x4xf32>) {
  %0:3 = mindir.Grad @grad_body_mm(%a, %b, %s) {wrt = array<i64: 0, 1>, num_diff = 1, sens_param = true} : (tensor<4x3xf32>, tensor<5x4xf32>, tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<4x3xf32>, tensor<5x4xf32>)
  return %0#0, %0#1, %0#2 : tensor<3x5xf32>, tensor<4x3xf32>, tensor<5x4xf32>
}

// -----

// Batched C = A B^T: dA = dC B, dB = dC^T A; batch dims pass through.
// CHECK-LABEL: func.func @matmul_batch_tb
// CHECK-SAME: (%[[A:.*]]: tensor<2x3x4xf32>, %[[B:.*]]: tensor<2x5x4xf32>, %[[S:.*]]: tensor<2x3x5xf32>)
// CHECK-DAG: %[[DA:.*]] = mindir.MatMul %[[S]], %[[B]] {msjit.backward} : {{.*}} -> tensor<2x3x4xf32>
// CHECK-DAG: %[[DB:.*]] = mindir.MatMul %[[S]], %[[A]] {msjit.backward, transpose_a = true} : {{.*}} -> tensor<2x5x4xf32>
// CHECK: return %{{.*}}, %[[DA]], %[[DB]]
func.func private @grad_body_mm2(%a: tensor<2x3x4xf32>, %b: tensor<2x5x4xf32>) -> tensor<2x3x5xf32> {
  %0 = mindir.MatMul %a, %b {transpose_b = true} : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}
func.func @matmul_batch_tb(%a: tensor<2x3x4xf32>, %b: tensor<2x5x4xf32>, %s: tensor<2x3x5xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x4xf32>, tensor<2x5x4xf32>) {
  %0:3 = mindir.Grad @grad_body_mm2(%a, %b, %s) {wrt = array<i64: 0, 1>, num_diff = 1, sens_param = true} : (tensor<2x3x4xf32>, tensor<2x5x4xf32>, tensor<2x3x5xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x4xf32>, tensor<2x5x4xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x3x5xf32>, tensor<2x3x4xf32>, tensor<2x5x4xf32>
}

// -----

// Mean over 2*4 = 8 elements: dout / 8, back to the keep_dims shape, broadcast.
// CHECK-LABEL: func.func @reduce_mean
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>, %[[S:.*]]: tensor<3xf32>)
// CHECK: %[[EIGHTH:.*]] = mindir.Constant {msjit.backward, value = dense<1.250000e-01> : tensor<f32>}
// CHECK: %[[SCALED:.*]] = mindir.Mul %[[S]], %[[EIGHTH]]
// CHECK: %[[KEPT:.*]] = mindir.Reshape %[[SCALED]] {msjit.backward, shape = array<i64: 1, 3, 1>}
// CHECK: %[[DX:.*]] = mindir.BroadcastTo %[[KEPT]] {msjit.backward, shape = array<i64: 2, 3, 4>}
// CHECK: return %{{.*}}, %[[DX]]
func.func private @grad_body_mean(%x: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %0 = mindir.ReduceMean %x {axes = array<i64: 0, 2>, keep_dims = false} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @reduce_mean(%x: tensor<2x3x4xf32>, %s: tensor<3xf32>) -> (tensor<3xf32>, tensor<2x3x4xf32>) {
  %0:2 = mindir.Grad @grad_body_mean(%x, %s) {wrt = array<i64: 0>, num_diff = 1, sens_param = true} : (tensor<2x3x4xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<2x3x4xf32>)
  return %0#0, %0#1 : tensor<3xf32>, tensor<2x3x4xf32>
}

// -----

// Gather on axis 1: indices wrapped and clamped, compared with an iota into a
// one-hot (K=4, N=5) matrix; dout moved to (K, pre*post) and scattered by one
// MatMul (duplicates accumulate), then moved back to params' layout.
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[P:.*]]: tensor<2x5x3xf32>, %[[I:.*]]: tensor<4xi32>, %[[S:.*]]: tensor<2x4x3xf32>)
// CHECK: %[[COL:.*]] = mindir.Reshape %[[I]] {{.*}} -> tensor<4x1xi32>
// CHECK-DAG: mindir.Less %[[COL]]
// CHECK-DAG: mindir.Add %[[COL]]
// CHECK: %[[WRAPPED:.*]] = mindir.Select
// CHECK: %[[LOW:.*]] = mindir.Maximum %[[WRAPPED]]
// CHECK: %[[IDX:.*]] = mindir.Minimum %[[LOW]]
// CHECK: %[[IOTA:.*]] = mindir.Constant {msjit.backward, value = dense<{{\[\[}}0, 1, 2, 3, 4]]> : tensor<1x5xi32>}
// CHECK: %[[HIT:.*]] = mindir.Equal %[[IDX]], %[[IOTA]] {{.*}} -> tensor<4x5xi1>
// CHECK: %[[HOT:.*]] = mindir.Cast %[[HIT]] {msjit.backward, to = f32}
// CHECK: %[[T:.*]] = mindir.Transpose %[[S]] {msjit.backward, perm = array<i64: 1, 0, 2>}
// CHECK: %[[FLAT:.*]] = mindir.Reshape %[[T]] {{.*}} -> tensor<4x6xf32>
// CHECK: %[[SCATTERED:.*]] = mindir.MatMul %[[HOT]], %[[FLAT]] {msjit.backward, transpose_a = true} : {{.*}} -> tensor<5x6xf32>
// CHECK: %[[R:.*]] = mindir.Reshape %[[SCATTERED]] {{.*}} -> tensor<5x2x3xf32>
// CHECK: %[[DP:.*]] = mindir.Transpose %[[R]] {msjit.backward, perm = array<i64: 1, 0, 2>} {{.*}} -> tensor<2x5x3xf32>
// CHECK: return %{{.*}}, %[[DP]]
func.func private @grad_body_gather(%p: tensor<2x5x3xf32>, %i: tensor<4xi32>) -> tensor<2x4x3xf32> {
  %0 = mindir.Gather %p, %i {axis = 1} : (tensor<2x5x3xf32>, tensor<4xi32>) -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}
func.func @gather(%p: tensor<2x5x3xf32>, %i: tensor<4xi32>, %s: tensor<2x4x3xf32>) -> (tensor<2x4x3xf32>, tensor<2x5x3xf32>) {
  %0:2 = mindir.Grad @grad_body_gather(%p, %i, %s) {wrt = array<i64: 0>, num_diff = 1, sens_param = true} : (tensor<2x5x3xf32>, tensor<4xi32>, tensor<2x4x3xf32>) -> (tensor<2x4x3xf32>, tensor<2x5x3xf32>)
  return %0#0, %0#1 : tensor<2x4x3xf32>, tensor<2x5x3xf32>
}

// -----

// Conv2D's adjoints are its two gradient kernels with the forward attributes
// and the operands' shapes.
// CHECK-LABEL: func.func @conv2d
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x6x6xf32>, %[[W:.*]]: tensor<8x2x3x3xf32>, %[[S:.*]]: tensor<1x8x3x3xf32>)
// CHECK: %[[DX:.*]] = mindir.Conv2DBackpropInput %[[S]], %[[W]] {dilation = array<i64: 1, 1>, group = 2 : i64, input_shape = array<i64: 1, 4, 6, 6>, msjit.backward, pad = array<i64: 1, 0, 1, 0>, stride = array<i64: 2, 2>}
// CHECK: %[[DW:.*]] = mindir.Conv2DBackpropFilter %[[S]], %[[X]] {dilation = array<i64: 1, 1>, filter_shape = array<i64: 8, 2, 3, 3>, group = 2 : i64, msjit.backward, pad = array<i64: 1, 0, 1, 0>, stride = array<i64: 2, 2>}
// CHECK: return %{{.*}}, %[[DX]], %[[DW]]
func.func private @grad_body_conv(%x: tensor<1x4x6x6xf32>, %w: tensor<8x2x3x3xf32>) -> tensor<1x8x3x3xf32> {
  %0 = mindir.Conv2D %x, %w {stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>, pad = array<i64: 1, 0, 1, 0>, group = 2} : (tensor<1x4x6x6xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x3x3xf32>
  return %0 : tensor<1x8x3x3xf32>
}
func.func @conv2d(%x: tensor<1x4x6x6xf32>, %w: tensor<8x2x3x3xf32>, %s: tensor<1x8x3x3xf32>) -> (tensor<1x8x3x3xf32>, tensor<1x4x6x6xf32>, tensor<8x2x3x3xf32>) {
  %0:3 = mindir.Grad @grad_body_conv(%x, %w, %s) {wrt = array<i64: 0, 1>, num_diff = 1, sens_param = true} : (tensor<1x4x6x6xf32>, tensor<8x2x3x3xf32>, tensor<1x8x3x3xf32>) -> (tensor<1x8x3x3xf32>, tensor<1x4x6x6xf32>, tensor<8x2x3x3xf32>)
  return %0#0, %0#1, %0#2 : tensor<1x8x3x3xf32>, tensor<1x4x6x6xf32>, tensor<8x2x3x3xf32>
}
