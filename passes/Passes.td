//===- Passes.td - msjit compiler passes ---------------------*- tablegen -*-===//
#ifndef MSJIT_PASSES_TD
#define MSJIT_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertMindirToLinalg : Pass<"convert-mindir-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower mindir ops to linalg/tensor/arith/math on tensors";
  let description = [{
    Elementwise ops become `linalg.generic` with numpy-broadcasting indexing
    maps (so `linalg-fuse-elementwise-ops` can fuse chains of them), MatMul
    becomes `linalg.matmul`/`linalg.batch_matmul`, reductions become
    `linalg.generic` with reduction iterators, reshapes become
    `tensor.collapse_shape`/`tensor.expand_shape`. Every mindir op must be
    converted; one that is not fails the pass with a diagnostic at its node.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect",
    "mlir::linalg::LinalgDialect",
    "mlir::math::MathDialect",
    "mlir::tensor::TensorDialect",
  ];
}

#endif // MSJIT_PASSES_TD
