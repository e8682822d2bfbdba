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
}

}  // namespace msjit::passes
