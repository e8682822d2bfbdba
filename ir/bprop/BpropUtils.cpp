//===- BpropUtils.cpp - helpers shared by the mindir bprop rules ----------===//
#include "ir/bprop/BpropUtils.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"

namespace mlir::mindir::bprop {

RankedTensorType tensorType(Value v) { return v.getType().cast<RankedTensorType>(); }

bool isFloatTensor(Value v) { return getElementTypeOrSelf(v.getType()).isa<FloatType>(); }

Value splat(OpBuilder &b, Location loc, RankedTensorType type, double value) {
  Type elem = type.getElementType();
  Attribute element;
  if (elem.isa<FloatType>())
    element = b.getFloatAttr(elem, value);
  else if (elem.isInteger(1))
    element = b.getIntegerAttr(elem, APInt(1, value != 0));
  else
    element = b.getIntegerAttr(elem, static_cast<int64_t>(value));
  auto attr = DenseElementsAttr::get(type, element);
  return b.create<ConstantOp>(loc, attr.cast<ElementsAttr>());
}

Value zerosLike(OpBuilder &b, Location loc, Value like) { return splat(b, loc, tensorType(like), 0.0); }

Value onesLike(OpBuilder &b, Location loc, Value like) { return splat(b, loc, tensorType(like), 1.0); }

Value reshapeTo(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
  if (tensorType(v).getShape() == shape) return v;
  return b.create<ReshapeOp>(loc, v, shape);
}

Value sumToShape(OpBuilder &b, Location loc, Value grad, RankedTensorType target) {
  ArrayRef<int64_t> from = tensorType(grad).getShape(), to = target.getShape();
  int64_t lead = static_cast<int64_t>(from.size()) - static_cast<int64_t>(to.size());
  SmallVector<int64_t> axes;
  for (int64_t i = 0; i < static_cast<int64_t>(from.size()); ++i)
    if (i < lead || (to[i - lead] == 1 && from[i] != 1)) axes.push_back(i);
  // (An empty axes list would mean "all axes" to ReduceSum.)
  if (!axes.empty()) grad = b.create<ReduceSumOp>(loc, grad, axes, /*keep_dims=*/true);
  return reshapeTo(b, loc, grad, to);
}

SmallVector<int64_t> keepDimsShape(ArrayRef<int64_t> shape, ArrayRef<int64_t> axes) {
  SmallVector<int64_t> kept(shape);
  for (int64_t i = 0; i < static_cast<int64_t>(kept.size()); ++i)
    if (axes.empty() || llvm::is_contained(axes, i)) kept[i] = 1;
  return kept;
}

}  // namespace mlir::mindir::bprop
