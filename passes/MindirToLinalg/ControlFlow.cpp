//===- ControlFlow.cpp - If -> scf.if, While -> scf.while -----------------===//
//
// The regions move as they are into the scf op; only their terminators and
// the bool-scalar predicates (tensor<i1> -> i1 via tensor.extract) change.
// One-shot bufferization and convert-scf-to-cf take it from there, so only
// the taken branch runs.
//
//===----------------------------------------------------------------------===//
#include "ir/MindirOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"
#include "passes/MindirToLinalg/Patterns.h"

using namespace mlir;
namespace mindir = mlir::mindir;

namespace msjit::passes {
namespace {

Value scalarOf(OpBuilder &b, Location loc, Value boolTensor) {
  return b.create<tensor::ExtractOp>(loc, boolTensor, ValueRange{});
}

struct IfLowering : OpConversionPattern<mindir::IfOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(mindir::IfOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value pred = scalarOf(rewriter, loc, adaptor.getPred());
    auto ifOp = rewriter.create<scf::IfOp>(loc, op.getResultTypes(), pred, /*withElseRegion=*/true);
    // scf.if regions take no arguments: the branch's arguments become the If's inputs.
    rewriter.mergeBlocks(&op.getThenBranch().front(), ifOp.thenBlock(), adaptor.getInputs());
    rewriter.mergeBlocks(&op.getElseBranch().front(), ifOp.elseBlock(), adaptor.getInputs());
    rewriter.replaceOp(op, ifOp.getResults());
    return success();
  }
};

struct WhileLowering : OpConversionPattern<mindir::WhileOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(mindir::WhileOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto whileOp = rewriter.create<scf::WhileOp>(op.getLoc(), op.getResultTypes(), adaptor.getInputs());
    rewriter.inlineRegionBefore(op.getCond(), whileOp.getBefore(), whileOp.getBefore().end());
    rewriter.inlineRegionBefore(op.getBody(), whileOp.getAfter(), whileOp.getAfter().end());
    rewriter.replaceOp(op, whileOp.getResults());
    return success();
  }
};

// After the ops above moved the regions: a While cond's Yield becomes
// scf.condition (passing the carried values on to the body), any other scf.yield.
struct YieldLowering : OpConversionPattern<mindir::YieldOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(mindir::YieldOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Operation *parent = op->getParentOp();
    auto whileOp = dyn_cast<scf::WhileOp>(parent);
    if (whileOp && op->getParentRegion() == &whileOp.getBefore()) {
      Value cond = scalarOf(rewriter, op.getLoc(), adaptor.getValues().front());
      rewriter.replaceOpWithNewOp<scf::ConditionOp>(op, cond, whileOp.getBeforeArguments());
      return success();
    }
    if (!whileOp && !isa<scf::IfOp>(parent)) return failure();
    rewriter.replaceOpWithNewOp<scf::YieldOp>(op, adaptor.getValues());
    return success();
  }
};

}  // namespace

void populateControlFlowPatterns(RewritePatternSet &patterns) {
  patterns.add<IfLowering, WhileLowering, YieldLowering>(patterns.getContext());
}

}  // namespace msjit::passes
