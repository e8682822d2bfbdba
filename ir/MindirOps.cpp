//===- MindirOps.cpp - mindir dialect: type rules and verifiers -----------===//
//
// Every shape/dtype rule of the dialect lives here, written once and used both
// when the importer builds ops (inferReturnTypes) and when the verifier
// re-checks them (InferTypeOpInterface's default verification).
//
//===----------------------------------------------------------------------===//

#include "ir/MindirOps.h"

#include "ir/ShapeLimits.h"
#include "ir/TypeRules.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace mlir::mindir;
using namespace mlir::mindir::rules;

#include "ir/MindirDialect.cpp.inc"
#include "ir/MindirInterfaces.cpp.inc"

void MindirDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "ir/MindirOps.cpp.inc"
      >();
}

namespace mlir::mindir::rules {

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

LogicalResult expectOperands(std::optional<Location> loc, StringRef op, ValueRange operands,
                             size_t n) {
  if (operands.size() != n)
    return emitOptionalError(loc, op, " expects ", n, " inputs, got ", operands.size());
  for (Value v : operands)
    if (!tensorOperand(v) || !tensorOperand(v).hasStaticShape())
      return emitOptionalError(loc, op, " expects statically shaped tensor inputs");
  return success();
}

FailureOr<ArrayRef<int64_t>> requireInts(std::optional<Location> loc, StringRef op, DictionaryAttr attrs,
                                         StringRef name, size_t n) {
  auto attr = requireAttr<DenseI64ArrayAttr>(loc, op, attrs, name, "ints");
  if (failed(attr)) return failure();
  if (attr->size() != static_cast<int64_t>(n))
    return emitOptionalError(loc, op, " attribute '", name, "' needs ", n, " values, got ", attr->size());
  return attr->asArrayRef();
}

}  // namespace mlir::mindir::rules

namespace {

LogicalResult checkFloat(std::optional<Location> loc, StringRef op, Type elem) {
  if (!elem.isa<FloatType>())
    return emitOptionalError(loc, op, " requires a floating-point dtype, got ", typeStr(elem));
  return success();
}

LogicalResult checkKind(std::optional<Location> loc, StringRef op, Type elem, ElementKind kind) {
  bool isBool = elem.isInteger(1);
  switch (kind) {
    case ElementKind::Float: return checkFloat(loc, op, elem);
    case ElementKind::Bool:
      if (!isBool) return emitOptionalError(loc, op, " requires bool operands, got ", typeStr(elem));
      return success();
    case ElementKind::Numeric:
    case ElementKind::NumericCompare:
      if (isBool) return emitOptionalError(loc, op, " does not accept bool tensors");
      return success();
    case ElementKind::Any:
    case ElementKind::AnyCompare: return success();
  }
  return success();
}

bool returnsBool(ElementKind kind) {
  return kind == ElementKind::AnyCompare || kind == ElementKind::NumericCompare;
}

// numpy broadcasting over any number of operand shapes, or a diagnostic.
FailureOr<SmallVector<int64_t>> broadcastAll(std::optional<Location> loc, StringRef op, ValueRange operands) {
  SmallVector<int64_t> shape;
  for (Value v : operands) {
    auto next = broadcastShapes(shape, tensorOperand(v).getShape());
    if (!next) {
      std::string shapes;
      for (Value w : operands) shapes += (shapes.empty() ? "" : " and ") + shapeStr(tensorOperand(w).getShape());
      return emitOptionalError(loc, op, " operands of shapes ", shapes, " are not broadcastable");
    }
    shape = *next;
  }
  return shape;
}

// Output extent of a window op along one dim, or -1 when the window does not fit
// (attribute values are untrusted: a span or padded size past int64 does not fit either).
int64_t windowExtent(int64_t in, int64_t padBefore, int64_t padAfter, int64_t kernel, int64_t stride,
                     int64_t dilation) {
  if (stride <= 0 || kernel <= 0 || dilation <= 0 || padBefore < 0 || padAfter < 0) return -1;
  int64_t span, padded;
  if (!msjit::ir::checkedMul(dilation, kernel - 1, span) || !msjit::ir::checkedAdd(span, 1, span) ||
      !msjit::ir::checkedAdd(in, padBefore, padded) || !msjit::ir::checkedAdd(padded, padAfter, padded) ||
      padded < span)
    return -1;
  return (padded - span) / stride + 1;
}

}  // namespace

