//===- GradKernelOps.cpp - type rules of the Conv2D and pooling gradients -===//
//
// A gradient op knows its forward op's operands only partly (the rest are
// shape attributes), so it runs the forward rule on what it knows, checks dy
// against that result, and returns the shape of the operand it differentiates.
//
//===----------------------------------------------------------------------===//

#include "ir/MindirOps.h"
#include "ir/TypeRules.h"

using namespace mlir;
using namespace mlir::mindir;
using namespace mlir::mindir::rules;

namespace {

// The float32 tensor type that the 4-ints attribute `name` describes.
FailureOr<RankedTensorType> shapeAttrType(MLIRContext *ctx, std::optional<Location> loc, StringRef op,
                                          DictionaryAttr attrs, StringRef name) {
  auto shape = requireInts(loc, op, attrs, name, 4);
  if (failed(shape)) return failure();
  if (llvm::any_of(*shape, [](int64_t d) { return d < 0; }))
    return emitOptionalError(loc, op, " attribute '", name, "' has a negative dim: ", shapeStr(*shape));
  return RankedTensorType::get(*shape, FloatType::getF32(ctx));
}

// Appends `result` when dy has the type of the forward op's result.
LogicalResult checkDy(std::optional<Location> loc, StringRef op, Value dy, FailureOr<RankedTensorType> forward,
                      RankedTensorType result, SmallVectorImpl<Type> &types) {
  if (failed(forward)) return failure();
  if (dy.getType() != *forward)
    return emitOptionalError(loc, op, " dy of type ", typeStr(dy.getType()), " does not match the forward result ",
                             typeStr(*forward));
  types.push_back(result);
  return success();
}

// Conv2DBackpropInput/Filter: dy, then the Conv2D operand the gradient needs; the other
// operand, whose gradient is the result, is described by the attribute `shapeAttr`.
LogicalResult inferConv2DGrad(MLIRContext *ctx, std::optional<Location> loc, StringRef op, ValueRange operands,
                              DictionaryAttr attrs, StringRef shapeAttr, bool ofInput, SmallVectorImpl<Type> &types) {
  if (failed(expectOperands(loc, op, operands, 2))) return failure();
  auto result = shapeAttrType(ctx, loc, op, attrs, shapeAttr);
  if (failed(result)) return failure();
  auto known = tensorOperand(operands[1]);
  auto forward = ofInput ? conv2dResultType(loc, op, *result, known, attrs)
                         : conv2dResultType(loc, op, known, *result, attrs);
  return checkDy(loc, op, operands[0], forward, *result, types);
}

}  // namespace

LogicalResult Conv2DBackpropInputOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                                      ValueRange operands, DictionaryAttr attrs, RegionRange,
                                                      SmallVectorImpl<Type> &types) {
  return inferConv2DGrad(ctx, loc, getOperationName(), operands, attrs, "input_shape", true, types);
}

LogicalResult Conv2DBackpropFilterOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                                       ValueRange operands, DictionaryAttr attrs, RegionRange,
                                                       SmallVectorImpl<Type> &types) {
  return inferConv2DGrad(ctx, loc, getOperationName(), operands, attrs, "filter_shape", false, types);
}

LogicalResult MaxPoolGradOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc, ValueRange operands,
                                              DictionaryAttr attrs, RegionRange, SmallVectorImpl<Type> &types) {
  StringRef op = getOperationName();
  if (failed(expectOperands(loc, op, operands, 2))) return failure();
  auto input = tensorOperand(operands[0]);
  if (!input.getElementType().isF32())
    return emitOptionalError(loc, op, " supports float32 tensors, got ", typeStr(input.getElementType()));
  return checkDy(loc, op, operands[1], poolResultType(loc, op, input, attrs), input, types);
}

LogicalResult AvgPoolGradOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,
                                              DictionaryAttr attrs, RegionRange, SmallVectorImpl<Type> &types) {
  StringRef op = getOperationName();
  if (failed(expectOperands(loc, op, operands, 1))) return failure();
  if (failed(requireAttr<BoolAttr>(loc, op, attrs, "count_include_pad", "bool"))) return failure();
  auto input = shapeAttrType(ctx, loc, op, attrs, "input_shape");
  if (failed(input)) return failure();
  return checkDy(loc, op, operands[0], poolResultType(loc, op, *input, attrs), *input, types);
}
