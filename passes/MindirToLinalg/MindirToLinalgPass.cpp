//===- MindirToLinalgPass.cpp - convert-mindir-to-linalg ------------------===//
#include "ir/MindirOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"
#include "passes/MindirToLinalg/Patterns.h"
#include "passes/Passes.h"
#include "passes/VendorKernels/VendorKernels.h"

#define DEBUG_TYPE "convert-mindir-to-linalg"

namespace msjit::passes {

#define GEN_PASS_DEF_CONVERTMINDIRTOLINALG
#include "passes/Passes.h.inc"

namespace {

struct ConvertMindirToLinalg : impl::ConvertMindirToLinalgBase<ConvertMindirToLinalg> {
  void runOnOperation() override {
    mlir::MLIRContext *ctx = &getContext();
    mlir::ConversionTarget target(*ctx);
    // Vendor-kernel ops stay as they are until bufferization (VendorKernels.h).
    target.addDynamicallyLegalDialect<mlir::mindir::MindirDialect>(
        [](mlir::Operation *op) { return usesVendorKernel(op); });
    target.addLegalDialect<mlir::arith::ArithDialect, mlir::linalg::LinalgDialect,
                           mlir::math::MathDialect, mlir::tensor::TensorDialect,
                           mlir::func::FuncDialect, mlir::scf::SCFDialect>();
    mlir::RewritePatternSet patterns(ctx);
    populateElementwisePatterns(patterns);
    populateLinearPatterns(patterns);
    populateReductionPatterns(patterns);
    populateDataMovementPatterns(patterns);
    populateControlFlowPatterns(patterns);
    if (mlir::failed(mlir::applyPartialConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};

}  // namespace
}  // namespace msjit::passes
