//===- ElideResultCopies.cpp - msjit-elide-result-copies ------------------===//
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "passes/Passes.h"

#define DEBUG_TYPE "msjit-elide-result-copies"

namespace msjit::passes {

#define GEN_PASS_DEF_ELIDERESULTCOPIES
#include "passes/Passes.h.inc"

namespace {

struct ElideResultCopies : impl::ElideResultCopiesBase<ElideResultCopies> {
  void runOnOperation() override {
    mlir::func::FuncOp func = getOperation();
    if (func.isExternal()) return;
    mlir::Block &entry = func.getBody().front();
    llvm::SmallVector<mlir::memref::CopyOp> copies;
    func.walk([&](mlir::memref::CopyOp copy) { copies.push_back(copy); });
    for (mlir::memref::CopyOp copy : copies) {
      auto out = copy.getTarget().dyn_cast<mlir::BlockArgument>();
      auto alloc = copy.getSource().getDefiningOp<mlir::memref::AllocOp>();
      // Only a top-level copy into an out-param, from a same-typed allocation in
      // the entry block that is used by nothing after the copy.
      if (!out || out.getOwner() != &entry || !alloc || alloc->getBlock() != &entry ||
          copy->getBlock() != &entry || alloc.getType() != out.getType())
        continue;
      bool usedAfter = llvm::any_of(alloc->getUsers(), [&](mlir::Operation *user) {
        return user != copy && copy->isBeforeInBlock(user);
      });
      // The out-param must be untouched before the copy (it only receives the result).
      bool outUsedElsewhere = llvm::any_of(out.getUsers(), [&](mlir::Operation *user) { return user != copy; });
      if (usedAfter || outUsedElsewhere) continue;
      // The out-param is a function argument, so it dominates every use of the allocation.
      alloc.getResult().replaceAllUsesWith(out);
      copy->erase();
      alloc->erase();
    }
  }
};

}  // namespace
}  // namespace msjit::passes
