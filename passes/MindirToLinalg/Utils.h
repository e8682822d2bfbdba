//===- Utils.h - helpers shared by the mindir -> linalg patterns -*- C++ -*-===//
#ifndef MSJIT_PASSES_MINDIRTOLINALG_UTILS_H
#define MSJIT_PASSES_MINDIRTOLINALG_UTILS_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace msjit::passes {

// Map from the iteration space of `result` to an operand of `operandType`
// under numpy broadcasting: leading dims dropped, size-1 dims pinned to 0.
mlir::AffineMap broadcastMap(mlir::RankedTensorType operandType,
                             mlir::RankedTensorType resultType);

// tensor.empty of `type`.
mlir::Value emptyTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type);

// tensor.empty of `type` filled with zero (accumulators for sums and matmul).
mlir::Value zeroTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type);

// Same elements in a new static shape via collapse_shape/expand_shape
// (through a 1-D tensor when no direct reassociation exists).
mlir::Value reshapeTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
                          mlir::RankedTensorType target);

// A linalg.generic that only moves elements: result element i comes from the
// input at `inputExprs(i)`. Used (not linalg.transpose & co.) so elementwise
// fusion can fold the movement into consumers.
mlir::Value gatherByMap(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                        llvm::ArrayRef<mlir::AffineExpr> inputExprs, mlir::RankedTensorType resultType);

// Swaps the last two dims (MatMul's transpose flags).
mlir::Value transposeLastTwo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input);

// Scalar conversion with numpy astype semantics (float->int truncates,
// x->bool is x != 0).
mlir::Value convertScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v, mlir::Type to);

}  // namespace msjit::passes

#endif  // MSJIT_PASSES_MINDIRTOLINALG_UTILS_H
