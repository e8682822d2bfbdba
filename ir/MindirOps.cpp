//===- MindirOps.cpp - mindir dialect: type rules and verifiers -----------===//
//
// Every shape/dtype rule of the dialect lives here, written once and used both
// when the importer builds ops (inferReturnTypes) and when the verifier
// re-checks them (InferTypeOpInterface's default verification).
//
//===----------------------------------------------------------------------===//

#include "ir/MindirOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace mlir::mindir;

#include "ir/MindirDialect.cpp.inc"

void MindirDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "ir/MindirOps.cpp.inc"
      >();
}

namespace {

std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

std::string typeStr(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return os.str();
}

RankedTensorType tensorOperand(Value v) { return v.getType().dyn_cast<RankedTensorType>(); }

LogicalResult expectOperands(std::optional<Location> loc, StringRef op, ValueRange operands,
                             size_t n) {
  if (operands.size() != n)
    return emitOptionalError(loc, op, " expects ", n, " inputs, got ", operands.size());
  for (Value v : operands)
    if (!tensorOperand(v) || !tensorOperand(v).hasStaticShape())
      return emitOptionalError(loc, op, " expects statically shaped tensor inputs");
  return success();
}

LogicalResult checkFloat(std::optional<Location> loc, StringRef op, Type elem) {
  if (!elem.isa<FloatType>())
    return emitOptionalError(loc, op, " requires a floating-point dtype, got ", typeStr(elem));
  return success();
}

}  // namespace

std::optional<SmallVector<int64_t>> mlir::mindir::broadcastShapes(ArrayRef<int64_t> a,
                                                                  ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

LogicalResult mlir::mindir::inferBroadcastBinary(std::optional<Location> loc, StringRef op,
                                                 ValueRange operands,
                                                 SmallVectorImpl<Type> &types, bool floatOnly) {
  if (failed(expectOperands(loc, op, operands, 2))) return failure();
  auto lhs = tensorOperand(operands[0]), rhs = tensorOperand(operands[1]);
  if (lhs.getElementType() != rhs.getElementType())
    return emitOptionalError(loc, op, " operands have different dtypes: ",
                             typeStr(lhs.getElementType()), " vs ",
                             typeStr(rhs.getElementType()), " (insert a Cast)");
  if (floatOnly && failed(checkFloat(loc, op, lhs.getElementType()))) return failure();
  auto shape = broadcastShapes(lhs.getShape(), rhs.getShape());
  if (!shape)
    return emitOptionalError(loc, op, " operands of shapes ", shapeStr(lhs.getShape()), " and ",
                             shapeStr(rhs.getShape()), " are not broadcastable");
  types.push_back(RankedTensorType::get(*shape, lhs.getElementType()));
  return success();
}

LogicalResult mlir::mindir::inferUnary(std::optional<Location> loc, StringRef op,
                                       ValueRange operands, SmallVectorImpl<Type> &types,
                                       bool floatOnly) {
  if (failed(expectOperands(loc, op, operands, 1))) return failure();
  auto t = tensorOperand(operands[0]);
  if (floatOnly && failed(checkFloat(loc, op, t.getElementType()))) return failure();
  if (t.getElementType().isInteger(1))
    return emitOptionalError(loc, op, " does not accept bool tensors");
  types.push_back(t);
  return success();
}

LogicalResult mlir::mindir::inferReduce(std::optional<Location> loc, StringRef op,
                                        ValueRange operands, DictionaryAttr attrs,
                                        SmallVectorImpl<Type> &types, bool floatOnly) {
  if (failed(expectOperands(loc, op, operands, 1))) return failure();
  auto t = tensorOperand(operands[0]);
  if (floatOnly && failed(checkFloat(loc, op, t.getElementType()))) return failure();
  auto axesAttr = attrs ? attrs.get("axes").dyn_cast_or_null<DenseI64ArrayAttr>() : nullptr;
  auto keepAttr = attrs ? attrs.get("keep_dims").dyn_cast_or_null<BoolAttr>() : nullptr;
  if (!axesAttr || !keepAttr)
    return emitOptionalError(loc, op, " requires attributes 'axes' (ints) and 'keep_dims' (bool)");
  int64_t rank = t.getRank();
  SmallVector<bool> reduced(rank, axesAttr.empty());
  int64_t prev = -1;
  for (int64_t axis : axesAttr.asArrayRef()) {
    if (axis < 0 || axis >= rank || axis <= prev)
      return emitOptionalError(loc, op, " axes must be sorted, unique and in [0, ", rank,
                               "), got axis ", axis);
    reduced[axis] = true;
    prev = axis;
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced[i]) shape.push_back(t.getDimSize(i));
    else if (keepAttr.getValue()) shape.push_back(1);
  }
  types.push_back(RankedTensorType::get(shape, t.getElementType()));
  return success();
}

