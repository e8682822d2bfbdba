// RUN: mindir-opt %s --msjit-O1 | FileCheck %s --check-prefix=O1
// RUN: mindir-opt %s --msjit-O0 | FileCheck %s --check-prefix=O0

// At O1 exp and tanh become polynomial arithmetic the loop vectorizer can
// handle; O0 keeps the exact intrinsic / libm call. Float sums are marked
// reassociable so they vectorize too.
// O1-LABEL: llvm.func @softmax_like
// O1-NOT: llvm.intr.exp
// O1-NOT: @tanhf
// O1: llvm.fadd {{.*}} {fastmathFlags = #llvm.fastmath<reassoc>}
// O0-LABEL: llvm.func @softmax_like
// O0: llvm.intr.exp
// O0: llvm.call @tanhf
func.func @softmax_like(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  %e = mindir.Exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %t = mindir.Tanh %e : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = mindir.ReduceSum %e {axes = array<i64: 1>, keep_dims = false} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %t, %s : tensor<4x8xf32>, tensor<4xf32>
}
