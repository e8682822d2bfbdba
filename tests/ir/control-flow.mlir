// RUN: mindir-opt %s --convert-mindir-to-linalg | FileCheck %s
// RUN: mindir-opt %s --msjit-linalg-O1 | FileCheck %s --check-prefix=FUSED
// RUN: mindir-opt %s --msjit-O0 | FileCheck %s --check-prefix=LLVM
// RUN: mindir-opt %s --msjit-O1 | FileCheck %s --check-prefix=LLVM

// If -> scf.if on the extracted predicate; the branches' arguments become the inputs.
// CHECK-LABEL: func.func @if_op
// CHECK: %[[P:.*]] = tensor.extract %arg0[] : tensor<i1>
// CHECK: scf.if %[[P]] -> (tensor<4xf32>)
// CHECK: %[[E:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[E]], %arg1
// CHECK: scf.yield
// CHECK: } else {
// CHECK: linalg.generic {{.*}} ins(%arg1 : tensor<4xf32>)
// CHECK: scf.yield
// CHECK-NOT: mindir.
// O1 fuses inside each region: exp then mul is one loop nest.
// FUSED: scf.if
// FUSED-COUNT-1: linalg.generic
// FUSED-NEXT: ^bb0
// FUSED-NOT: linalg.generic
// FUSED: scf.yield
// FUSED-NEXT: } else {
// LLVM-NOT: scf.
// LLVM: llvm.cond_br
func.func @if_op(%p: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mindir.If %p, (%x) : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32> then {
  ^bb0(%a: tensor<4xf32>):
    %e = mindir.Exp %a : (tensor<4xf32>) -> tensor<4xf32>
    %m = mindir.Mul %e, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    mindir.Yield %m : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    %n = mindir.Neg %a : (tensor<4xf32>) -> tensor<4xf32>
    mindir.Yield %n : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// While -> scf.while: cond is the before-region (ending in scf.condition), body the after-region.
// CHECK-LABEL: func.func @while_op
// CHECK: scf.while (%[[X:.*]] = %arg0, %[[I:.*]] = %arg1) : (tensor<4xf32>, tensor<i64>) -> (tensor<4xf32>, tensor<i64>)
// CHECK: %[[C:.*]] = tensor.extract
// CHECK: scf.condition(%[[C]]) %[[X]], %[[I]]
// CHECK: } do {
// CHECK: scf.yield
func.func @while_op(%x: tensor<4xf32>, %i: tensor<i64>) -> tensor<4xf32> {
  %1:2 = mindir.While (%x, %i) : (tensor<4xf32>, tensor<i64>) -> (tensor<4xf32>, tensor<i64>) cond {
  ^bb0(%a: tensor<4xf32>, %j: tensor<i64>):
    %c = mindir.Constant {value = dense<3> : tensor<i64>} : tensor<i64>
    %l = mindir.Less %j, %c : (tensor<i64>, tensor<i64>) -> tensor<i1>
    mindir.Yield %l : tensor<i1>
  } do {
  ^bb0(%a: tensor<4xf32>, %j: tensor<i64>):
    %one = mindir.Constant {value = dense<1> : tensor<i64>} : tensor<i64>
    %k = mindir.Add %j, %one : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %b = mindir.Add %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    mindir.Yield %b, %k : tensor<4xf32>, tensor<i64>
  }
  return %1#0 : tensor<4xf32>
}
