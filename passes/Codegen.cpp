//===- Codegen.cpp - LLVM dialect -> native shared object -----------------===//
#include "passes/Codegen.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <mutex>
#include <sstream>

#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "runtime/artifact_abi.h"

extern char **environ;

namespace msjit::passes {
namespace {

constexpr const char *kEntryWrapper = "_mlir_ciface_main";
constexpr llvm::StringLiteral kKernelPrefix = "_mlir_ciface_msrt_kernel_";

// The runtime function a declaration stands for, or "" when it is not an
// import: vendor kernels (named without their C-interface prefix) and the
// generic allocation functions of convert-memref-to-llvm.
std::string importName(const llvm::Function &f) {
  if (!f.isDeclaration()) return "";
  llvm::StringRef name = f.getName();
  if (name.startswith(kKernelPrefix)) return name.drop_front(std::strlen("_mlir_ciface_")).str();
  if (name == "_mlir_memref_to_llvm_alloc" || name == "_mlir_memref_to_llvm_free") return name.str();
  return "";
}

// Every call to an imported declaration becomes an indirect call through an
// import slot (artifact_abi.h). Returns the slot array and the names.
std::pair<llvm::GlobalVariable *, llvm::GlobalVariable *> bindImports(llvm::Module &module, llvm::IRBuilder<> &b) {
  llvm::LLVMContext &ctx = module.getContext();
  auto *ptrTy = llvm::PointerType::getUnqual(ctx);
  std::vector<llvm::Function *> imports;
  for (llvm::Function &f : module)
    if (!importName(f).empty()) imports.push_back(&f);
  auto *arrayTy = llvm::ArrayType::get(ptrTy, imports.size());
  auto *slots = new llvm::GlobalVariable(module, arrayTy, /*isConstant=*/false, llvm::GlobalValue::InternalLinkage,
                                         llvm::Constant::getNullValue(arrayTy), "msjit_import_slots");
  std::vector<llvm::Constant *> names;
  for (size_t k = 0; k < imports.size(); ++k) {
    llvm::Function *f = imports[k];
    names.push_back(b.CreateGlobalStringPtr(importName(*f), "msjit_import_name", 0, &module));
    for (llvm::User *user : llvm::make_early_inc_range(f->users())) {
      auto *call = llvm::dyn_cast<llvm::CallInst>(user);
      if (!call) continue;
      b.SetInsertPoint(call);
      llvm::Value *slot = b.CreateConstInBoundsGEP2_64(arrayTy, slots, 0, k);
      llvm::Value *target = b.CreateLoad(ptrTy, slot);
      std::vector<llvm::Value *> args(call->arg_begin(), call->arg_end());
      call->replaceAllUsesWith(b.CreateCall(f->getFunctionType(), target, args));
      call->eraseFromParent();
    }
    f->eraseFromParent();
  }
  auto *nameTable = new llvm::GlobalVariable(module, arrayTy, /*isConstant=*/true, llvm::GlobalValue::InternalLinkage,
                                             llvm::ConstantArray::get(arrayTy, names), "msjit_import_names");
  return {slots, nameTable};
}

// Adds `void msjit_entry(void **descs)` calling the C-interface wrapper with
// one descriptor pointer per argument, the import table and the query symbol
// of artifact_abi.h. Everything else becomes internal: the artifact exports
// exactly one symbol.
bool addArtifactSymbols(llvm::Module &module, const std::string &manifest, std::string &error) {
  llvm::Function *wrapper = module.getFunction(kEntryWrapper);
  if (!wrapper) {
    error = std::string("codegen: module has no ") + kEntryWrapper;
    return false;
  }
  llvm::LLVMContext &ctx = module.getContext();
  llvm::IRBuilder<> b(ctx);
  auto *ptrTy = llvm::PointerType::getUnqual(ctx);
  auto [slots, names] = bindImports(module, b);
  uint64_t numImports = llvm::cast<llvm::ArrayType>(slots->getValueType())->getNumElements();
  for (llvm::Function &f : module)
    if (!f.isDeclaration()) f.setLinkage(llvm::GlobalValue::InternalLinkage);

  auto *entry = llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), {ptrTy}, false),
                                       llvm::GlobalValue::InternalLinkage, "msjit_entry", module);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", entry));
  std::vector<llvm::Value *> args;
  for (unsigned i = 0; i < wrapper->arg_size(); ++i) {
    llvm::Value *slot = b.CreateConstInBoundsGEP1_64(ptrTy, entry->getArg(0), i);
    args.push_back(b.CreatePointerCast(b.CreateLoad(ptrTy, slot), wrapper->getArg(i)->getType()));
  }
  b.CreateCall(wrapper, args);
  b.CreateRetVoid();

  llvm::Constant *text = b.CreateGlobalStringPtr(manifest, "msjit_manifest", 0, &module);
  auto *descTy = llvm::StructType::get(
      ctx, {b.getInt32Ty(), b.getInt32Ty(), ptrTy, ptrTy, b.getInt32Ty(), b.getInt32Ty(), ptrTy, ptrTy});
  auto *desc = new llvm::GlobalVariable(
      module, descTy, /*isConstant=*/true, llvm::GlobalValue::InternalLinkage,
      llvm::ConstantStruct::get(descTy, {b.getInt32(MSJIT_ARTIFACT_ABI_VERSION), b.getInt32(0), text, entry,
                                         b.getInt32(numImports), b.getInt32(0), names, slots}),
      "msjit_artifact");
  auto *query = llvm::Function::Create(llvm::FunctionType::get(ptrTy, {}, false),
                                       llvm::GlobalValue::ExternalLinkage,
                                       MSJIT_ARTIFACT_QUERY_SYMBOL, module);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", query));
  b.CreateRet(desc);
  return true;
}

