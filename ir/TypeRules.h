//===- TypeRules.h - building blocks of the mindir type rules --*- C++ -*-===//
//
// Shared by the files holding type rules (MindirOps.cpp, GradKernelOps.cpp).
// Each check reports a readable error at `loc` naming the op `op` and fails.
//
//===----------------------------------------------------------------------===//
#ifndef MSJIT_IR_TYPERULES_H
#define MSJIT_IR_TYPERULES_H

#include <optional>
#include <string>

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"

namespace mlir::mindir::rules {

std::string shapeStr(ArrayRef<int64_t> shape);
std::string typeStr(Type t);

inline RankedTensorType tensorOperand(Value v) { return v.getType().dyn_cast<RankedTensorType>(); }

// Exactly `n` operands, all statically shaped tensors.
LogicalResult expectOperands(std::optional<Location> loc, StringRef op, ValueRange operands, size_t n);

// The attribute `name` of type AttrT, or a diagnostic naming it and its `kind`.
template <typename AttrT>
FailureOr<AttrT> requireAttr(std::optional<Location> loc, StringRef op, DictionaryAttr attrs, StringRef name,
                             StringRef kind) {
  auto attr = attrs ? attrs.get(name).dyn_cast_or_null<AttrT>() : nullptr;
  if (!attr) return emitOptionalError(loc, op, " requires attribute '", name, "' (", kind, ")");
  return attr;
}

// An ints attribute with exactly `n` entries.
FailureOr<ArrayRef<int64_t>> requireInts(std::optional<Location> loc, StringRef op, DictionaryAttr attrs,
                                         StringRef name, size_t n);

// The result type of Conv2D on input type `x` and weight type `w`, and of
// MaxPool/AvgPool on `x`, with the forward op's attributes in `attrs`: the
// forward rules, and what a gradient op checks its dy against.
FailureOr<RankedTensorType> conv2dResultType(std::optional<Location> loc, StringRef op, RankedTensorType x,
                                             RankedTensorType w, DictionaryAttr attrs);
FailureOr<RankedTensorType> poolResultType(std::optional<Location> loc, StringRef op, RankedTensorType x,
                                           DictionaryAttr attrs);

}  // namespace mlir::mindir::rules

#endif  // MSJIT_IR_TYPERULES_H
