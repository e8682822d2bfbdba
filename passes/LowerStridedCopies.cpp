//===- LowerStridedCopies.cpp - msjit-lower-strided-copies ----------------===//
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "passes/Passes.h"

#define DEBUG_TYPE "msjit-lower-strided-copies"

namespace msjit::passes {

#define GEN_PASS_DEF_LOWERSTRIDEDCOPIES
#include "passes/Passes.h.inc"

namespace {

bool isContiguous(mlir::Value v) {
  auto type = v.getType().cast<mlir::MemRefType>();
  return type.getLayout().isIdentity();
}

struct LowerStridedCopies : impl::LowerStridedCopiesBase<LowerStridedCopies> {
  void runOnOperation() override {
    llvm::SmallVector<mlir::memref::CopyOp> strided;
    getOperation().walk([&](mlir::memref::CopyOp copy) {
      if (!isContiguous(copy.getSource()) || !isContiguous(copy.getTarget())) strided.push_back(copy);
    });
    for (mlir::memref::CopyOp copy : strided) {
      mlir::OpBuilder b(copy);
      mlir::linalg::makeMemRefCopyOp(b, copy.getLoc(), copy.getSource(), copy.getTarget());
      copy->erase();
    }
  }
};

}  // namespace
}  // namespace msjit::passes
