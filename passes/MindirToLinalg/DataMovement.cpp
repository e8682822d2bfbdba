//===- DataMovement.cpp - ops that move elements without arithmetic -------===//
#include "ir/MindirOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
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

struct TransposeLowering : OpConversionPattern<mindir::TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(mindir::TransposeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = op.getType().cast<RankedTensorType>();
    SmallVector<AffineExpr> exprs(resultType.getRank());
    for (int64_t i = 0; i < resultType.getRank(); ++i) exprs[op.getPerm()[i]] = rewriter.getAffineDimExpr(i);
    rewriter.replaceOp(op, gatherByMap(rewriter, op.getLoc(), adaptor.getOperand(), exprs, resultType));
    return success();
  }
};

struct BroadcastToLowering : OpConversionPattern<mindir::BroadcastToOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(mindir::BroadcastToOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = op.getType().cast<RankedTensorType>();
    AffineMap map = broadcastMap(adaptor.getOperand().getType().cast<RankedTensorType>(), resultType);
    rewriter.replaceOp(op, gatherByMap(rewriter, op.getLoc(), adaptor.getOperand(), map.getResults(), resultType));
    return success();
  }
};

// out[i] = in[i mod size] along every tiled dim.
struct TileLowering : OpConversionPattern<mindir::TileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(mindir::TileOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto inputType = adaptor.getOperand().getType().cast<RankedTensorType>();
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < inputType.getRank(); ++i) {
      AffineExpr d = rewriter.getAffineDimExpr(i);
      exprs.push_back(op.getMultiples()[i] == 1 ? d : d % inputType.getDimSize(i));
    }
    rewriter.replaceOp(op, gatherByMap(rewriter, op.getLoc(), adaptor.getOperand(), exprs,
                                       op.getType().cast<RankedTensorType>()));
    return success();
  }
};

// tensor.extract_slice over the covered range with |stride|, then one generic
// reversing the dims whose stride is negative. (A generic reading
// in[begin + i * stride] directly would let linalg infer a loop bound from
// the input whenever that map is a bare dim: begin 0, stride 1.)
struct StridedSliceLowering : OpConversionPattern<mindir::StridedSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(mindir::StridedSliceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = op.getType().cast<RankedTensorType>();
    int64_t rank = resultType.getRank();
    SmallVector<int64_t> offsets, strides;
    SmallVector<AffineExpr> reversed;
    bool anyNegative = false;
    for (int64_t i = 0; i < rank; ++i) {
      int64_t begin = op.getBegin()[i], stride = op.getStrides()[i], count = resultType.getDimSize(i);
      // The lowest index read: `begin` going up, the last element going down.
      offsets.push_back(stride > 0 || count == 0 ? std::max<int64_t>(begin, 0) : begin + (count - 1) * stride);
      strides.push_back(std::abs(stride));
      AffineExpr d = rewriter.getAffineDimExpr(i);
      reversed.push_back(stride > 0 ? d : rewriter.getAffineConstantExpr(count - 1) - d);
      anyNegative |= stride < 0;
    }
    Value slice = rewriter.create<tensor::ExtractSliceOp>(op.getLoc(), resultType, adaptor.getOperand(),
                                                          ValueRange{}, ValueRange{}, ValueRange{}, offsets,
                                                          resultType.getShape(), strides);
    rewriter.replaceOp(op, anyNegative ? gatherByMap(rewriter, op.getLoc(), slice, reversed, resultType) : slice);
    return success();
  }
};

// Each input is inserted at its offset along the axis (copies are loops: see
// the bufferization options in Pipelines.cpp).
struct ConcatLowering : OpConversionPattern<mindir::ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(mindir::ConcatOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = op.getType().cast<RankedTensorType>();
    int64_t rank = resultType.getRank(), axis = op.getAxis(), offset = 0;
    Value result = emptyTensor(rewriter, loc, resultType);
    for (Value input : adaptor.getInputs()) {
      auto type = input.getType().cast<RankedTensorType>();
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0)), sizes, strides(rank, rewriter.getIndexAttr(1));
      offsets[axis] = rewriter.getIndexAttr(offset);
      for (int64_t d : type.getShape()) sizes.push_back(rewriter.getIndexAttr(d));
      result = rewriter.create<tensor::InsertSliceOp>(loc, input, result, offsets, sizes, strides);
      offset += type.getDimSize(axis);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

