//===- Codegen.h - LLVM dialect -> native shared object ---------*- C++ -*-===//
#ifndef MSJIT_PASSES_CODEGEN_H
#define MSJIT_PASSES_CODEGEN_H

#include <string>

#include "mlir/IR/BuiltinOps.h"

namespace msjit::passes {

// The machine code is generated for: part of every cache key.
struct HostTarget {
  std::string triple;
  std::string cpu;
  std::string features;  // sorted "+avx2,+fma,..." of the enabled ones
};
const HostTarget &hostTarget();

struct CodegenOptions {
  unsigned llvmOptLevel = 2;
};

struct SharedObject {
  std::string bytes;   // the ELF .so
  std::string llvmIr;  // optimized LLVM IR, for --dump-ir
};

// `module` is in the LLVM dialect with `_mlir_ciface_main` (emit_c_interface).
// Adds the artifact_abi.h query symbol describing `manifest`, optimizes,
// emits an object file and links it with the system C compiler driver.
// Returns false and sets `error` on failure.
bool emitSharedObject(mlir::ModuleOp module, const std::string &manifest,
                      const CodegenOptions &options, SharedObject &out, std::string &error);

}  // namespace msjit::passes

#endif  // MSJIT_PASSES_CODEGEN_H
