//===- VendorKernels.h - ops that run on the runtime's vendor kernels -*- C++ -*-===//
//
// MatMul (float, as rank-3 batches), Conv2D, MaxPool, AvgPool and their
// gradient kernels (Conv2DBackpropInput/Filter, MaxPoolGrad, AvgPoolGrad) are
// not lowered to loops: they stay mindir ops through the tensor stage and
// bufferize into `func.call @msrt_kernel_<op>_<dtype>(memref..., i64...)`,
// declared with the C interface. Codegen turns those declarations into the
// artifact's import table (runtime/artifact_abi.h), which the runtime fills
// with its oneDNN/OpenBLAS kernels (runtime/kernels/) when it loads the artifact.
//
//===----------------------------------------------------------------------===//
#ifndef MSJIT_PASSES_VENDORKERNELS_VENDORKERNELS_H
#define MSJIT_PASSES_VENDORKERNELS_VENDORKERNELS_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Operation.h"

namespace msjit::passes {

// True when `op` is handed to a vendor kernel as it is (MatMul: only in its
// canonical rank-3 float form, see populateLinearPatterns).
bool usesVendorKernel(mlir::Operation *op);

// True for a MatMul a vendor kernel can take once reshaped to rank 3.
bool isVendorMatMul(mlir::Operation *op);

// Attaches the bufferization models that turn vendor-kernel ops into calls.
void registerVendorKernelModels(mlir::DialectRegistry &registry);

}  // namespace msjit::passes

#endif  // MSJIT_PASSES_VENDORKERNELS_VENDORKERNELS_H
