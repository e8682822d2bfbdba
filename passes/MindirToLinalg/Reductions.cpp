//===- Reductions.cpp - ReduceSum/ReduceMean -> linalg.generic ------------===//
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

template <typename ReduceOp>
struct ReduceLowering : OpConversionPattern<ReduceOp> {
  using OpConversionPattern<ReduceOp>::OpConversionPattern;
  static constexpr bool kMean = std::is_same_v<ReduceOp, mindir::ReduceMeanOp>;

  LogicalResult matchAndRewrite(ReduceOp op, typename ReduceOp::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getOperand();
    auto inputType = input.getType().template cast<RankedTensorType>();
    auto resultType = op.getType().template cast<RankedTensorType>();
    Type elem = inputType.getElementType();
    // float16 accumulates in float32 so long sums do not lose the low bits.
    Type acc = elem.isF16() ? rewriter.getF32Type() : elem;

    int64_t rank = inputType.getRank();
    SmallVector<bool> reduced(rank, op.getAxes().empty());
    for (int64_t axis : op.getAxes()) reduced[axis] = true;
    SmallVector<int64_t> keptShape;
    SmallVector<AffineExpr> outExprs;
    SmallVector<utils::IteratorType> iterators;
    int64_t count = 1;
    for (int64_t i = 0; i < rank; ++i) {
      iterators.push_back(reduced[i] ? utils::IteratorType::reduction : utils::IteratorType::parallel);
      if (reduced[i]) {
        count *= inputType.getDimSize(i);
      } else {
        keptShape.push_back(inputType.getDimSize(i));
        outExprs.push_back(rewriter.getAffineDimExpr(i));
      }
    }
    auto accType = RankedTensorType::get(keptShape, acc);
    SmallVector<AffineMap> maps = {
        rewriter.getMultiDimIdentityMap(rank),
        AffineMap::get(rank, 0, outExprs, rewriter.getContext())};
    auto sum = rewriter.create<linalg::GenericOp>(
        loc, accType, input, zeroTensor(rewriter, loc, accType), maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = convertScalar(b, l, args[0], acc);
          Value r = acc.isa<FloatType>() ? b.create<arith::AddFOp>(l, x, args[1]).getResult()
                                         : b.create<arith::AddIOp>(l, x, args[1]).getResult();
          b.create<linalg::YieldOp>(l, r);
        });

    // Scale (mean) and narrow back to the element type in one elementwise pass.
    auto keptType = RankedTensorType::get(keptShape, elem);
    Value result = sum.getResult(0);
    if (kMean || acc != elem) {
      SmallVector<AffineMap> idMaps(2, rewriter.getMultiDimIdentityMap(keptShape.size()));
      SmallVector<utils::IteratorType> par(keptShape.size(), utils::IteratorType::parallel);
      result = rewriter
                   .create<linalg::GenericOp>(
                       loc, keptType, result, emptyTensor(rewriter, loc, keptType), idMaps, par,
                       [&](OpBuilder &b, Location l, ValueRange args) {
                         Value v = args[0];
                         if (kMean) {
                           Value n = b.create<arith::ConstantOp>(
                               l, b.getFloatAttr(acc, static_cast<double>(count)));
                           v = b.create<arith::DivFOp>(l, v, n);
                         }
                         b.create<linalg::YieldOp>(l, convertScalar(b, l, v, elem));
                       })
                   .getResult(0);
    }
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, result, resultType));
    return success();
  }
};

}  // namespace

void populateReductionPatterns(RewritePatternSet &patterns) {
  patterns.add<ReduceLowering<mindir::ReduceSumOp>, ReduceLowering<mindir::ReduceMeanOp>>(
      patterns.getContext());
}

}  // namespace msjit::passes
