//===- Patterns.h - mindir -> linalg conversion patterns --------*- C++ -*-===//
#ifndef MSJIT_PASSES_MINDIRTOLINALG_PATTERNS_H
#define MSJIT_PASSES_MINDIRTOLINALG_PATTERNS_H

#include "mlir/IR/PatternMatch.h"

namespace msjit::passes {

// Add, Sub, Mul, Div, Maximum, Minimum, Neg, ReLU, Exp, Log, Sqrt, Sigmoid, Tanh, Cast.
void populateElementwisePatterns(mlir::RewritePatternSet &patterns);
// MatMul.
void populateLinearPatterns(mlir::RewritePatternSet &patterns);
// ReduceSum, ReduceMean.
void populateReductionPatterns(mlir::RewritePatternSet &patterns);
// Reshape, Transpose, Constant.
void populateDataMovementPatterns(mlir::RewritePatternSet &patterns);

}  // namespace msjit::passes

#endif  // MSJIT_PASSES_MINDIRTOLINALG_PATTERNS_H
