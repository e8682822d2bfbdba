//===- Elementwise.cpp - bprop rules of elementwise ops, Select and Cast --===//
//
// Binary ops (and Select) broadcast, so each operand's share of the
// full-shape gradient is summed back to the operand's own shape. Unary rules
// reuse the forward result where the derivative is a function of it.
//
//===----------------------------------------------------------------------===//
#include <cmath>

#include "ir/bprop/BpropUtils.h"

using namespace mlir;
using namespace mlir::mindir;
using namespace mlir::mindir::bprop;

namespace {

// Appends the adjoints of lhs and rhs from their full-shape gradients.
void appendBinary(GradBuilder &g, Operation *op, Value dlhs, Value drhs, SmallVectorImpl<Value> &dins) {
  dins.push_back(g.sumTo(dlhs, op->getOperand(0)));
  dins.push_back(g.sumTo(drhs, op->getOperand(1)));
}

// Routes dout by a bool mask: to the first operand where it holds, to the
// second elsewhere (Maximum, Minimum, Select), each summed back.
void appendRouted(GradBuilder &g, Value mask, Value dout, Value first, Value second,
                  SmallVectorImpl<Value> &dins) {
  Value zero = g.scalar(dout, 0.0);
  dins.push_back(g.sumTo(g.create<SelectOp>(mask, dout, zero), first));
  dins.push_back(g.sumTo(g.create<SelectOp>(mask, zero, dout), second));
}

}  // namespace

void AddOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  appendBinary(g, *this, dout, dout, dins);
}

void SubOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  dins.push_back(g.sumTo(dout, getLhs()));
  // Negate after summing: the reduced tensor is the smaller one.
  dins.push_back(g.create<NegOp>(g.sumTo(dout, getRhs())));
}

void MulOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  appendBinary(g, *this, g.create<MulOp>(dout, getRhs()), g.create<MulOp>(dout, getLhs()), dins);
}

// d(x/y) = dout/y, -dout*x/y^2 = -(dout/y)*(x/y): the second reuses both the
// first and the forward result.
void DivOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  Value dx = g.create<DivOp>(dout, getRhs());
  appendBinary(g, *this, dx, g.create<NegOp>(g.create<MulOp>(dx, getResult())), dins);
}

// d(x^y)/dx = y*x^(y-1); d(x^y)/dy = log(x)*x^y where x > 0, and 0 elsewhere.
// Log reads 1 where x <= 0, so neither this rule nor its own gradient
// (higher orders) ever evaluates log or 1/x there.
void PowOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  Value x = getLhs(), y = getRhs();
  Value dx = g.create<MulOp>(dout, g.create<MulOp>(y, g.create<PowOp>(x, g.create<SubOp>(y, g.scalar(y, 1.0)))));
  Value zero = g.scalar(x, 0.0), positive = g.create<GreaterOp>(x, zero);
  Value logX = g.create<LogOp>(g.create<SelectOp>(positive, x, g.scalar(x, 1.0)));
  Value dy = g.create<SelectOp>(positive, g.create<MulOp>(dout, g.create<MulOp>(logX, getResult())), zero);
  appendBinary(g, *this, dx, dy, dins);
}

// Ties go to x: Maximum where x >= y, Minimum where x <= y.
void MaximumOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  appendRouted(g, g.create<GreaterEqualOp>(getLhs(), getRhs()), dout, getLhs(), getRhs(), dins);
}

void MinimumOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  appendRouted(g, g.create<LessEqualOp>(getLhs(), getRhs()), dout, getLhs(), getRhs(), dins);
}

void SelectOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  dins.push_back(Value());  // the condition is bool
  appendRouted(g, getCond(), dout, getX(), getY(), dins);
}

void NegOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  dins.push_back(GradBuilder(builder, getLoc()).create<NegOp>(dout));
}

void ReLUOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  Value zero = g.scalar(dout, 0.0);
  dins.push_back(g.create<SelectOp>(g.create<GreaterOp>(getOperand(), zero), dout, zero));
}

// sign(x) * dout, with sign(0) = 0.
void AbsOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  Value x = getOperand(), zero = g.scalar(dout, 0.0);
  Value negative = g.create<SelectOp>(g.create<LessOp>(x, zero), g.create<NegOp>(dout), zero);
  dins.push_back(g.create<SelectOp>(g.create<GreaterOp>(x, zero), dout, negative));
}

void ExpOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  dins.push_back(GradBuilder(builder, getLoc()).create<MulOp>(dout, getResult()));
}

void LogOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  dins.push_back(GradBuilder(builder, getLoc()).create<DivOp>(dout, getOperand()));
}

// d sqrt(x) = 0.5 / sqrt(x)
void SqrtOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  dins.push_back(g.create<DivOp>(g.create<MulOp>(dout, g.scalar(dout, 0.5)), getResult()));
}

// d x^-1/2 = -0.5 x^-3/2 = -0.5 y^3
void RsqrtOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  Value y = getResult();
  Value y3 = g.create<MulOp>(y, g.create<MulOp>(y, y));
  dins.push_back(g.create<MulOp>(g.create<MulOp>(dout, g.scalar(dout, -0.5)), y3));
}

// d sigmoid = y (1 - y)
void SigmoidOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  Value y = getResult();
  dins.push_back(g.create<MulOp>(g.create<MulOp>(dout, y), g.create<SubOp>(g.scalar(y, 1.0), y)));
}

// d tanh = 1 - y^2
void TanhOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  Value y = getResult();
  dins.push_back(g.create<MulOp>(dout, g.create<SubOp>(g.scalar(y, 1.0), g.create<MulOp>(y, y))));
}

void SinOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  dins.push_back(g.create<MulOp>(dout, g.create<CosOp>(getOperand())));
}

void CosOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  dins.push_back(g.create<MulOp>(dout, g.create<NegOp>(g.create<SinOp>(getOperand()))));
}

// d erf = 2/sqrt(pi) e^(-x^2)
void ErfOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  Value x = getOperand();
  Value gauss = g.create<ExpOp>(g.create<NegOp>(g.create<MulOp>(x, x)));
  Value scaled = g.create<MulOp>(dout, g.scalar(dout, 2.0 / std::sqrt(M_PI)));
  dins.push_back(g.create<MulOp>(scaled, gauss));
}

// Back to the operand's dtype; integer and bool operands get no gradient.
void CastOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  Value x = getOperand();
  if (!isFloatTensor(x)) {
    dins.push_back(Value());
    return;
  }
  dins.push_back(GradBuilder(builder, getLoc()).cast(dout, tensorType(x).getElementType()));
}
