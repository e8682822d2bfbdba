//===- Passes.h - msjit compiler passes -------------------------*- C++ -*-===//
#ifndef MSJIT_PASSES_PASSES_H
#define MSJIT_PASSES_PASSES_H

#include <memory>

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace msjit::passes {

// The unit attribute msjit-autodiff puts on every op of a backward it builds;
// msjit-rematerialize reads it.
constexpr llvm::StringLiteral kBackwardAttr = "msjit.backward";

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

}  // namespace msjit::passes

#endif  // MSJIT_PASSES_PASSES_H
