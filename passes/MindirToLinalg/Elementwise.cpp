//===- Elementwise.cpp - elementwise mindir ops -> linalg.generic ---------===//
//
// One pattern class for every elementwise op: it builds the broadcasting
// linalg.generic and asks a per-op scalar function for the body.
//
//===----------------------------------------------------------------------===//

#include "ir/MindirOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"
#include "passes/MindirToLinalg/Patterns.h"
#include "passes/MindirToLinalg/Utils.h"

using namespace mlir;
namespace mindir = mlir::mindir;

namespace msjit::passes {
namespace {

// Computes one result element from the operands' elements.
using ScalarFn = Value (*)(OpBuilder &, Location, ValueRange, Type resultElement);

bool isFloat(Value v) { return v.getType().isa<FloatType>(); }

Value zeroLike(OpBuilder &b, Location loc, Value v) {
  return b.create<arith::ConstantOp>(loc, b.getZeroAttr(v.getType()));
}

// float16 transcendental math runs in float32 and rounds back, as numpy does
// (and libm has no half-precision entry points).
template <typename MathOp>
Value viaF32(OpBuilder &b, Location loc, Value x) {
  if (!x.getType().isF16()) return b.create<MathOp>(loc, x);
  Value wide = b.create<arith::ExtFOp>(loc, b.getF32Type(), x);
  return b.create<arith::TruncFOp>(loc, x.getType(), b.create<MathOp>(loc, wide));
}

template <typename FloatOp, typename IntOp>
Value binary(OpBuilder &b, Location loc, ValueRange a, Type) {
  if (isFloat(a[0])) return b.create<FloatOp>(loc, a[0], a[1]);
  return b.create<IntOp>(loc, a[0], a[1]);
}

Value divide(OpBuilder &b, Location loc, ValueRange a, Type) {
  return b.create<arith::DivFOp>(loc, a[0], a[1]);
}

Value negate(OpBuilder &b, Location loc, ValueRange a, Type) {
  if (isFloat(a[0])) return b.create<arith::NegFOp>(loc, a[0]);
  return b.create<arith::SubIOp>(loc, zeroLike(b, loc, a[0]), a[0]);
}

Value relu(OpBuilder &b, Location loc, ValueRange a, Type t) {
  return binary<arith::MaxFOp, arith::MaxSIOp>(b, loc, {a[0], zeroLike(b, loc, a[0])}, t);
}

template <typename MathOp>
Value unaryMath(OpBuilder &b, Location loc, ValueRange a, Type) {
  return viaF32<MathOp>(b, loc, a[0]);
}

Value sigmoid(OpBuilder &b, Location loc, ValueRange a, Type) {
  Value one = b.create<arith::ConstantOp>(loc, b.getFloatAttr(a[0].getType(), 1.0));
  Value e = viaF32<math::ExpOp>(b, loc, b.create<arith::NegFOp>(loc, a[0]));
  return b.create<arith::DivFOp>(loc, one, b.create<arith::AddFOp>(loc, one, e));
}

Value cast(OpBuilder &b, Location loc, ValueRange a, Type resultElement) {
  return convertScalar(b, loc, a[0], resultElement);
}

Value power(OpBuilder &b, Location loc, ValueRange a, Type) {
  if (!a[0].getType().isF16()) return b.create<math::PowFOp>(loc, a[0], a[1]);
  Type f32 = b.getF32Type();
  Value x = b.create<arith::ExtFOp>(loc, f32, a[0]), y = b.create<arith::ExtFOp>(loc, f32, a[1]);
  return b.create<arith::TruncFOp>(loc, a[0].getType(), b.create<math::PowFOp>(loc, x, y));
}

Value absolute(OpBuilder &b, Location loc, ValueRange a, Type) {
  if (isFloat(a[0])) return b.create<math::AbsFOp>(loc, a[0]);
  Value negative = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, a[0], zeroLike(b, loc, a[0]));
  return b.create<arith::SelectOp>(loc, negative, negate(b, loc, a, a[0].getType()), a[0]);
}

Value rsqrt(OpBuilder &b, Location loc, ValueRange a, Type) {
  Value one = b.create<arith::ConstantOp>(loc, b.getFloatAttr(a[0].getType(), 1.0));
  return b.create<arith::DivFOp>(loc, one, viaF32<math::SqrtOp>(b, loc, a[0]));
}

// Float predicates are ordered (false on NaN) except "not equal", as in numpy.
template <arith::CmpFPredicate F, arith::CmpIPredicate I>
Value compare(OpBuilder &b, Location loc, ValueRange a, Type) {
  if (isFloat(a[0])) return b.create<arith::CmpFOp>(loc, F, a[0], a[1]);
  return b.create<arith::CmpIOp>(loc, I, a[0], a[1]);
}

template <typename LogicalOp>
Value logical(OpBuilder &b, Location loc, ValueRange a, Type) {
  return b.create<LogicalOp>(loc, a[0], a[1]);
}

Value logicalNot(OpBuilder &b, Location loc, ValueRange a, Type) {
  Value one = b.create<arith::ConstantOp>(loc, b.getBoolAttr(true));
  return b.create<arith::XOrIOp>(loc, a[0], one);
}

Value select(OpBuilder &b, Location loc, ValueRange a, Type) {
  return b.create<arith::SelectOp>(loc, a[0], a[1], a[2]);
}

class ElementwiseLowering : public ConversionPattern {
 public:
  ElementwiseLowering(MLIRContext *ctx, StringRef opName, ScalarFn fn)
      : ConversionPattern(opName, /*benefit=*/1, ctx), fn_(fn) {}

  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = op->getResult(0).getType().cast<RankedTensorType>();
    SmallVector<AffineMap> maps;
    for (Value v : operands) maps.push_back(broadcastMap(v.getType().cast<RankedTensorType>(), resultType));
    maps.push_back(rewriter.getMultiDimIdentityMap(resultType.getRank()));
    SmallVector<utils::IteratorType> iterators(resultType.getRank(), utils::IteratorType::parallel);
    ScalarFn fn = fn_;
    auto generic = rewriter.create<linalg::GenericOp>(
        op->getLoc(), resultType, operands, emptyTensor(rewriter, op->getLoc(), resultType), maps,
        iterators, [&](OpBuilder &b, Location loc, ValueRange args) {
          Value result = fn(b, loc, args.drop_back(), resultType.getElementType());
          b.create<linalg::YieldOp>(loc, result);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }

 private:
  ScalarFn fn_;
};

}  // namespace

void populateElementwisePatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  auto add = [&](StringRef name, ScalarFn fn) { patterns.add<ElementwiseLowering>(ctx, name, fn); };
  add(mindir::AddOp::getOperationName(), binary<arith::AddFOp, arith::AddIOp>);
  add(mindir::SubOp::getOperationName(), binary<arith::SubFOp, arith::SubIOp>);
  add(mindir::MulOp::getOperationName(), binary<arith::MulFOp, arith::MulIOp>);
  add(mindir::DivOp::getOperationName(), divide);
  add(mindir::MaximumOp::getOperationName(), binary<arith::MaxFOp, arith::MaxSIOp>);
  add(mindir::MinimumOp::getOperationName(), binary<arith::MinFOp, arith::MinSIOp>);
  add(mindir::NegOp::getOperationName(), negate);
  add(mindir::ReLUOp::getOperationName(), relu);
  add(mindir::ExpOp::getOperationName(), unaryMath<math::ExpOp>);
  add(mindir::LogOp::getOperationName(), unaryMath<math::LogOp>);
  add(mindir::SqrtOp::getOperationName(), unaryMath<math::SqrtOp>);
  add(mindir::TanhOp::getOperationName(), unaryMath<math::TanhOp>);
  add(mindir::SigmoidOp::getOperationName(), sigmoid);
  add(mindir::CastOp::getOperationName(), cast);
  add(mindir::PowOp::getOperationName(), power);
  add(mindir::AbsOp::getOperationName(), absolute);
  add(mindir::RsqrtOp::getOperationName(), rsqrt);
  add(mindir::SinOp::getOperationName(), unaryMath<math::SinOp>);
  add(mindir::CosOp::getOperationName(), unaryMath<math::CosOp>);
  add(mindir::ErfOp::getOperationName(), unaryMath<math::ErfOp>);
  using F = arith::CmpFPredicate;
  using I = arith::CmpIPredicate;
  add(mindir::EqualOp::getOperationName(), compare<F::OEQ, I::eq>);
  add(mindir::NotEqualOp::getOperationName(), compare<F::UNE, I::ne>);
  add(mindir::LessOp::getOperationName(), compare<F::OLT, I::slt>);
  add(mindir::LessEqualOp::getOperationName(), compare<F::OLE, I::sle>);
  add(mindir::GreaterOp::getOperationName(), compare<F::OGT, I::sgt>);
  add(mindir::GreaterEqualOp::getOperationName(), compare<F::OGE, I::sge>);
  add(mindir::LogicalAndOp::getOperationName(), logical<arith::AndIOp>);
  add(mindir::LogicalOrOp::getOperationName(), logical<arith::OrIOp>);
  add(mindir::LogicalNotOp::getOperationName(), logicalNot);
  add(mindir::SelectOp::getOperationName(), select);
}

}  // namespace msjit::passes
