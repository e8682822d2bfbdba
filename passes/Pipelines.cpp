//===- Pipelines.cpp - the O0/O1 pipelines --------------------------------===//
#include "passes/Pipelines.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "passes/Passes.h"
#include "passes/VendorKernels/VendorKernels.h"

namespace msjit::passes {

void buildAutodiffPipeline(mlir::OpPassManager &pm, const PipelineOptions &options) {
  // The backward is plain mindir, optimized and lowered with the forward.
  pm.addPass(createAutodiff());
  // The backward reads forward values; CSE merges what both compute (masks, constants).
  pm.addPass(mlir::createCSEPass());
  if (options.optimizes()) pm.addNestedPass<mlir::func::FuncOp>(createRematerialize());
}

void buildTensorPipeline(mlir::OpPassManager &pm, const PipelineOptions &options) {
  // Every mindir op becomes linalg/tensor/arith/math; nothing mindir survives.
  pm.addPass(createConvertMindirToLinalg());
  if (!options.optimizes()) return;
  // Fold constants and trivial reshapes so fusion sees longer chains.
  pm.addPass(mlir::createCanonicalizerPass());
  // Operator fusion: producer/consumer elementwise generics become one loop nest.
  pm.addPass(mlir::createLinalgElementwiseOpFusionPass());
  // Fusion leaves dead producers and duplicate constants behind.
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  // exp/log/tanh/erf as vectorizable arithmetic rather than scalar libm calls.
  pm.addNestedPass<mlir::func::FuncOp>(createApproximateMath());
}

void buildBufferizePipeline(mlir::OpPassManager &pm, const PipelineOptions &) {
  // tensor.empty has no buffer semantics of its own.
  pm.addPass(mlir::bufferization::createEmptyTensorToAllocTensorPass());
  // Whole-module bufferization; arguments and results get identity layouts so
  // the runtime can pass plain contiguous buffers.
  mlir::bufferization::OneShotBufferizationOptions bufferization;
  bufferization.bufferizeFunctionBoundaries = true;
  bufferization.allowReturnAllocs = true;
  bufferization.functionBoundaryTypeConversion =
      mlir::bufferization::LayoutMapOption::IdentityLayoutMap;
  // Copies between strided buffers (tensor.insert_slice of Concat) become loops
  // rather than calls to MLIR's C runner `memrefCopy`, which artifacts don't link.
  bufferization.memCpyFn = [](mlir::OpBuilder &b, mlir::Location loc, mlir::Value from, mlir::Value to) {
    mlir::linalg::makeMemRefCopyOp(b, loc, from, to);
    return mlir::success();
  };
  pm.addPass(mlir::bufferization::createOneShotBufferizePass(bufferization));
  // Results become caller-allocated out-params: the runtime owns output memory.
  pm.addPass(mlir::bufferization::createBufferResultsToOutParamsPass());
  // ...and are computed in place there instead of in a temporary plus a copy.
  pm.addNestedPass<mlir::func::FuncOp>(createElideResultCopies());
  // What remains of strided copies (a returned slice) becomes loops, not a C runner call.
  pm.addNestedPass<mlir::func::FuncOp>(createLowerStridedCopies());
  // Free the temporaries bufferization allocated.
  pm.addNestedPass<mlir::func::FuncOp>(mlir::bufferization::createBufferDeallocationPass());
  // Deallocation clones buffers that flow through scf.if/scf.while (If/While): into alloc + copy.
  pm.addPass(mlir::createBufferizationToMemRefPass());
  // linalg -> affine loops -> scf -> cf.
  pm.addNestedPass<mlir::func::FuncOp>(mlir::createConvertLinalgToAffineLoopsPass());
  pm.addPass(mlir::createLowerAffinePass());
  pm.addPass(mlir::createConvertSCFToCFPass());
  pm.addPass(mlir::createCanonicalizerPass());
}

void buildLLVMPipeline(mlir::OpPassManager &pm, const PipelineOptions &) {
  // Subviews/reshapes become explicit descriptor arithmetic before LLVM lowering.
  pm.addPass(mlir::memref::createExpandStridedMetadataPass());
  // Heap buffers come from the runtime's caching allocator (an import, like the
  // kernels): large temporaries are reused across calls instead of page-faulting.
  mlir::MemRefToLLVMConversionPassOptions memrefOptions;
  memrefOptions.useGenericFunctions = true;
  pm.addPass(mlir::createMemRefToLLVMConversionPass(memrefOptions));
  // exp/log/sqrt & co. become LLVM intrinsics first: math-to-libm marks the
  // whole math dialect illegal, so it must only see what has no intrinsic.
  pm.addPass(mlir::createConvertMathToLLVMPass());
  // tanh & co. have no LLVM intrinsic: call libm (the artifact links -lm).
  pm.addPass(mlir::createConvertMathToLibmPass());
  pm.addPass(mlir::createArithToLLVMConversionPass());
  pm.addPass(mlir::createConvertFuncToLLVMPass());
  pm.addPass(mlir::cf::createConvertControlFlowToLLVMPass());
  pm.addPass(mlir::createReconcileUnrealizedCastsPass());
}

void registerPipelineDependencies(mlir::DialectRegistry &registry) {
  mlir::arith::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::linalg::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::tensor::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::scf::registerBufferizableOpInterfaceExternalModels(registry);  // If/While lower to scf.if/scf.while
  mlir::bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(registry);
  registerVendorKernelModels(registry);
}

void registerPipelines() {
  registerMindirPasses();
  // Whole pipelines, and each stage on its own so a repro of one stage reruns.
  for (std::string level : {"O0", "O1"}) {
    mlir::PassPipelineRegistration<>(
        "msjit-" + level, "mindir -> LLVM dialect at " + level, [level](mlir::OpPassManager &pm) {
          PipelineOptions options{level};
          buildAutodiffPipeline(pm, options);
          buildTensorPipeline(pm, options);
          buildBufferizePipeline(pm, options);
          buildLLVMPipeline(pm, options);
        });
    mlir::PassPipelineRegistration<>(
        "msjit-linalg-" + level, "stage 1 at " + level + ": mindir -> linalg on tensors",
        [level](mlir::OpPassManager &pm) {
          buildAutodiffPipeline(pm, PipelineOptions{level});
          buildTensorPipeline(pm, PipelineOptions{level});
        });
    mlir::PassPipelineRegistration<>(
        "msjit-autodiff-" + level, "stage 0 at " + level + ": expand Grad ops",
        [level](mlir::OpPassManager &pm) { buildAutodiffPipeline(pm, PipelineOptions{level}); });
  }
  mlir::PassPipelineRegistration<>("msjit-bufferized", "stage 2: tensors -> memrefs -> loops",
                                   [](mlir::OpPassManager &pm) { buildBufferizePipeline(pm, {}); });
  mlir::PassPipelineRegistration<>("msjit-llvm", "stage 3: loops -> LLVM dialect",
                                   [](mlir::OpPassManager &pm) { buildLLVMPipeline(pm, {}); });
}

}  // namespace msjit::passes
