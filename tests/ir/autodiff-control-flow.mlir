// RUN: mindir-opt %s --msjit-autodiff-O0 | FileCheck %s
// RUN: mindir-opt %s --msjit-O1 | FileCheck %s --check-prefix=LLVM

// The adjoint of an If is an If on the same predicate: each branch holds that
// branch's adjoint (cotangents of every varied float input; zeros where a
// branch does not use one). No Grad and no branch function survives.
// CHECK-LABEL: func.func @main
// CHECK: %[[FWD:.*]] = mindir.If %arg0, (%arg1, %arg2)
// CHECK: %[[ONES:.*]] = mindir.Constant {msjit.backward, value = dense<1.000000e+00>
// CHECK: mindir.If %arg0, (%arg1, %arg2, %[[ONES]]) {msjit.backward} : ({{.*}}) -> (tensor<4xf32>, tensor<4xf32>) then {
// CHECK: ^bb0(%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>, %[[D:.*]]: tensor<4xf32>):
// CHECK-DAG: %[[DA:.*]] = mindir.Mul %[[D]], %[[B]]
// CHECK-DAG: %[[DB:.*]] = mindir.Mul %[[D]], %[[A]]
// CHECK: mindir.Yield {msjit.backward} %[[DA]], %[[DB]]
// CHECK: } else {
// CHECK: mindir.Cos
// CHECK: %[[ZERO:.*]] = mindir.Constant {msjit.backward, value = dense<0.000000e+00>
// CHECK: mindir.Yield {msjit.backward} %{{.*}}, %[[ZERO]]
// CHECK-NOT: mindir.Grad
// CHECK-NOT: grad_body
// LLVM: llvm.cond_br
func.func private @grad_body_0(%p: tensor<i1>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mindir.If %p, (%x, %y) : (tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> then {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %m = mindir.Mul %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    mindir.Yield %m : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %n = mindir.Sin %a : (tensor<4xf32>) -> tensor<4xf32>
    mindir.Yield %n : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
func.func @main(%p: tensor<i1>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0:3 = mindir.Grad @grad_body_0(%p, %x, %y) {wrt = array<i64: 1, 2>, num_diff = 1, sens_param = false} : (tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %0#0, %0#1, %0#2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
