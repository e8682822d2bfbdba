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

// The attribute `name` of type AttrT, or a diagnostic naming it and its `kind`.
template <typename AttrT>
FailureOr<AttrT> requireAttr(std::optional<Location> loc, StringRef op, DictionaryAttr attrs,
                             StringRef name, StringRef kind) {
  auto attr = attrs ? attrs.get(name).dyn_cast_or_null<AttrT>() : nullptr;
  if (!attr) return emitOptionalError(loc, op, " requires attribute '", name, "' (", kind, ")");
  return attr;
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
  auto axesAttr = requireAttr<DenseI64ArrayAttr>(loc, op, attrs, "axes", "ints");
  if (failed(axesAttr)) return failure();
  auto keepAttr = requireAttr<BoolAttr>(loc, op, attrs, "keep_dims", "bool");
  if (failed(keepAttr)) return failure();
  int64_t rank = t.getRank();
  SmallVector<bool> reduced(rank, axesAttr->empty());
  int64_t prev = -1;
  for (int64_t axis : axesAttr->asArrayRef()) {
    if (axis < 0 || axis >= rank || axis <= prev)
      return emitOptionalError(loc, op, " axes must be sorted, unique and in [0, ", rank,
                               "), got axis ", axis);
    reduced[axis] = true;
    prev = axis;
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced[i]) shape.push_back(t.getDimSize(i));
    else if (keepAttr->getValue()) shape.push_back(1);
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
  auto shapeAttr = requireAttr<DenseI64ArrayAttr>(loc, op, attrs, "shape", "ints");
  if (failed(shapeAttr)) return failure();
  ArrayRef<int64_t> target = shapeAttr->asArrayRef();
  int64_t count = 1;
  for (int64_t d : target) {
    if (d < 0) return emitOptionalError(loc, op, " shape dims must be >= 0, got ", d);
    count *= d;
  }
  if (count != t.getNumElements())
    return emitOptionalError(loc, op, " cannot reshape ", shapeStr(t.getShape()), " to ",
                             shapeStr(target));
  types.push_back(RankedTensorType::get(target, t.getElementType()));
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                            ValueRange operands, DictionaryAttr attrs,
                                            RegionRange, SmallVectorImpl<Type> &types) {
  StringRef op = getOperationName();
  if (failed(expectOperands(loc, op, operands, 1))) return failure();
  auto t = tensorOperand(operands[0]);
  auto permAttr = requireAttr<DenseI64ArrayAttr>(loc, op, attrs, "perm", "ints");
  if (failed(permAttr)) return failure();
  ArrayRef<int64_t> perm = permAttr->asArrayRef();
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
  auto toAttr = requireAttr<TypeAttr>(loc, op, attrs, "to", "dtype");
  if (failed(toAttr)) return failure();
  types.push_back(RankedTensorType::get(tensorOperand(operands[0]).getShape(), toAttr->getValue()));
  return success();
}

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                           ValueRange operands, DictionaryAttr attrs,
                                           RegionRange, SmallVectorImpl<Type> &types) {
  StringRef op = getOperationName();
  if (!operands.empty()) return emitOptionalError(loc, op, " takes no inputs");
  auto value = requireAttr<ElementsAttr>(loc, op, attrs, "value", "tensor");
  if (failed(value)) return failure();
  types.push_back(value->getType());
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

#define GET_OP_CLASSES
#include "ir/MindirOps.cpp.inc"
