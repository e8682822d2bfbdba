//===- Patterns.h - mindir -> linalg conversion patterns --------*- C++ -*-===//
#ifndef MSJIT_PASSES_MINDIRTOLINALG_PATTERNS_H
#define MSJIT_PASSES_MINDIRTOLINALG_PATTERNS_H

#include "mlir/IR/PatternMatch.h"

namespace msjit::passes {

// Arithmetic, math, comparisons, logical ops, Select and Cast.
void populateElementwisePatterns(mlir::RewritePatternSet &patterns);
// MatMul when it is not left to the vendor kernel (see VendorKernels).
void populateLinearPatterns(mlir::RewritePatternSet &patterns);
// ReduceSum, ReduceMean, ReduceMax, ReduceMin.
void populateReductionPatterns(mlir::RewritePatternSet &patterns);
// Reshape, Transpose, BroadcastTo, Tile, StridedSlice, Concat, Gather, Triu, Tril, Constant.
void populateDataMovementPatterns(mlir::RewritePatternSet &patterns);
// If -> scf.if, While -> scf.while (their regions move along).
void populateControlFlowPatterns(mlir::RewritePatternSet &patterns);

}  // namespace msjit::passes

#endif  // MSJIT_PASSES_MINDIRTOLINALG_PATTERNS_H
