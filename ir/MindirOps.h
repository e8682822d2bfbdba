//===- MindirOps.h - the mindir dialect and its ops -------------*- C++ -*-===//
#ifndef MSJIT_IR_MINDIROPS_H
#define MSJIT_IR_MINDIROPS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>

namespace mlir::mindir {

// The dtypes an elementwise op accepts; the *Compare kinds return bool.
enum class ElementKind { Numeric, Float, Bool, Any, AnyCompare, NumericCompare };

// Type rules shared by op classes (declared in MindirOps.td). Each reports a
// readable error at `loc` (the node's name and source line) and fails.
LogicalResult inferBroadcastBinary(std::optional<Location> loc, StringRef op,
                                   ValueRange operands, SmallVectorImpl<Type> &types,
                                   ElementKind kind);
LogicalResult inferUnary(std::optional<Location> loc, StringRef op, ValueRange operands,
                         SmallVectorImpl<Type> &types, ElementKind kind);
LogicalResult inferPool(std::optional<Location> loc, StringRef op, ValueRange operands,
                        DictionaryAttr attrs, SmallVectorImpl<Type> &types);
LogicalResult inferTriangle(std::optional<Location> loc, StringRef op, ValueRange operands,
                            DictionaryAttr attrs, SmallVectorImpl<Type> &types);
LogicalResult inferReduce(std::optional<Location> loc, StringRef op, ValueRange operands,
                          DictionaryAttr attrs, SmallVectorImpl<Type> &types,
                          bool floatOnly, bool needsElements);

// numpy broadcasting of two static shapes; nullopt when incompatible.
std::optional<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b);

}  // namespace mlir::mindir

#include "ir/MindirDialect.h.inc"
#include "ir/MindirInterfaces.h.inc"

#define GET_OP_CLASSES
#include "ir/MindirOps.h.inc"

#endif  // MSJIT_IR_MINDIROPS_H
