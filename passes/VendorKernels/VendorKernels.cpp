//===- VendorKernels.cpp - bufferize vendor-kernel ops into runtime calls --===//
#include "passes/VendorKernels/VendorKernels.h"

#include "ir/MindirOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::bufferization;
namespace mindir = mlir::mindir;

namespace msjit::passes {
namespace {

std::string dtypeSuffix(Type t) { return t.isF64() ? "f64" : "f32"; }

// The kernel's name and its trailing i64 arguments, per op.
struct KernelCall {
  std::string name;
  SmallVector<int64_t> scalars;
};

template <typename ConvOp>
KernelCall convCall(ConvOp conv, const char *name) {
  KernelCall call{name, {}};
  call.scalars.append(conv.getStride().begin(), conv.getStride().end());
  call.scalars.append(conv.getDilation().begin(), conv.getDilation().end());
  call.scalars.append(conv.getPad().begin(), conv.getPad().end());
  call.scalars.push_back(conv.getGroup());
  return call;
}

template <typename PoolOp>
KernelCall poolCall(PoolOp pool, const char *name) {
  KernelCall call{name, {}};
  call.scalars.append(pool.getKernel().begin(), pool.getKernel().end());
  call.scalars.append(pool.getStride().begin(), pool.getStride().end());
  call.scalars.append(pool.getPad().begin(), pool.getPad().end());
  return call;
}

KernelCall withFlag(KernelCall call, bool flag) {
  call.scalars.push_back(flag);
  return call;
}

KernelCall describe(Operation *op) {
  Type elem = op->getResult(0).getType().cast<ShapedType>().getElementType();
  return llvm::TypeSwitch<Operation *, KernelCall>(op)
      .Case([&](mindir::MatMulOp mm) {
        return KernelCall{"msrt_kernel_matmul_" + dtypeSuffix(elem),
                          {mm.getTransposeA().value_or(false), mm.getTransposeB().value_or(false)}};
      })
      .Case([](mindir::Conv2DOp op) { return convCall(op, "msrt_kernel_conv2d_f32"); })
      .Case([](mindir::Conv2DBackpropInputOp op) { return convCall(op, "msrt_kernel_conv2d_backprop_input_f32"); })
      .Case([](mindir::Conv2DBackpropFilterOp op) { return convCall(op, "msrt_kernel_conv2d_backprop_filter_f32"); })
      .Case([](mindir::MaxPoolOp op) { return poolCall(op, "msrt_kernel_max_pool2d_f32"); })
      .Case([](mindir::MaxPoolGradOp op) { return poolCall(op, "msrt_kernel_max_pool2d_grad_f32"); })
      .Case([](mindir::AvgPoolOp op) {
        return withFlag(poolCall(op, "msrt_kernel_avg_pool2d_f32"), op.getCountIncludePad().value_or(false));
      })
      .Case([](mindir::AvgPoolGradOp op) {
        return withFlag(poolCall(op, "msrt_kernel_avg_pool2d_grad_f32"), op.getCountIncludePad());
      });
}

// memref<?x...x?xT, strided<[?, ...], offset: ?>>: one kernel signature per
// rank and dtype, whatever layout bufferization chose for the operand.
Value castToDynamic(OpBuilder &b, Location loc, Value buffer) {
  auto type = buffer.getType().cast<MemRefType>();
  SmallVector<int64_t> dynamic(type.getRank(), ShapedType::kDynamic);
  auto layout = StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, dynamic);
  return b.create<memref::CastOp>(loc, MemRefType::get(dynamic, type.getElementType(), layout), buffer);
}

FlatSymbolRefAttr declareKernel(Operation *op, StringRef name, TypeRange argTypes) {
  auto module = op->getParentOfType<ModuleOp>();
  if (!module.lookupSymbol(name)) {
    OpBuilder b(module.getBodyRegion());
    auto func = b.create<func::FuncOp>(module.getLoc(), name, b.getFunctionType(argTypes, {}));
    func.setPrivate();
    func->setAttr("llvm.emit_c_interface", b.getUnitAttr());
  }
  return SymbolRefAttr::get(op->getContext(), name);
}

template <typename OpTy>
struct KernelCallModel : public BufferizableOpInterface::ExternalModel<KernelCallModel<OpTy>, OpTy> {
  bool bufferizesToAllocation(Operation *, OpResult) const { return true; }
  bool bufferizesToMemoryRead(Operation *, OpOperand &, const AnalysisState &) const { return true; }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &, const AnalysisState &) const { return false; }
  SmallVector<OpResult> getAliasingOpResult(Operation *, OpOperand &, const AnalysisState &) const { return {}; }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter, const BufferizationOptions &options) const {
    Location loc = op->getLoc();
    SmallVector<Value> args;
    for (Value operand : op->getOperands()) {
      FailureOr<Value> buffer = getBuffer(rewriter, operand, options);
      if (failed(buffer)) return failure();
      args.push_back(castToDynamic(rewriter, loc, *buffer));
    }
    auto resultType = op->getResult(0).getType().cast<RankedTensorType>();
    Value result = rewriter.create<memref::AllocOp>(
        loc, MemRefType::get(resultType.getShape(), resultType.getElementType()), rewriter.getI64IntegerAttr(64));
    args.push_back(castToDynamic(rewriter, loc, result));
    KernelCall call = describe(op);
    for (int64_t v : call.scalars) args.push_back(rewriter.create<arith::ConstantIntOp>(loc, v, 64));
    rewriter.create<func::CallOp>(loc, declareKernel(op, call.name, ValueRange(args).getTypes()), TypeRange{}, args);
    replaceOpWithBufferizedValues(rewriter, op, result);
    return success();
  }
};

}  // namespace