LogicalResult MatMulOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         ValueRange operands, DictionaryAttr, RegionRange,
                                         SmallVectorImpl<Type> &types) {
  StringRef op = getOperationName();
  if (failed(expectOperands(loc, op, operands, 2))) return failure();
  auto lhs = tensorOperand(operands[0]), rhs = tensorOperand(operands[1]);
  if (lhs.getElementType() != rhs.getElementType())
    return emitOptionalError(loc, op, " operands have different dtypes: ",
                             typeStr(lhs.getElementType()), " vs ",
                             typeStr(rhs.getElementType()));
  auto ls = lhs.getShape(), rs = rhs.getShape();
  int64_t rank = lhs.getRank();
  if (rank < 2 || rank != rhs.getRank() || ls.drop_back(2) != rs.drop_back(2) ||
      ls[rank - 1] != rs[rank - 2])
    return emitOptionalError(loc, op, " cannot multiply shapes ", shapeStr(ls), " and ",
                             shapeStr(rs),
                             " (needs equal rank >= 2, equal batch dims, inner dims equal)");
  SmallVector<int64_t> shape(ls.begin(), ls.end());
  shape.back() = rs.back();
  types.push_back(RankedTensorType::get(shape, lhs.getElementType()));
  return success();
}

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                          ValueRange operands, DictionaryAttr attrs,
                                          RegionRange, SmallVectorImpl<Type> &types) {
  StringRef op = getOperationName();
  if (failed(expectOperands(loc, op, operands, 1))) return failure();
  auto t = tensorOperand(operands[0]);
  auto shapeAttr = attrs ? attrs.get("shape").dyn_cast_or_null<DenseI64ArrayAttr>() : nullptr;
  if (!shapeAttr) return emitOptionalError(loc, op, " requires attribute 'shape' (ints)");
  int64_t count = 1;
  for (int64_t d : shapeAttr.asArrayRef()) {
    if (d < 0) return emitOptionalError(loc, op, " shape dims must be >= 0, got ", d);
    count *= d;
  }
  if (count != t.getNumElements())
    return emitOptionalError(loc, op, " cannot reshape ", shapeStr(t.getShape()), " to ",
                             shapeStr(shapeAttr.asArrayRef()));
  types.push_back(RankedTensorType::get(shapeAttr.asArrayRef(), t.getElementType()));
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                            ValueRange operands, DictionaryAttr attrs,
                                            RegionRange, SmallVectorImpl<Type> &types) {
  StringRef op = getOperationName();
  if (failed(expectOperands(loc, op, operands, 1))) return failure();
  auto t = tensorOperand(operands[0]);
  auto permAttr = attrs ? attrs.get("perm").dyn_cast_or_null<DenseI64ArrayAttr>() : nullptr;
  if (!permAttr) return emitOptionalError(loc, op, " requires attribute 'perm' (ints)");
  auto perm = permAttr.asArrayRef();
  SmallVector<bool> seen(t.getRank(), false);
  if (static_cast<int64_t>(perm.size()) != t.getRank())
    return emitOptionalError(loc, op, " perm has ", perm.size(), " entries for rank ",
                             t.getRank());
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= t.getRank() || seen[p])
      return emitOptionalError(loc, op, " perm must be a permutation of [0, ", t.getRank(),
                               ")");
    seen[p] = true;
    shape.push_back(t.getDimSize(p));
  }
  types.push_back(RankedTensorType::get(shape, t.getElementType()));
  return success();
}

LogicalResult CastOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                       ValueRange operands, DictionaryAttr attrs, RegionRange,
                                       SmallVectorImpl<Type> &types) {
  StringRef op = getOperationName();
  if (failed(expectOperands(loc, op, operands, 1))) return failure();
  auto toAttr = attrs ? attrs.get("to").dyn_cast_or_null<TypeAttr>() : nullptr;
  if (!toAttr) return emitOptionalError(loc, op, " requires attribute 'to' (dtype)");
  types.push_back(RankedTensorType::get(tensorOperand(operands[0]).getShape(), toAttr.getValue()));
  return success();
}

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                           ValueRange operands, DictionaryAttr attrs,
                                           RegionRange, SmallVectorImpl<Type> &types) {
  StringRef op = getOperationName();
  if (!operands.empty()) return emitOptionalError(loc, op, " takes no inputs");
  auto value = attrs ? attrs.get("value").dyn_cast_or_null<ElementsAttr>() : nullptr;
  if (!value) return emitOptionalError(loc, op, " requires attribute 'value' (tensor)");
  types.push_back(value.getType());
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

#define GET_OP_CLASSES
#include "ir/MindirOps.cpp.inc"