FailureOr<RankedTensorType> mlir::mindir::rules::conv2dResultType(std::optional<Location> loc, StringRef op,
                                                                  RankedTensorType x, RankedTensorType w,
                                                                  DictionaryAttr attrs) {
  if (x.getRank() != 4 || w.getRank() != 4)
    return emitOptionalError(loc, op, " expects NCHW input and OIHW weight, got shapes ", shapeStr(x.getShape()),
                             " and ", shapeStr(w.getShape()));
  if (!x.getElementType().isF32() || w.getElementType() != x.getElementType())
    return emitOptionalError(loc, op, " supports float32 input and weight, got ", typeStr(x.getElementType()),
                             " and ", typeStr(w.getElementType()));
  auto stride = requireInts(loc, op, attrs, "stride", 2), dilation = requireInts(loc, op, attrs, "dilation", 2),
       pad = requireInts(loc, op, attrs, "pad", 4);
  auto group = requireAttr<IntegerAttr>(loc, op, attrs, "group", "int");
  if (failed(stride) || failed(dilation) || failed(pad) || failed(group)) return failure();
  int64_t g = group->getInt(), c = x.getDimSize(1), o = w.getDimSize(0);
  if (g < 1 || c % g || o % g || w.getDimSize(1) != c / g)
    return emitOptionalError(loc, op, " input of shape ", shapeStr(x.getShape()), " and weight of shape ",
                             shapeStr(w.getShape()), " do not match group ", g);
  int64_t oh = windowExtent(x.getDimSize(2), (*pad)[0], (*pad)[1], w.getDimSize(2), (*stride)[0], (*dilation)[0]);
  int64_t ow = windowExtent(x.getDimSize(3), (*pad)[2], (*pad)[3], w.getDimSize(3), (*stride)[1], (*dilation)[1]);
  if (oh < 1 || ow < 1)
    return emitOptionalError(loc, op, " kernel does not fit the input of shape ", shapeStr(x.getShape()));
  return RankedTensorType::get({x.getDimSize(0), o, oh, ow}, x.getElementType());
}

FailureOr<RankedTensorType> mlir::mindir::rules::poolResultType(std::optional<Location> loc, StringRef op,
                                                                RankedTensorType x, DictionaryAttr attrs) {
  if (x.getRank() != 4) return emitOptionalError(loc, op, " expects an NCHW input, got shape ", shapeStr(x.getShape()));
  if (!x.getElementType().isF32())
    return emitOptionalError(loc, op, " supports float32 tensors, got ", typeStr(x.getElementType()));
  auto kernel = requireInts(loc, op, attrs, "kernel", 2), stride = requireInts(loc, op, attrs, "stride", 2),
       pad = requireInts(loc, op, attrs, "pad", 4);
  if (failed(kernel) || failed(stride) || failed(pad)) return failure();
  // Each window must hold an input element: padding never wins a max nor empties an average.
  if (std::max((*pad)[0], (*pad)[1]) >= (*kernel)[0] || std::max((*pad)[2], (*pad)[3]) >= (*kernel)[1])
    return emitOptionalError(loc, op, " padding ", shapeStr(*pad), " must be smaller than the kernel ",
                             shapeStr(*kernel));
  int64_t oh = windowExtent(x.getDimSize(2), (*pad)[0], (*pad)[1], (*kernel)[0], (*stride)[0], 1);
  int64_t ow = windowExtent(x.getDimSize(3), (*pad)[2], (*pad)[3], (*kernel)[1], (*stride)[1], 1);
  if (oh < 1 || ow < 1)
    return emitOptionalError(loc, op, " window does not fit the input of shape ", shapeStr(x.getShape()));
  return RankedTensorType::get({x.getDimSize(0), x.getDimSize(1), oh, ow}, x.getElementType());
}

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
                                                 SmallVectorImpl<Type> &types, ElementKind kind) {
  if (failed(expectOperands(loc, op, operands, 2))) return failure();
  auto lhs = tensorOperand(operands[0]), rhs = tensorOperand(operands[1]);
  if (lhs.getElementType() != rhs.getElementType())
    return emitOptionalError(loc, op, " operands have different dtypes: ",
                             typeStr(lhs.getElementType()), " vs ",
                             typeStr(rhs.getElementType()), " (insert a Cast)");
  if (failed(checkKind(loc, op, lhs.getElementType(), kind))) return failure();
  auto shape = broadcastAll(loc, op, operands);
  if (failed(shape)) return failure();
  Type elem = returnsBool(kind) ? IntegerType::get(lhs.getContext(), 1) : lhs.getElementType();
  types.push_back(RankedTensorType::get(*shape, elem));
  return success();
}

