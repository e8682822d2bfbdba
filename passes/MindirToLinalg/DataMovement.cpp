//===- DataMovement.cpp - Reshape, Transpose, Constant --------------------===//
#include "ir/MindirOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Transforms/DialectConversion.h"
#include "passes/MindirToLinalg/Patterns.h"
#include "passes/MindirToLinalg/Utils.h"

using namespace mlir;
namespace mindir = mlir::mindir;

namespace msjit::passes {
namespace {

struct ReshapeLowering : OpConversionPattern<mindir::ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(mindir::ReshapeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, reshapeTensor(rewriter, op.getLoc(), adaptor.getOperand(),
                                         op.getType().cast<RankedTensorType>()));
    return success();
  }
};

// A linalg.generic (not linalg.transpose) so elementwise fusion can fold the
// permutation into its consumers' indexing maps.
struct TransposeLowering : OpConversionPattern<mindir::TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(mindir::TransposeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = op.getType().cast<RankedTensorType>();
    int64_t rank = resultType.getRank();
    SmallVector<AffineExpr> inputExprs(rank);
    for (int64_t i = 0; i < rank; ++i) inputExprs[op.getPerm()[i]] = rewriter.getAffineDimExpr(i);
    SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, inputExprs, rewriter.getContext()),
                                   rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    auto generic = rewriter.create<linalg::GenericOp>(
        op.getLoc(), resultType, adaptor.getOperand(), emptyTensor(rewriter, op.getLoc(), resultType),
        maps, iterators,
        [](OpBuilder &b, Location loc, ValueRange args) { b.create<linalg::YieldOp>(loc, args[0]); });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct ConstantLowering : OpConversionPattern<mindir::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(mindir::ConstantOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto value = op.getValue().dyn_cast<DenseElementsAttr>();
    if (!value) return rewriter.notifyMatchFailure(op, "only dense constants are supported");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

}  // namespace

void populateDataMovementPatterns(RewritePatternSet &patterns) {
  patterns.add<ReshapeLowering, TransposeLowering, ConstantLowering>(patterns.getContext());
}

}  // namespace msjit::passes
