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

void buildTensorPipeline(mlir::OpPassManager &pm, const PipelineOptions &options);
void buildBufferizePipeline(mlir::OpPassManager &pm, const PipelineOptions &options);
void buildLLVMPipeline(mlir::OpPassManager &pm, const PipelineOptions &options);

// Adds what the pipelines need beyond the dialects they load themselves:
// the bufferization models of arith/linalg/tensor/func.
void registerPipelineDependencies(mlir::DialectRegistry &registry);

// Registers "msjit-o0" and "msjit-o1" (all three stages) and the msjit passes,
// so a command line (`--pass-pipeline=msjit-o1`) can rerun a compile.
void registerPipelines();

}  // namespace msjit::passes

#endif  // MSJIT_PASSES_PIPELINES_H