LogicalResult mlir::mindir::inferUnary(std::optional<Location> loc, StringRef op,
                                       ValueRange operands, SmallVectorImpl<Type> &types,
                                       ElementKind kind) {
  if (failed(expectOperands(loc, op, operands, 1))) return failure();
  auto t = tensorOperand(operands[0]);
  if (failed(checkKind(loc, op, t.getElementType(), kind))) return failure();
  types.push_back(t);
  return success();
}

LogicalResult mlir::mindir::inferPool(std::optional<Location> loc, StringRef op, ValueRange operands,
                                      DictionaryAttr attrs, SmallVectorImpl<Type> &types) {
  if (failed(expectOperands(loc, op, operands, 1))) return failure();
  auto type = poolResultType(loc, op, tensorOperand(operands[0]), attrs);
  if (failed(type)) return failure();
  types.push_back(*type);
  return success();
}

LogicalResult mlir::mindir::inferTriangle(std::optional<Location> loc, StringRef op, ValueRange operands,
                                          DictionaryAttr attrs, SmallVectorImpl<Type> &types) {
  if (failed(expectOperands(loc, op, operands, 1))) return failure();
  if (failed(requireAttr<IntegerAttr>(loc, op, attrs, "diagonal", "int"))) return failure();
  auto t = tensorOperand(operands[0]);
  if (t.getRank() < 2) return emitOptionalError(loc, op, " expects rank >= 2, got shape ", shapeStr(t.getShape()));
  types.push_back(t);
  return success();
}

LogicalResult mlir::mindir::inferReduce(std::optional<Location> loc, StringRef op,
                                        ValueRange operands, DictionaryAttr attrs,
                                        SmallVectorImpl<Type> &types, bool floatOnly,
                                        bool needsElements) {
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
  for (int64_t i = 0; needsElements && i < rank; ++i)
    if (reduced[i] && t.getDimSize(i) == 0)
      return emitOptionalError(loc, op, " cannot reduce the empty axis ", i, " of shape ", shapeStr(t.getShape()));
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced[i]) shape.push_back(t.getDimSize(i));
    else if (keepAttr->getValue()) shape.push_back(1);
  }
  types.push_back(RankedTensorType::get(shape, t.getElementType()));
  return success();
}

LogicalResult MatMulOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         ValueRange operands, DictionaryAttr attrs, RegionRange,
                                         SmallVectorImpl<Type> &types) {
  StringRef op = getOperationName();
  if (failed(expectOperands(loc, op, operands, 2))) return failure();
  auto lhs = tensorOperand(operands[0]), rhs = tensorOperand(operands[1]);
  if (lhs.getElementType() != rhs.getElementType())
    return emitOptionalError(loc, op, " operands have different dtypes: ",
                             typeStr(lhs.getElementType()), " vs ",
                             typeStr(rhs.getElementType()));
  if (failed(checkKind(loc, op, lhs.getElementType(), ElementKind::Numeric))) return failure();
  auto flag = [&](StringRef name) {
    auto b = attrs ? attrs.get(name).dyn_cast_or_null<BoolAttr>() : nullptr;
    return b && b.getValue();
  };
  SmallVector<int64_t> ls(lhs.getShape()), rs(rhs.getShape());
  int64_t rank = lhs.getRank();
  if (rank >= 2 && flag("transpose_a")) std::swap(ls[rank - 1], ls[rank - 2]);
  if (rhs.getRank() >= 2 && flag("transpose_b")) std::swap(rs[rhs.getRank() - 1], rs[rhs.getRank() - 2]);
  if (rank < 2 || rank != rhs.getRank() || ArrayRef<int64_t>(ls).drop_back(2) != ArrayRef<int64_t>(rs).drop_back(2) ||
      ls[rank - 1] != rs[rank - 2])
    return emitOptionalError(loc, op, " cannot multiply shapes ", shapeStr(ls), " and ",
                             shapeStr(rs),
                             " (needs equal rank >= 2, equal batch dims, inner dims equal)");
  SmallVector<int64_t> shape(ls.begin(), ls.end());
  shape.back() = rs.back();
  types.push_back(RankedTensorType::get(shape, lhs.getElementType()));
  return success();
}

