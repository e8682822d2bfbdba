// RUN: mindir-opt %s --msjit-rematerialize --split-input-file | FileCheck %s

// The O1 recompute-vs-store rule: a forward elementwise value the backward
// reads is recomputed next to its first backward reader when that keeps
// nothing else alive longer (its operands are arguments, constants, or read
// by the backward anyway); otherwise it stays stored.

// exp(x) of an argument: recomputed in the backward, the forward copy stays
// for its forward use.
// CHECK-LABEL: func.func @recompute
// CHECK: %[[E:.*]] = mindir.Exp %arg0 :
// CHECK: %[[Y:.*]] = mindir.Mul %[[E]], %arg1 :
// CHECK: %[[R:.*]] = mindir.Exp %arg0 {msjit.backward}
// CHECK: mindir.Mul %[[R]], %arg1 {msjit.backward}
func.func @recompute(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = mindir.Exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %y = mindir.Mul %e, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %g = mindir.Mul %e, %w {msjit.backward} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y, %g : tensor<4xf32>, tensor<4xf32>
}

// -----

// tanh of a MatMul result only the forward reads: recomputing it would keep
// the MatMul result alive until the backward, so tanh's result is stored.
// CHECK-LABEL: func.func @store
// CHECK: %[[M:.*]] = mindir.MatMul
// CHECK: %[[T:.*]] = mindir.Tanh %[[M]] :
// CHECK-NOT: mindir.Tanh
// CHECK: mindir.Mul %[[T]], %[[T]] {msjit.backward}
func.func @store(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %m = mindir.MatMul %a, %b : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %t = mindir.Tanh %m : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %g = mindir.Mul %t, %t {msjit.backward} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %t, %g : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// A value only the backward reads moves there: no forward copy is left.
// CHECK-LABEL: func.func @moved
// CHECK-NOT: mindir.Sigmoid %arg0 :
// CHECK: %[[S:.*]] = mindir.Sigmoid %arg0 {msjit.backward}
// CHECK: mindir.Mul %[[S]], %arg1 {msjit.backward}
func.func @moved(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %s = mindir.Sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
  %g = mindir.Mul %s, %w {msjit.backward} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}
