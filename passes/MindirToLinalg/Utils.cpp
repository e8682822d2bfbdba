//===- Utils.cpp - helpers shared by the mindir -> linalg patterns --------===//
#include "passes/MindirToLinalg/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

using namespace mlir;

namespace msjit::passes {

AffineMap broadcastMap(RankedTensorType operandType, RankedTensorType resultType) {
  MLIRContext *ctx = resultType.getContext();
  int64_t offset = resultType.getRank() - operandType.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < operandType.getRank(); ++i) {
    bool broadcast = operandType.getDimSize(i) == 1 && resultType.getDimSize(i + offset) != 1;
    exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx) : getAffineDimExpr(i + offset, ctx));
  }
  return AffineMap::get(resultType.getRank(), 0, exprs, ctx);
}

Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type) {
  return b.create<tensor::EmptyOp>(loc, type.getShape(), type.getElementType());
}

Value zeroTensor(OpBuilder &b, Location loc, RankedTensorType type) {
  Value zero = b.create<arith::ConstantOp>(loc, b.getZeroAttr(type.getElementType()));
  return b.create<linalg::FillOp>(loc, ValueRange{zero}, ValueRange{emptyTensor(b, loc, type)})
      .getResult(0);
}

Value reshapeTensor(OpBuilder &b, Location loc, Value value, RankedTensorType target) {
  auto source = value.getType().cast<RankedTensorType>();
  if (source == target) return value;
  if (source.getRank() == 0)
    return b.create<tensor::ExpandShapeOp>(loc, target, value, ArrayRef<ReassociationIndices>{});
  if (target.getRank() == 0)
    return b.create<tensor::CollapseShapeOp>(loc, target, value, ArrayRef<ReassociationIndices>{});
  if (auto groups = getReassociationIndicesForReshape(source, target)) {
    if (source.getRank() > target.getRank())
      return b.create<tensor::CollapseShapeOp>(loc, target, value, *groups);
    return b.create<tensor::ExpandShapeOp>(loc, target, value, *groups);
  }
  // No direct reassociation (e.g. (2,3) -> (3,2)): go through the flat tensor.
  auto flat = RankedTensorType::get({source.getNumElements()}, source.getElementType());
  auto allDims = [](int64_t rank) {
    ReassociationIndices all;
    for (int64_t i = 0; i < rank; ++i) all.push_back(i);
    return SmallVector<ReassociationIndices>{all};
  };
  Value flatValue = source.getRank() == 1
                        ? value
                        : b.create<tensor::CollapseShapeOp>(loc, flat, value, allDims(source.getRank()));
  if (target.getRank() == 1) return flatValue;
  return b.create<tensor::ExpandShapeOp>(loc, target, flatValue, allDims(target.getRank()));
}

Value gatherByMap(OpBuilder &b, Location loc, Value input, ArrayRef<AffineExpr> inputExprs,
                  RankedTensorType resultType) {
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, inputExprs, b.getContext()),
                                 b.getMultiDimIdentityMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  return b
      .create<linalg::GenericOp>(loc, resultType, input, emptyTensor(b, loc, resultType), maps, iterators,
                                 [](OpBuilder &nb, Location l, ValueRange args) { nb.create<linalg::YieldOp>(l, args[0]); })
      .getResult(0);
}

Value transposeLastTwo(OpBuilder &b, Location loc, Value input) {
  auto type = input.getType().cast<RankedTensorType>();
  int64_t rank = type.getRank();
  SmallVector<int64_t> shape(type.getShape());
  std::swap(shape[rank - 1], shape[rank - 2]);
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < rank; ++i) exprs.push_back(b.getAffineDimExpr(i));
  std::swap(exprs[rank - 1], exprs[rank - 2]);
  return gatherByMap(b, loc, input, exprs, RankedTensorType::get(shape, type.getElementType()));
}

Value convertScalar(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to) return v;
  auto fromFloat = from.dyn_cast<FloatType>(), toFloat = to.dyn_cast<FloatType>();
  if (fromFloat && toFloat)
    return fromFloat.getWidth() < toFloat.getWidth() ? b.create<arith::ExtFOp>(loc, to, v).getResult()
                                                     : b.create<arith::TruncFOp>(loc, to, v).getResult();
  if (to.isInteger(1)) {
    if (fromFloat) {
      Value zero = b.create<arith::ConstantOp>(loc, b.getFloatAttr(from, 0.0));
      return b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNE, v, zero);
    }
    Value zero = b.create<arith::ConstantOp>(loc, b.getIntegerAttr(from, 0));
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, v, zero);
  }
  if (toFloat)
    return from.isInteger(1) ? b.create<arith::UIToFPOp>(loc, to, v).getResult()
                             : b.create<arith::SIToFPOp>(loc, to, v).getResult();
  if (fromFloat) return b.create<arith::FPToSIOp>(loc, to, v);
  if (from.isInteger(1)) return b.create<arith::ExtUIOp>(loc, to, v);
  return from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()
             ? b.create<arith::ExtSIOp>(loc, to, v).getResult()
             : b.create<arith::TruncIOp>(loc, to, v).getResult();
}

}  // namespace msjit::passes