LogicalResult Conv2DOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc, ValueRange operands,
                                         DictionaryAttr attrs, RegionRange, SmallVectorImpl<Type> &types) {
  StringRef op = getOperationName();
  if (failed(expectOperands(loc, op, operands, 2))) return failure();
  auto type = conv2dResultType(loc, op, tensorOperand(operands[0]), tensorOperand(operands[1]), attrs);
  if (failed(type)) return failure();
  types.push_back(*type);
  return success();
}

LogicalResult SelectOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc, ValueRange operands,
                                         DictionaryAttr, RegionRange, SmallVectorImpl<Type> &types) {
  StringRef op = getOperationName();
  if (failed(expectOperands(loc, op, operands, 3))) return failure();
  auto cond = tensorOperand(operands[0]), x = tensorOperand(operands[1]), y = tensorOperand(operands[2]);
  if (!cond.getElementType().isInteger(1))
    return emitOptionalError(loc, op, " condition must be bool, got ", typeStr(cond.getElementType()));
  if (x.getElementType() != y.getElementType())
    return emitOptionalError(loc, op, " operands have different dtypes: ", typeStr(x.getElementType()), " vs ",
                             typeStr(y.getElementType()), " (insert a Cast)");
  auto shape = broadcastAll(loc, op, operands);
  if (failed(shape)) return failure();
  types.push_back(RankedTensorType::get(*shape, x.getElementType()));
  return success();
}

LogicalResult BroadcastToOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc, ValueRange operands,
                                              DictionaryAttr attrs, RegionRange, SmallVectorImpl<Type> &types) {
  StringRef op = getOperationName();
  if (failed(expectOperands(loc, op, operands, 1))) return failure();
  auto t = tensorOperand(operands[0]);
  auto shapeAttr = requireAttr<DenseI64ArrayAttr>(loc, op, attrs, "shape", "ints");
  if (failed(shapeAttr)) return failure();
  auto target = shapeAttr->asArrayRef();
  auto shape = broadcastShapes(t.getShape(), target);
  if (!shape || ArrayRef<int64_t>(*shape) != target || llvm::any_of(target, [](int64_t d) { return d < 0; }))
    return emitOptionalError(loc, op, " cannot broadcast shape ", shapeStr(t.getShape()), " to ", shapeStr(target));
  types.push_back(RankedTensorType::get(target, t.getElementType()));
  return success();
}

LogicalResult TileOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc, ValueRange operands,
                                       DictionaryAttr attrs, RegionRange, SmallVectorImpl<Type> &types) {
  StringRef op = getOperationName();
  if (failed(expectOperands(loc, op, operands, 1))) return failure();
  auto t = tensorOperand(operands[0]);
  auto multiples = requireInts(loc, op, attrs, "multiples", t.getRank());
  if (failed(multiples)) return failure();
  SmallVector<int64_t> shape(t.getShape());
  for (int64_t i = 0; i < t.getRank(); ++i) {
    if ((*multiples)[i] < 0) return emitOptionalError(loc, op, " multiples must be >= 0");
    if (!msjit::ir::checkedMul(shape[i], (*multiples)[i], shape[i]))
      return emitOptionalError(loc, op, " multiples ", shapeStr(*multiples), " overflow the shape ",
                               shapeStr(t.getShape()));
  }
  types.push_back(RankedTensorType::get(shape, t.getElementType()));
  return success();
}

