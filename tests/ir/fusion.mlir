// RUN: mindir-opt %s --msjit-linalg-O1 | FileCheck %s --check-prefix=O1
// RUN: mindir-opt %s --msjit-linalg-O0 | FileCheck %s --check-prefix=O0

// O1 fuses the tutorial's a * b + c into one loop nest; O0 keeps one per op.
// O1-LABEL: func.func @mul_add
// O1: linalg.generic
// O1: arith.mulf
// O1-NOT: linalg.generic
// O1: arith.addf
// O1-NOT: linalg.generic
// O0-LABEL: func.func @mul_add
// O0: linalg.generic
// O0: arith.mulf
// O0: linalg.generic
// O0: arith.addf
// O0-NOT: linalg.generic
func.func @mul_add(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %c: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = mindir.Mul %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = mindir.Add %0, %c : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
