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
    "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect",
  ];
}

def Autodiff : Pass<"msjit-autodiff", "mlir::ModuleOp"> {
  let summary = "Expand mindir.Grad ops: reverse-mode differentiation of their callees";
  let description = [{
    Each `mindir.Grad` is replaced by its callee's body (the forward) followed
    by the backward built from each op's BpropOpInterface, innermost Grad ops
    first, so gradients of gradients work. Only ops between a differentiated
    input and a differentiated output get a gradient (dead-gradient pruning);
    a differentiable output that needs an op without a rule is an error at
    that op's node. Ops the backward builds carry the unit attribute
    `msjit.backward`. Afterwards the Grad bodies are erased and
    `mindir.StopGradient` becomes the identity.
  }];
}

def Rematerialize : Pass<"msjit-rematerialize", "mlir::func::FuncOp"> {
  let summary = "Recompute cheap forward values in the backward instead of keeping them";
  let description = [{
    A forward elementwise value read by the backward (ops tagged
    `msjit.backward`) is recomputed next to its first backward reader when
    that extends no live range: each of its operands is a constant, a function
    argument, or is read by the backward anyway. The forward copy then dies at
    its last forward use, and fusion can merge the recomputation into the
    backward loop that reads it. Anything else (matmuls, convolutions,
    reductions) stays stored. O1 only.
  }];
}

def ElideResultCopies : Pass<"msjit-elide-result-copies", "mlir::func::FuncOp"> {
  let summary = "Write function results straight into their out-params";
  let description = [{
    `buffer-results-to-out-params` leaves `memref.alloc` + `memref.copy %alloc,
    %out` per result. When the copied buffer is a plain allocation of the same
    type that nothing else aliases and the copy is its last use, the
    allocation is replaced by the out-param itself: one buffer and one full
    copy less per result and call.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def LowerStridedCopies : Pass<"msjit-lower-strided-copies", "mlir::func::FuncOp"> {
  let summary = "Turn memref.copy between strided buffers into loops";
  let description = [{
    MLIR lowers a `memref.copy` whose operands are not both contiguous to a
    call of `memrefCopy` from its C runner library, which artifacts do not
    link. Such copies (a returned slice, say) become a linalg copy instead;
    contiguous ones stay `memref.copy` and become a memcpy.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def ApproximateMath : Pass<"msjit-approximate-math", "mlir::func::FuncOp"> {
  let summary = "Replace transcendental math with polynomial approximations";
  let description = [{
    exp, log, tanh, erf, ... on f32 become arithmetic (MLIR's polynomial
    approximations, accurate to a few ulp) instead of per-element libm calls,
    so LLVM can vectorize the loops that contain them: softmax over
    LlamaAttention's scores spends most of its time in exp otherwise. O1 only.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::math::MathDialect", "mlir::vector::VectorDialect"];
}

#endif // MSJIT_PASSES_TD