LogicalResult StridedSliceOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc, ValueRange operands,
                                               DictionaryAttr attrs, RegionRange, SmallVectorImpl<Type> &types) {
  StringRef op = getOperationName();
  if (failed(expectOperands(loc, op, operands, 1))) return failure();
  auto t = tensorOperand(operands[0]);
  size_t rank = t.getRank();
  auto begin = requireInts(loc, op, attrs, "begin", rank), end = requireInts(loc, op, attrs, "end", rank),
       strides = requireInts(loc, op, attrs, "strides", rank);
  if (failed(begin) || failed(end) || failed(strides)) return failure();
  SmallVector<int64_t> shape;
  for (size_t i = 0; i < rank; ++i) {
    int64_t b = (*begin)[i], e = (*end)[i], s = (*strides)[i], dim = t.getDimSize(i);
    bool ok = s > 0 ? (0 <= b && b <= e && e <= dim) : (s < 0 && -1 <= e && e <= b && b <= dim - 1);
    if (!ok)
      return emitOptionalError(loc, op, " dim ", i, ": begin ", b, ", end ", e, ", stride ", s,
                               " are not normalized for size ", dim);
    // ceil(|e - b| / |s|) without forming e - b + s - 1 or -s, which overflow for huge strides.
    shape.push_back(b == e ? 0 : s > 0 ? (e - b - 1) / s + 1 : 1 - (b - e - 1) / s);
  }
  types.push_back(RankedTensorType::get(shape, t.getElementType()));
  return success();
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc, ValueRange operands,
                                         DictionaryAttr attrs, RegionRange, SmallVectorImpl<Type> &types) {
  StringRef op = getOperationName();
  if (operands.empty()) return emitOptionalError(loc, op, " needs at least one input");
  if (failed(expectOperands(loc, op, operands, operands.size()))) return failure();
  auto axisAttr = requireAttr<IntegerAttr>(loc, op, attrs, "axis", "int");
  if (failed(axisAttr)) return failure();
  auto first = tensorOperand(operands[0]);
  int64_t axis = axisAttr->getInt(), rank = first.getRank();
  if (axis < 0 || axis >= rank) return emitOptionalError(loc, op, " axis ", axis, " is out of range for rank ", rank);
  SmallVector<int64_t> shape(first.getShape());
  shape[axis] = 0;
  for (Value v : operands) {
    auto t = tensorOperand(v);
    bool match = t.getElementType() == first.getElementType() && t.getRank() == rank;
    for (int64_t i = 0; match && i < rank; ++i) match = i == axis || t.getDimSize(i) == first.getDimSize(i);
    if (!match)
      return emitOptionalError(loc, op, " inputs of shapes ", shapeStr(first.getShape()), " and ",
                               shapeStr(t.getShape()), " (", typeStr(first.getElementType()), ", ",
                               typeStr(t.getElementType()), ") cannot be joined on axis ", axis);
    if (!msjit::ir::checkedAdd(shape[axis], t.getDimSize(axis), shape[axis]))
      return emitOptionalError(loc, op, " joined axis ", axis, " overflows");
  }
  types.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc, ValueRange operands,
                                         DictionaryAttr attrs, RegionRange, SmallVectorImpl<Type> &types) {
  StringRef op = getOperationName();
  if (failed(expectOperands(loc, op, operands, 2))) return failure();
  auto params = tensorOperand(operands[0]), indices = tensorOperand(operands[1]);
  if (!indices.getElementType().isSignlessInteger(32) && !indices.getElementType().isSignlessInteger(64))
    return emitOptionalError(loc, op, " indices must be int32 or int64, got ", typeStr(indices.getElementType()));
  auto axisAttr = requireAttr<IntegerAttr>(loc, op, attrs, "axis", "int");
  if (failed(axisAttr)) return failure();
  int64_t axis = axisAttr->getInt();
  if (axis < 0 || axis >= params.getRank())
    return emitOptionalError(loc, op, " axis ", axis, " is out of range for params of shape ", shapeStr(params.getShape()));
  SmallVector<int64_t> shape(params.getShape().take_front(axis));
  shape.append(indices.getShape().begin(), indices.getShape().end());
  shape.append(params.getShape().begin() + axis + 1, params.getShape().end());
  types.push_back(RankedTensorType::get(shape, params.getElementType()));
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
  if (llvm::any_of(target, [](int64_t d) { return d < 0; }))
    return emitOptionalError(loc, op, " shape dims must be >= 0, got ", shapeStr(target));
  int64_t count;
  if (!msjit::ir::checkedElements(target, count) || count != t.getNumElements())
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
