//===- RegionAdjoints.h - adjoints of If/While for msjit-autodiff -*- C++ -*-===//
#ifndef MSJIT_PASSES_REGIONADJOINTS_H
#define MSJIT_PASSES_REGIONADJOINTS_H

#include "ir/MindirOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace msjit::passes {

// Both build at `b` and add the private functions their Grad ops call to
// `symbols` (named grad_body_*: msjit-autodiff expands those Grad ops and
// erases the functions).

// The adjoint of an If: an If on the same predicate whose branches hold each
// branch's adjoint. `douts`: the adjoints of the float results `diffOutputs`.
// Returns the adjoints of the float inputs `wrt`.
llvm::SmallVector<mlir::Value> ifAdjoint(mlir::OpBuilder &b, mlir::SymbolTable &symbols, mlir::mindir::IfOp op,
                                         llvm::ArrayRef<int64_t> diffOutputs, mlir::ValueRange douts,
                                         llvm::ArrayRef<int64_t> wrt);

// The adjoint of a While by recompute, with no per-iteration storage: count the
// iterations N; then for k = N-1 .. 0 rebuild the state entering iteration k
// (body run k times from the initial values) and pull the adjoint back through
// body there: O(N^2) body runs. `floats`: every float carried position (one not
// differentiated at entry may still carry gradient inside the loop); `douts`
// their results' adjoints. Returns the adjoints of those inputs.
llvm::SmallVector<mlir::Value> whileAdjoint(mlir::OpBuilder &b, mlir::SymbolTable &symbols, mlir::mindir::WhileOp op,
                                            llvm::ArrayRef<int64_t> floats, mlir::ValueRange douts);

}  // namespace msjit::passes

#endif  // MSJIT_PASSES_REGIONADJOINTS_H
