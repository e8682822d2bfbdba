//===- Rematerialize.cpp - msjit-rematerialize ----------------------------===//
//
// The recompute-vs-store decision for the backward built by msjit-autodiff.
// Recomputing an elementwise value costs a few flops per element; storing it
// costs a buffer that lives from the forward to the backward and a pass over
// memory to read it back. We recompute exactly when recomputation extends no
// other live range, so it never raises peak memory.
//
//===----------------------------------------------------------------------===//

#include "ir/MindirOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "passes/Passes.h"

#define DEBUG_TYPE "msjit-rematerialize"

namespace msjit::passes {

#define GEN_PASS_DEF_REMATERIALIZE
#include "passes/Passes.h.inc"

namespace {

using namespace mlir;
namespace md = mlir::mindir;

bool isCheapElementwise(Operation *op) {
  return isa<md::AddOp, md::SubOp, md::MulOp, md::DivOp, md::MaximumOp, md::MinimumOp, md::NegOp,
             md::ReLUOp, md::AbsOp, md::ExpOp, md::LogOp, md::SqrtOp, md::RsqrtOp, md::SigmoidOp,
             md::TanhOp, md::SelectOp, md::CastOp, md::EqualOp, md::NotEqualOp, md::LessOp,
             md::LessEqualOp, md::GreaterOp, md::GreaterEqualOp, md::LogicalNotOp>(op);
}

bool isBackward(Operation *op) { return op->hasAttr(kBackwardAttr); }

// Live into the backward already: recomputing from it keeps nothing alive longer.
bool availableInBackward(Value v) {
  if (v.isa<BlockArgument>() || v.getDefiningOp<md::ConstantOp>()) return true;
  return llvm::any_of(v.getUsers(), isBackward);
}

struct Rematerialize : impl::RematerializeBase<Rematerialize> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal()) return;
    SmallVector<Operation *> forward;
    for (Operation &op : func.getBody().front())
      if (!isBackward(&op) && isCheapElementwise(&op)) forward.push_back(&op);
    // Latest first: once a value is recomputed, its own producer may qualify.
    for (Operation *op : llvm::reverse(forward)) {
      SmallVector<OpOperand *> backwardUses;
      for (OpOperand &use : op->getResult(0).getUses())
        if (isBackward(use.getOwner())) backwardUses.push_back(&use);
      if (backwardUses.empty() || !llvm::all_of(op->getOperands(), availableInBackward)) continue;
      Operation *first = backwardUses.front()->getOwner();
      for (OpOperand *use : backwardUses)
        if (use->getOwner()->isBeforeInBlock(first)) first = use->getOwner();
      OpBuilder b(first);
      Operation *copy = b.clone(*op);
      copy->setAttr(kBackwardAttr, b.getUnitAttr());
      for (OpOperand *use : backwardUses) use->set(copy->getResult(0));
      if (op->use_empty()) op->erase();
    }
  }
};

}  // namespace
}  // namespace msjit::passes