// A generic over the result reads each index, wraps negative ones, clamps, and
// extracts the params element at that coordinate.
struct GatherLowering : OpConversionPattern<mindir::GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(mindir::GatherOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = op.getType().cast<RankedTensorType>();
    Value params = adaptor.getParams(), indices = adaptor.getIndices();
    auto paramsType = params.getType().cast<RankedTensorType>();
    auto indicesType = indices.getType().cast<RankedTensorType>();
    int64_t axis = op.getAxis(), rank = resultType.getRank(), indexRank = indicesType.getRank();
    SmallVector<AffineExpr> indexExprs;
    for (int64_t i = 0; i < indexRank; ++i) indexExprs.push_back(rewriter.getAffineDimExpr(axis + i));
    SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, indexExprs, rewriter.getContext()),
                                   rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    int64_t dim = paramsType.getDimSize(axis);
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, resultType, indices, emptyTensor(rewriter, loc, resultType), maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value index = b.create<arith::IndexCastOp>(l, b.getIndexType(), args[0]);
          Value size = b.create<arith::ConstantIndexOp>(l, dim);
          Value zero = b.create<arith::ConstantIndexOp>(l, 0), last = b.create<arith::ConstantIndexOp>(l, dim - 1);
          Value negative = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt, index, zero);
          index = b.create<arith::SelectOp>(l, negative, b.create<arith::AddIOp>(l, index, size), index);
          index = b.create<arith::MaxSIOp>(l, b.create<arith::MinSIOp>(l, index, last), zero);
          SmallVector<Value> coords;
          for (int64_t i = 0; i < axis; ++i) coords.push_back(b.create<linalg::IndexOp>(l, i));
          coords.push_back(index);
          for (int64_t i = axis + indexRank; i < rank; ++i) coords.push_back(b.create<linalg::IndexOp>(l, i));
          b.create<linalg::YieldOp>(l, b.create<tensor::ExtractOp>(l, params, coords).getResult());
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

template <typename TriangleOp>
struct TriangleLowering : OpConversionPattern<TriangleOp> {
  using OpConversionPattern<TriangleOp>::OpConversionPattern;
  static constexpr bool kUpper = std::is_same_v<TriangleOp, mindir::TriuOp>;

  LogicalResult matchAndRewrite(TriangleOp op, typename TriangleOp::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getType().template cast<RankedTensorType>();
    int64_t rank = type.getRank();
    SmallVector<AffineMap> maps(2, rewriter.getMultiDimIdentityMap(rank));
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    int64_t diagonal = op.getDiagonal();
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, type, adaptor.getOperand(), emptyTensor(rewriter, loc, type), maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value row = b.create<linalg::IndexOp>(l, rank - 2), col = b.create<linalg::IndexOp>(l, rank - 1);
          Value diff = b.create<arith::SubIOp>(l, col, row);
          Value d = b.create<arith::ConstantIndexOp>(l, diagonal);
          Value keep = b.create<arith::CmpIOp>(l, kUpper ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sle, diff, d);
          Value zero = b.create<arith::ConstantOp>(l, b.getZeroAttr(args[0].getType()));
          b.create<linalg::YieldOp>(l, b.create<arith::SelectOp>(l, keep, args[0], zero).getResult());
        });
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
  patterns.add<ReshapeLowering, TransposeLowering, BroadcastToLowering, TileLowering, StridedSliceLowering,
               ConcatLowering, GatherLowering, TriangleLowering<mindir::TriuOp>, TriangleLowering<mindir::TrilOp>,
               ConstantLowering>(patterns.getContext());
}

}  // namespace msjit::passes
