//===- request_fuzzer.cpp - libFuzzer target over the compile front end ---===//
//
// Bytes -> CompileRequest (the daemon's decoder) -> checkCompileRequest (the
// daemon's pre-queue check) -> importModel -> mlir::verify: everything a
// client's bytes reach before the passes. No input may crash, trip a sanitizer
// or yield a module that does not verify. Built by `make fuzz`.
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include <google/protobuf/stubs/logging.h>

#include "ir/Importer.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "proto/msjit.pb.h"
#include "server/request_check.h"

namespace {

// One context for many inputs (creating one per input dominates the run), replaced
// now and then because it keeps every type and attribute ever uniqued in it.
mlir::MLIRContext &context() {
  static std::unique_ptr<mlir::MLIRContext> ctx;
  static int uses = 0;
  if (!ctx || ++uses % 2000 == 0) {
    ctx = std::make_unique<mlir::MLIRContext>(mlir::MLIRContext::Threading::DISABLED);
    msjit::ir::registerDialects(*ctx);
    ctx->printOpOnDiagnostic(false);
  }
  return *ctx;
}

// MSJIT_FUZZ_VERBOSE=1 reports each input's outcome on stderr: how to see why a
// seed or a regression input is refused, and how tests know the seeds import.
bool verbose = false;

void report(const char *stage, const std::string &error) {
  if (verbose) std::fprintf(stderr, "msjit-fuzz: %s%s%s\n", stage, error.empty() ? "" : ": ", error.c_str());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  verbose = std::getenv("MSJIT_FUZZ_VERBOSE") != nullptr;
  // Malformed UTF-8 in a string field is a normal parse failure, not worth a log line per input.
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  msjit::rpc::CompileRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) {
    report("unparseable", "");
    return 0;
  }
  const msjit::ir::ShapeLimits limits;  // the daemon's defaults: -max_len keeps each input small
  // The pre-check and the importer must each stand alone (the importer also
  // runs on requests that never met the daemon), so both see every request.
  std::string check = msjit::server::checkCompileRequest(request, limits);
  report(check.empty() ? "request check passed" : "request check refused", check);
  mlir::MLIRContext &ctx = context();
  std::string error;
  auto module = msjit::ir::importModel(ctx, request.model(), error, limits);
  // importModel verifies what it returns: a module failing here is an importer bug.
  if (module && mlir::failed(mlir::verify(*module))) std::abort();
  if (!module && error.empty()) std::abort();  // every refusal must say why
  report(module ? "imported" : "import refused", error);
  return 0;
}
