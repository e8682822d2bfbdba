//===- Compiler.h - one MindIR model -> one artifact ------------*- C++ -*-===//
#ifndef MSJIT_PASSES_COMPILER_H
#define MSJIT_PASSES_COMPILER_H

#include <string>
#include <vector>

#include "ir/ShapeLimits.h"
#include "proto/mindir.pb.h"

namespace msjit::passes {

struct CompileOptions {
  std::string jitLevel = "O0";
  // When set, the IR after each stage is written to <dumpDir>/<dumpName>.<n>-<stage>.mlir
  // (and the final LLVM IR to .ll).
  std::string dumpDir;
  std::string dumpName = "module";
  // When set, a pass failure leaves <reproDir>/<dumpName>.<stage>.repro.mlir, an
  // MLIR crash reproducer: `mindir-opt --run-reproducer FILE` reruns it.
  std::string reproDir;
  // What the importer accepts (node count, rank, elements, nesting).
  ir::ShapeLimits limits;
};

enum class CompileStatus { kOk, kInvalidInput, kInternal };

struct CompileResult {
  CompileStatus status = CompileStatus::kInternal;
  std::string error;     // names the node and the user's file:line for kInvalidInput
  std::string artifact;  // ELF shared object bytes (artifact_abi.h)
  std::string manifest;
  std::vector<mindir::ValueInfoProto> inputs, outputs;
  bool ok() const { return status == CompileStatus::kOk; }
};

// Thread-safe: every call uses its own MLIRContext.
CompileResult compileModel(const mindir::ModelProto &model, const CompileOptions &options);

// Identifies this compiler build in cache keys: bump when codegen changes.
const char *compilerVersion();

}  // namespace msjit::passes

#endif  // MSJIT_PASSES_COMPILER_H
