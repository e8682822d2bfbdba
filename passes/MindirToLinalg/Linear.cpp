//===- Linear.cpp - MatMul -> linalg.matmul / linalg.batch_matmul ---------===//
#include "ir/MindirOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Transforms/DialectConversion.h"
#include "passes/MindirToLinalg/Patterns.h"
#include "passes/MindirToLinalg/Utils.h"
#include "passes/VendorKernels/VendorKernels.h"

using namespace mlir;
namespace mindir = mlir::mindir;

namespace msjit::passes {
namespace {

// (b1, ..., bk, m, n) -> (b1*...*bk, m, n): batch_matmul takes one batch dim.
RankedTensorType collapseBatch(RankedTensorType t) {
  auto shape = t.getShape();
  int64_t batch = 1;
  for (int64_t d : shape.drop_back(2)) batch *= d;
  return RankedTensorType::get({batch, shape[shape.size() - 2], shape.back()}, t.getElementType());
}

struct MatMulLowering : OpConversionPattern<mindir::MatMulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(mindir::MatMulOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = op.getType().cast<RankedTensorType>();
    if (isVendorMatMul(op)) {
      // The BLAS kernel takes rank-3 batches: fold batch dims (or add one) around it.
      auto batched = [](RankedTensorType t) {
        if (t.getRank() >= 3) return collapseBatch(t);
        return RankedTensorType::get({1, t.getDimSize(0), t.getDimSize(1)}, t.getElementType());
      };
      Value lhs = reshapeTensor(rewriter, loc, adaptor.getLhs(), batched(adaptor.getLhs().getType().cast<RankedTensorType>()));
      Value rhs = reshapeTensor(rewriter, loc, adaptor.getRhs(), batched(adaptor.getRhs().getType().cast<RankedTensorType>()));
      auto product = rewriter.create<mindir::MatMulOp>(loc, batched(resultType), lhs, rhs, op.getTransposeAAttr(),
                                                       op.getTransposeBAttr());
      rewriter.replaceOp(op, reshapeTensor(rewriter, loc, product, resultType));
      return success();
    }
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    if (op.getTransposeA().value_or(false)) lhs = transposeLastTwo(rewriter, loc, lhs);
    if (op.getTransposeB().value_or(false)) rhs = transposeLastTwo(rewriter, loc, rhs);
    if (resultType.getRank() == 2) {
      Value out = zeroTensor(rewriter, loc, resultType);
      rewriter.replaceOp(op, rewriter.create<linalg::MatmulOp>(loc, ValueRange{lhs, rhs}, out)
                                 .getResult(0));
      return success();
    }
    auto batchType = collapseBatch(resultType);
    lhs = reshapeTensor(rewriter, loc, lhs, collapseBatch(lhs.getType().cast<RankedTensorType>()));
    rhs = reshapeTensor(rewriter, loc, rhs, collapseBatch(rhs.getType().cast<RankedTensorType>()));
    Value out = zeroTensor(rewriter, loc, batchType);
    Value product =
        rewriter.create<linalg::BatchMatmulOp>(loc, ValueRange{lhs, rhs}, out).getResult(0);
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, product, resultType));
    return success();
  }
};

}  // namespace

void populateLinearPatterns(RewritePatternSet &patterns) {
  patterns.add<MatMulLowering>(patterns.getContext());
}

}  // namespace msjit::passes
