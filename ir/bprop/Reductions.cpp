//===- Reductions.cpp - bprop rules of ReduceSum/Mean/Max/Min -------------===//
//
// Every rule first brings dout (and for Max/Min the result) back to the
// keep_dims shape, so it broadcasts against the operand along the reduced
// axes.
//
//===----------------------------------------------------------------------===//
#include "ir/bprop/BpropUtils.h"

using namespace mlir;
using namespace mlir::mindir;
using namespace mlir::mindir::bprop;

namespace {

// `v` (of the reduction's result shape) reshaped to the keep_dims shape.
template <typename ReduceOpT>
Value withKeptDims(GradBuilder &g, ReduceOpT op, Value v) {
  return g.reshape(v, keepDimsShape(tensorType(op.getOperand()).getShape(), op.getAxes()));
}

// dout copied to every position of its reduction window.
template <typename ReduceOpT>
Value broadcastBack(GradBuilder &g, ReduceOpT op, Value dout) {
  return g.create<BroadcastToOp>(withKeptDims(g, op, dout), tensorType(op.getOperand()).getShape());
}

// Max/Min: dout goes to the positions equal to the result, split evenly
// among ties (mask / number of ties), as numpy-style eager rules do.
template <typename ReduceOpT>
Value extremumGrad(GradBuilder &g, ReduceOpT op, Value dout) {
  Value x = op.getOperand();
  Type elem = tensorType(x).getElementType();
  Value mask = g.create<CastOp>(g.create<EqualOp>(x, withKeptDims(g, op, op.getResult())), elem);
  Value ties = g.create<ReduceSumOp>(mask, op.getAxes(), /*keep_dims=*/true);
  return g.create<MulOp>(mask, g.create<DivOp>(withKeptDims(g, op, dout), ties));
}

}  // namespace

void ReduceSumOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  dins.push_back(broadcastBack(g, *this, dout));
}

void ReduceMeanOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  ArrayRef<int64_t> shape = tensorType(getOperand()).getShape();
  int64_t count = 1;
  for (int64_t i = 0; i < static_cast<int64_t>(shape.size()); ++i)
    if (getAxes().empty() || llvm::is_contained(getAxes(), i)) count *= shape[i];
  // Scale before broadcasting: the reduced tensor is the smaller one.
  Value scale = g.scalar(dout, 1.0 / static_cast<double>(std::max<int64_t>(count, 1)));
  dins.push_back(broadcastBack(g, *this, g.create<MulOp>(dout, scale)));
}

void ReduceMaxOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  dins.push_back(extremumGrad(g, *this, dout));
}

void ReduceMinOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  dins.push_back(extremumGrad(g, *this, dout));
}
