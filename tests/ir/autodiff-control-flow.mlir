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

// The adjoint of a While by recompute: a loop counting the iterations N, then a
// reverse loop k = N-1 .. 0 carrying (k, the adjoint, the initial values) that
// replays body k times and pulls the adjoint back through body's adjoint.
// CHECK-LABEL: func.func @grad_of_while
// CHECK: %[[N:.*]]:2 = mindir.While(%{{.*}}, %arg0) {msjit.backward}
// CHECK: mindir.Sub %[[N]]#0
// CHECK: mindir.While({{.*}}) {msjit.backward} : (tensor<i64>, tensor<f32>, tensor<f32>) -> (tensor<i64>, tensor<f32>, tensor<f32>) cond {
// CHECK: mindir.GreaterEqual
// CHECK: } do {
// CHECK: mindir.While
// CHECK: mindir.Less
// CHECK: mindir.Cos
// CHECK-NOT: mindir.Grad
func.func private @grad_body_1(%x: tensor<f32>) -> tensor<f32> {
  %0 = mindir.While (%x) : (tensor<f32>) -> tensor<f32> cond {
  ^bb0(%a: tensor<f32>):
    %ten = mindir.Constant {value = dense<10.0> : tensor<f32>} : tensor<f32>
    %l = mindir.Less %a, %ten : (tensor<f32>, tensor<f32>) -> tensor<i1>
    mindir.Yield %l : tensor<i1>
  } do {
  ^bb0(%a: tensor<f32>):
    %s = mindir.Sin %a : (tensor<f32>) -> tensor<f32>
    %b = mindir.Add %a, %s : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %c = mindir.Add %b, %a : (tensor<f32>, tensor<f32>) -> tensor<f32>
    mindir.Yield %c : tensor<f32>
  }
  return %0 : tensor<f32>
}
func.func @grad_of_while(%x: tensor<f32>) -> tensor<f32> {
  %0:2 = mindir.Grad @grad_body_1(%x) {wrt = array<i64: 0>, num_diff = 1, sens_param = false} : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %0#1 : tensor<f32>
}
