//===- GradKernels.cpp - bprop rules of the Conv2D/AvgPool gradient ops ---===//
//
// The gradient kernels are linear in dy (Conv2DBackprop* bilinear with their
// other operand), so their adjoints are the forward op and each other; this is
// what second derivatives through Conv2D and AvgPool need. MaxPoolGrad has no
// rule: its routing is piecewise constant in x.
//
//===----------------------------------------------------------------------===//
#include "ir/bprop/BpropUtils.h"

using namespace mlir;
using namespace mlir::mindir;
using namespace mlir::mindir::bprop;

// dx = J^T dy, so <g, dx> = <Conv2D(g, w), dy>: adjoints Conv2D(g, w) and dW(dy, g).
void Conv2DBackpropInputOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  dins.push_back(g.create<Conv2DOp>(dout, getWeight(), getStrideAttr(), getDilationAttr(), getPadAttr(), getGroupAttr()));
  dins.push_back(g.create<Conv2DBackpropFilterOp>(getDy(), dout, getStrideAttr(), getDilationAttr(), getPadAttr(),
                                                  getGroupAttr(), g.shapeOf(getWeight())));
}

// dW = J^T dy, so <G, dW> = <Conv2D(x, G), dy>: adjoints Conv2D(x, G) and dX(dy, G).
void Conv2DBackpropFilterOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  dins.push_back(g.create<Conv2DOp>(getInput(), dout, getStrideAttr(), getDilationAttr(), getPadAttr(), getGroupAttr()));
  dins.push_back(g.create<Conv2DBackpropInputOp>(getDy(), dout, getStrideAttr(), getDilationAttr(), getPadAttr(),
                                                 getGroupAttr(), g.shapeOf(getInput())));
}

// AvgPoolGrad is the transpose of AvgPool (same divisors), so its adjoint is AvgPool.
void AvgPoolGradOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  dins.push_back(g.create<AvgPoolOp>(dout, getKernelAttr(), getStrideAttr(), getPadAttr(), getCountIncludePadAttr()));
}