bool isVendorMatMul(Operation *op) {
  auto mm = dyn_cast<mindir::MatMulOp>(op);
  if (!mm) return false;
  Type elem = mm.getType().cast<ShapedType>().getElementType();
  if (!elem.isF32() && !elem.isF64()) return false;
  // An empty operand or result leaves BLAS nothing to do: linalg's zero-filled product is the answer.
  for (Value v : {mm.getLhs(), mm.getRhs(), mm.getResult()})
    if (auto t = v.getType().dyn_cast<ShapedType>(); t && t.hasStaticShape() && t.getNumElements() == 0) return false;
  return true;
}

bool usesVendorKernel(Operation *op) {
  if (isa<mindir::Conv2DOp, mindir::Conv2DBackpropInputOp, mindir::Conv2DBackpropFilterOp, mindir::MaxPoolOp,
          mindir::MaxPoolGradOp, mindir::AvgPoolOp, mindir::AvgPoolGradOp>(op))
    return true;
  return isVendorMatMul(op) && op->getResult(0).getType().cast<ShapedType>().getRank() == 3;
}

void registerVendorKernelModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, mindir::MindirDialect *) {
    mindir::MatMulOp::attachInterface<KernelCallModel<mindir::MatMulOp>>(*ctx);
    mindir::Conv2DOp::attachInterface<KernelCallModel<mindir::Conv2DOp>>(*ctx);
    mindir::MaxPoolOp::attachInterface<KernelCallModel<mindir::MaxPoolOp>>(*ctx);
    mindir::AvgPoolOp::attachInterface<KernelCallModel<mindir::AvgPoolOp>>(*ctx);
    mindir::Conv2DBackpropInputOp::attachInterface<KernelCallModel<mindir::Conv2DBackpropInputOp>>(*ctx);
    mindir::Conv2DBackpropFilterOp::attachInterface<KernelCallModel<mindir::Conv2DBackpropFilterOp>>(*ctx);
    mindir::MaxPoolGradOp::attachInterface<KernelCallModel<mindir::MaxPoolGradOp>>(*ctx);
    mindir::AvgPoolGradOp::attachInterface<KernelCallModel<mindir::AvgPoolGradOp>>(*ctx);
  });
}

}  // namespace msjit::passes
