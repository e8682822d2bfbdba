//===- BpropUtils.h - helpers shared by the mindir bprop rules --*- C++ -*-===//
//
// The bprop rules (BpropOpInterface, see ir/MindirInterfaces.td) build their
// backward graphs from mindir ops only, so the backward goes through the same
// type rules, optimizations and lowerings as the forward. These helpers are
// the pieces several rules share.
//
//===----------------------------------------------------------------------===//
#ifndef MSJIT_IR_BPROP_BPROPUTILS_H
#define MSJIT_IR_BPROP_BPROPUTILS_H

#include "ir/MindirOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::mindir::bprop {

RankedTensorType tensorType(Value v);
bool isFloatTensor(Value v);

// A mindir.Constant of `type` with every element `value` (a splat
// DenseElementsAttr in the element type: float, integer or bool).
Value splat(OpBuilder &b, Location loc, RankedTensorType type, double value);
Value zerosLike(OpBuilder &b, Location loc, Value like);
Value onesLike(OpBuilder &b, Location loc, Value like);

// Same elements in `shape` (mindir.Reshape), or `v` itself when it has it.
Value reshapeTo(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape);

// The adjoint of a numpy broadcast: sums `grad` over the dims that
// broadcasting `target` to grad's shape added or stretched from 1, with
// ReduceSum(keep_dims) then Reshape to `target`.
Value sumToShape(OpBuilder &b, Location loc, Value grad, RankedTensorType target);

// `shape` with every axis in `axes` set to 1; empty `axes` means all of them
// (the reductions' convention).
SmallVector<int64_t> keepDimsShape(ArrayRef<int64_t> shape, ArrayRef<int64_t> axes);

// The rules' shorthand: builder and location bound once, so every backward op
// carries the forward op's location (diagnostics name the user's line).
class GradBuilder {
 public:
  GradBuilder(OpBuilder &b, Location loc) : b_(b), loc_(loc) {}

  // A mindir op with its inferred result type, as a Value.
  template <typename OpT, typename... Args>
  Value create(Args &&...args) {
    return b_.create<OpT>(loc_, std::forward<Args>(args)...)->getResult(0);
  }
  // A rank-0 constant of like's element type: broadcasts against any tensor.
  Value scalar(Value like, double value) {
    return splat(b_, loc_, RankedTensorType::get({}, tensorType(like).getElementType()), value);
  }
  Value zeros(RankedTensorType type) { return splat(b_, loc_, type, 0.0); }
  Value reshape(Value v, ArrayRef<int64_t> shape) { return reshapeTo(b_, loc_, v, shape); }
  Value sumTo(Value grad, Value like) { return sumToShape(b_, loc_, grad, tensorType(like)); }
  // `v`'s shape as an ints attribute (the gradient kernels' input_shape / filter_shape).
  DenseI64ArrayAttr shapeOf(Value v) { return b_.getDenseI64ArrayAttr(tensorType(v).getShape()); }
  // mindir.Cast to element type `elem`, or `v` itself when it has it.
  Value cast(Value v, Type elem) {
    return tensorType(v).getElementType() == elem ? v : create<CastOp>(v, elem);
  }

  OpBuilder &builder() { return b_; }

 private:
  OpBuilder &b_;
  Location loc_;
};

}  // namespace mlir::mindir::bprop

#endif  // MSJIT_IR_BPROP_BPROPUTILS_H
