//===- Pipelines.h - the O0/O1 pipelines ------------------------*- C++ -*-===//
//
// Compilation runs in three stages so each can be dumped (--dump-ir) and
// verified on its own:
//   tensor    mindir -> linalg on tensors (O1 adds simplification + fusion)
//   bufferize tensors -> memrefs -> loops
//   llvm      loops -> LLVM dialect
//
//===----------------------------------------------------------------------===//
#ifndef MSJIT_PASSES_PIPELINES_H
#define MSJIT_PASSES_PIPELINES_H

#include <string>

#include "mlir/Pass/PassManager.h"

namespace msjit::passes {

struct PipelineOptions {
  std::string jitLevel = "O0";  // "O0" | "O1" | "O2"
  bool optimizes() const { return jitLevel != "O0"; }
};

// Stage 0: expand mindir.Grad ops (reverse-mode autodiff); its failures are the user's.
void buildAutodiffPipeline(mlir::OpPassManager &pm, const PipelineOptions &options);
void buildTensorPipeline(mlir::OpPassManager &pm, const PipelineOptions &options);
void buildBufferizePipeline(mlir::OpPassManager &pm, const PipelineOptions &options);
void buildLLVMPipeline(mlir::OpPassManager &pm, const PipelineOptions &options);

// Adds what the pipelines need beyond the dialects they load themselves:
// the bufferization models of arith/linalg/tensor/func.
void registerPipelineDependencies(mlir::DialectRegistry &registry);

// Registers the msjit passes and pipelines for mindir-opt: "msjit-O0"/"msjit-O1"
// (all stages) and each stage alone ("msjit-linalg-O1", "msjit-bufferized",
// "msjit-llvm"), so a compile or a repro of one stage can be rerun by hand.
void registerPipelines();

}  // namespace msjit::passes

#endif  // MSJIT_PASSES_PIPELINES_H
