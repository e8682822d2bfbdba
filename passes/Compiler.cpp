//===- Compiler.cpp - one MindIR model -> one artifact --------------------===//
#include "passes/Compiler.h"

#include <fstream>
#include <functional>

#include "ir/Dtypes.h"
#include "ir/Importer.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "passes/Codegen.h"
#include "passes/Pipelines.h"

namespace msjit::passes {
namespace {

using StageBuilder = std::function<void(mlir::OpPassManager &, const PipelineOptions &)>;

struct Stage {
  const char *name;
  StageBuilder build;
  bool userErrors;  // a failure here is the graph's fault (INVALID_ARGUMENT), not the compiler's
};

void writeFile(const std::string &path, const std::string &text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string print(mlir::ModuleOp module) {
  std::string s;
  llvm::raw_string_ostream os(s);
  module->print(os, mlir::OpPrintingFlags().enableDebugInfo(true, /*prettyForm=*/true));
  return os.str();
}

mindir::ValueInfoProto describe(mlir::Type type, int index, const char *prefix) {
  auto tensor = type.cast<mlir::RankedTensorType>();
  mindir::ValueInfoProto info;
  info.set_name(prefix + std::to_string(index));
  info.set_dtype(ir::fromMlirType(tensor.getElementType()));
  for (int64_t d : tensor.getShape()) info.add_dims(d);
  return info;
}

std::string manifestFor(const CompileResult &r) {
  std::string m = "msjit-artifact 1\n";
  auto line = [&](const char *kind, const mindir::ValueInfoProto &v) {
    m += std::string(kind) + " " + ir::dtypeName(v.dtype()) + " " + std::to_string(v.dims_size());
    for (int64_t d : v.dims()) m += " " + std::to_string(d);
    m += "\n";
  };
  for (const auto &v : r.inputs) line("input", v);
  for (const auto &v : r.outputs) line("output", v);
  return m;
}

}  // namespace

// Bump on every change to what the compiler produces: it keys the persistent artifact cache.
const char *compilerVersion() { return "msjit-compiler-4"; }

CompileResult compileModel(const mindir::ModelProto &model, const CompileOptions &options) {
  CompileResult result;
  mlir::DialectRegistry registry;
  registerPipelineDependencies(registry);
  mlir::MLIRContext ctx(registry, mlir::MLIRContext::Threading::DISABLED);
  std::string error;
  auto module = ir::importModel(ctx, model, error, options.limits);
  if (!module) {
    result.status = CompileStatus::kInvalidInput;
    result.error = error;
    return result;
  }
  auto func = module->lookupSymbol<mlir::func::FuncOp>("main");
  for (auto [i, t] : llvm::enumerate(func.getArgumentTypes())) result.inputs.push_back(describe(t, i, "input"));
  for (auto [i, t] : llvm::enumerate(func.getResultTypes())) result.outputs.push_back(describe(t, i, "output"));
  result.manifest = manifestFor(result);

  const bool dump = !options.dumpDir.empty();
  auto dumpPath = [&](int n, const std::string &stage, const char *ext) {
    return options.dumpDir + "/" + options.dumpName + "." + std::to_string(n) + "-" + stage + ext;
  };
  if (dump) writeFile(dumpPath(0, "mindir", ".mlir"), print(*module));

  std::vector<std::string> diagnostics;
  mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &d) {
    std::string where = ir::describeLocation(d.getLocation());
    diagnostics.push_back((where.empty() ? "" : where + ": ") + d.str());
    return mlir::success();
  });
  PipelineOptions pipeline{options.jitLevel};
  const Stage stages[] = {{"autodiff", buildAutodiffPipeline, true},
                          {"linalg", buildTensorPipeline, false},
                          {"bufferized", buildBufferizePipeline, false},
                          {"llvm", buildLLVMPipeline, false}};
  int n = 1;
  for (const Stage &stage : stages) {
    mlir::PassManager pm(&ctx, mlir::ModuleOp::getOperationName());
    stage.build(pm, pipeline);
    std::string repro;
    if (!options.reproDir.empty()) {
      repro = options.reproDir + "/" + options.dumpName + "." + stage.name + ".repro.mlir";
      pm.enableCrashReproducerGeneration(repro);
    }
    if (mlir::failed(pm.run(*module))) {
      if (stage.userErrors && !diagnostics.empty()) {
        result.status = CompileStatus::kInvalidInput;
        result.error = diagnostics.front();
        return result;
      }
      result.error = std::string("internal compiler error in stage '") + stage.name + "': " +
                     (diagnostics.empty() ? "pass failed" : diagnostics.front());
      if (!repro.empty()) result.error += " (repro: mindir-opt --run-reproducer " + repro + ")";
      return result;
    }
    if (dump) writeFile(dumpPath(n, stage.name, ".mlir"), print(*module));
    ++n;
  }

  SharedObject so;
  CodegenOptions codegen;
  codegen.llvmOptLevel = pipeline.optimizes() ? 3 : 2;
  if (!emitSharedObject(*module, result.manifest, codegen, so, result.error)) {
    result.error = "internal compiler error in codegen: " + result.error;
    return result;
  }
  if (dump) writeFile(dumpPath(n, "llvmir", ".ll"), so.llvmIr);
  result.artifact = std::move(so.bytes);
  result.status = CompileStatus::kOk;
  return result;
}

}  // namespace msjit::passes