std::unique_ptr<llvm::TargetMachine> createTargetMachine(std::string &error) {
  const HostTarget &host = hostTarget();
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(host.triple, error);
  if (!target) return nullptr;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      host.triple, host.cpu, host.features, llvm::TargetOptions(), llvm::Reloc::PIC_));
}

// Runs `argv` and waits; on failure returns false with its stderr in `error`.
bool runTool(const std::vector<std::string> &argv, const std::string &stderrPath, std::string &error) {
  std::vector<char *> cargv;
  for (const auto &a : argv) cargv.push_back(const_cast<char *>(a.c_str()));
  cargv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, stderrPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, cargv[0], &actions, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  if (rc != 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::ifstream err(stderrPath);
    std::stringstream ss;
    ss << err.rdbuf();
    error = "linking the artifact failed (" + argv[0] + "): " + ss.str();
    return false;
  }
  return true;
}

struct TempDir {
  std::string path;
  TempDir() {
    const char *base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/msjit-codegen-XXXXXX";
    if (mkdtemp(tmpl.data())) path = tmpl;
  }
  ~TempDir() {
    if (path.empty()) return;
    for (const char *name : {"/artifact.o", "/artifact.so", "/link.err"}) unlink((path + name).c_str());
    rmdir(path.c_str());
  }
};

}  // namespace

const HostTarget &hostTarget() {
  static const HostTarget host = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    HostTarget h;
    h.triple = llvm::sys::getProcessTriple();
    h.cpu = llvm::sys::getHostCPUName().str();
    llvm::StringMap<bool> features;
    std::vector<std::string> enabled;
    if (llvm::sys::getHostCPUFeatures(features))
      for (const auto &f : features)
        if (f.getValue()) enabled.push_back("+" + f.getKey().str());
    std::sort(enabled.begin(), enabled.end());
    for (const auto &f : enabled) h.features += (h.features.empty() ? "" : ",") + f;
    return h;
  }();
  return host;
}

namespace {
// LLVM's default O2/O3 pipeline, without loop unrolling. Every trip count in an artifact is a
// constant (shapes are static), so the default fully unrolls each small loop together with its
// vectorized body: measured on the tutorial's attention block, 1.5 MB of IR and 45 s of LLVM for 60
// ops at O1. The loop vectorizer still interleaves, which is where unrolling paid off.
void optimizeModule(llvm::Module &module, llvm::TargetMachine *tm, unsigned level) {
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = false;
  tuning.LoopInterleaving = tuning.LoopVectorization = tuning.SLPVectorization = true;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(tm, tuning);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  builder.buildPerModuleDefaultPipeline(level >= 3 ? llvm::OptimizationLevel::O3 : llvm::OptimizationLevel::O2)
      .run(module, mam);
}
}  // namespace

bool emitSharedObject(mlir::ModuleOp module, const std::string &manifest,
                      const CodegenOptions &options, SharedObject &out, std::string &error) {
  mlir::registerLLVMDialectTranslation(*module.getContext());
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule = mlir::translateModuleToLLVMIR(module, llvmContext, "msjit");
  if (!llvmModule) {
    error = "codegen: translation to LLVM IR failed";
    return false;
  }
  auto tm = createTargetMachine(error);
  if (!tm) return false;
  llvmModule->setDataLayout(tm->createDataLayout());
  llvmModule->setTargetTriple(tm->getTargetTriple().str());
  if (!addArtifactSymbols(*llvmModule, manifest, error)) return false;

  optimizeModule(*llvmModule, tm.get(), options.llvmOptLevel);
  llvm::raw_string_ostream irStream(out.llvmIr);
  llvmModule->print(irStream, nullptr);

  llvm::SmallVector<char, 0> object;
  {
    llvm::raw_svector_ostream objStream(object);
    llvm::legacy::PassManager pm;
    if (tm->addPassesToEmitFile(pm, objStream, nullptr, llvm::CGFT_ObjectFile)) {
      error = "codegen: the target cannot emit object files";
      return false;
    }
    pm.run(*llvmModule);
  }

  TempDir dir;
  if (dir.path.empty()) {
    error = "codegen: cannot create a temporary directory";
    return false;
  }
  std::string objPath = dir.path + "/artifact.o", soPath = dir.path + "/artifact.so";
  std::ofstream(objPath, std::ios::binary).write(object.data(), object.size());
  // libm: tanh & co. lower to libm calls.
  if (!runTool({"cc", "-shared", "-o", soPath, objPath, "-lm"}, dir.path + "/link.err", error)) return false;
  std::ifstream so(soPath, std::ios::binary);
  std::stringstream bytes;
  bytes << so.rdbuf();
  out.bytes = bytes.str();
  if (out.bytes.empty()) {
    error = "codegen: the linker produced no output";
    return false;
  }
  return true;
}

}  // namespace msjit::passes
