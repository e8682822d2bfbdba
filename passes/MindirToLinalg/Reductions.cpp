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

// The accumulator's start value: 0 for sums, the identity of max/min otherwise.
Value initialValue(OpBuilder &b, Location loc, Type acc, bool isMax, bool isMin) {
  if (!isMax && !isMin) return b.create<arith::ConstantOp>(loc, b.getZeroAttr(acc));
  if (auto f = acc.dyn_cast<FloatType>())
    return b.create<arith::ConstantOp>(
        loc, b.getFloatAttr(f, APFloat::getInf(f.getFloatSemantics(), /*Negative=*/isMax)));
  unsigned width = acc.getIntOrFloatBitWidth();
  APInt v = isMax ? APInt::getSignedMinValue(width) : APInt::getSignedMaxValue(width);
  if (width == 1) v = APInt(1, isMax ? 0 : 1);  // bool: max starts at false, min at true
  return b.create<arith::ConstantOp>(loc, b.getIntegerAttr(acc, v));
}

// Float sums may be reassociated (as numpy's pairwise summation does) so LLVM
// can vectorize the reduction loop.
Value combine(OpBuilder &b, Location loc, Value x, Value acc, bool isMax, bool isMin) {
  bool isFloat = x.getType().isa<FloatType>();
  if (isMax) return isFloat ? b.create<arith::MaxFOp>(loc, x, acc).getResult() : b.create<arith::MaxSIOp>(loc, x, acc).getResult();
  if (isMin) return isFloat ? b.create<arith::MinFOp>(loc, x, acc).getResult() : b.create<arith::MinSIOp>(loc, x, acc).getResult();
  if (!isFloat) return b.create<arith::AddIOp>(loc, x, acc);
  return b.create<arith::AddFOp>(loc, x, acc, arith::FastMathFlagsAttr::get(b.getContext(), arith::FastMathFlags::reassoc));
}

template <typename ReduceOp>
struct ReduceLowering : OpConversionPattern<ReduceOp> {
  using OpConversionPattern<ReduceOp>::OpConversionPattern;
  static constexpr bool kMean = std::is_same_v<ReduceOp, mindir::ReduceMeanOp>;
  static constexpr bool kMax = std::is_same_v<ReduceOp, mindir::ReduceMaxOp>;
  static constexpr bool kMin = std::is_same_v<ReduceOp, mindir::ReduceMinOp>;

  LogicalResult matchAndRewrite(ReduceOp op, typename ReduceOp::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getOperand();
    auto inputType = input.getType().template cast<RankedTensorType>();
    auto resultType = op.getType().template cast<RankedTensorType>();
    Type elem = inputType.getElementType();
    // float16 sums accumulate in float32 so long sums do not lose the low bits.
    Type acc = elem.isF16() && !kMax && !kMin ? rewriter.getF32Type() : elem;

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
    Value init = rewriter
                     .create<linalg::FillOp>(loc, ValueRange{initialValue(rewriter, loc, acc, kMax, kMin)},
                                             ValueRange{emptyTensor(rewriter, loc, accType)})
                     .getResult(0);
    auto sum = rewriter.create<linalg::GenericOp>(
        loc, accType, input, init, maps, iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = convertScalar(b, l, args[0], acc);
          b.create<linalg::YieldOp>(l, combine(b, l, x, args[1], kMax, kMin));
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
  patterns.add<ReduceLowering<mindir::ReduceSumOp>, ReduceLowering<mindir::ReduceMeanOp>,
               ReduceLowering<mindir::ReduceMaxOp>, ReduceLowering<mindir::ReduceMinOp>>(patterns.getContext());
}

}  // namespace msjit::passes
