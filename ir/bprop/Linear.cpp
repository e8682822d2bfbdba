//===- Linear.cpp - bprop rules of MatMul, Conv2D and pooling -------------===//
//
// MatMul's adjoints are MatMuls again, with the transpose flags chosen so no
// explicit Transpose is built. Conv2D and pooling map onto their dedicated
// gradient ops (proto/OPS.md "Gradients"), which run on the vendor kernels.
//
//===----------------------------------------------------------------------===//
#include "ir/bprop/BpropUtils.h"

using namespace mlir;
using namespace mlir::mindir;
using namespace mlir::mindir::bprop;

// With C = op(A) op(B), op = transpose of the last two dims when flagged:
//   ta=0: dA = dC op(B)^T              ta=1: dA = op(B) dC^T
//   tb=0: dB = op(A)^T dC              tb=1: dB = dC^T op(A)
// each written as one MatMul on A, B, dC with flags. Batch dims are equal on
// both sides (no broadcasting), so nothing is summed.
void MatMulOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  bool ta = getTransposeA().value_or(false), tb = getTransposeB().value_or(false);
  auto flag = [&](bool on) { return on ? builder.getBoolAttr(true) : BoolAttr(); };
  Value a = getLhs(), b = getRhs();
  dins.push_back(ta ? g.create<MatMulOp>(b, dout, flag(tb), flag(true))
                    : g.create<MatMulOp>(dout, b, flag(false), flag(!tb)));
  dins.push_back(tb ? g.create<MatMulOp>(dout, a, flag(true), flag(ta))
                    : g.create<MatMulOp>(a, dout, flag(!ta), flag(false)));
}

// Conv2D takes float32 only, so its gradient kernels need no casts.
void Conv2DOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  dins.push_back(g.create<Conv2DBackpropInputOp>(dout, getWeight(), getStrideAttr(), getDilationAttr(), getPadAttr(),
                                                 getGroupAttr(), g.shapeOf(getInput())));
  dins.push_back(g.create<Conv2DBackpropFilterOp>(dout, getInput(), getStrideAttr(), getDilationAttr(), getPadAttr(),
                                                  getGroupAttr(), g.shapeOf(getWeight())));
}

// Pooling: MaxPoolGrad sends dout to the first maximum of each window,
// AvgPoolGrad spreads it over the window. Both kernels take float32, so other
// float dtypes go through float32 and back.
void MaxPoolOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  Type f32 = builder.getF32Type(), elem = tensorType(dout).getElementType();
  Value grad = g.create<MaxPoolGradOp>(g.cast(getInput(), f32), g.cast(dout, f32), getKernelAttr(), getStrideAttr(),
                                       getPadAttr());
  dins.push_back(g.cast(grad, elem));
}

void AvgPoolOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  Type f32 = builder.getF32Type(), elem = tensorType(dout).getElementType();
  Value grad = g.create<AvgPoolGradOp>(g.cast(dout, f32), getKernelAttr(), getStrideAttr(), getPadAttr(),
                                       builder.getBoolAttr(getCountIncludePad().value_or(false)),
                                       g.shapeOf(getInput()));
  dins.push_back(g.cast(grad, elem));
}
