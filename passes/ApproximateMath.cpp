//===- ApproximateMath.cpp - msjit-approximate-math -----------------------===//
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "passes/Passes.h"

#define DEBUG_TYPE "msjit-approximate-math"

namespace msjit::passes {

#define GEN_PASS_DEF_APPROXIMATEMATH
#include "passes/Passes.h.inc"

namespace {

struct ApproximateMath : impl::ApproximateMathBase<ApproximateMath> {
  void runOnOperation() override {
    mlir::RewritePatternSet patterns(&getContext());
    mlir::populateMathPolynomialApproximationPatterns(patterns);
    if (mlir::failed(mlir::applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

}  // namespace
}  // namespace msjit::passes
