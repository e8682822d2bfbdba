// msjit-worker - runs msjitd's untrusted work in a process of its own: compiles
// (--mode compile) or executes artifacts (--mode execute), one job at a time,
// framed protobuf over stdin/stdout. msjitd starts, limits and replaces it; a
// crash here costs one request, never the daemon.
//
//   msjit-worker --replay REQUEST.pb   compiles a saved CompileRequest (a crash reproducer)
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <new>
#include <sstream>
#include <string>
#include <thread>
#include <chrono>

#include "llvm/Support/ErrorHandling.h"
#include "passes/Codegen.h"
#include "passes/Compiler.h"
#include "proto/worker.pb.h"
#include "runtime/checked_run.h"
#include "runtime/msjit_runtime.h"
#include "server/cache/digest.h"
#include "server/worker/frame.h"
#include "server/worker/worker_exit.h"
#include "spdlog/sinks/basic_file_sink.h"
#include "spdlog/sinks/stdout_color_sinks.h"
#include "spdlog/spdlog.h"

namespace {

using namespace msjit;

[[noreturn]] void outOfMemory() {
  static const char message[] = "msjit-worker: out of memory (the daemon's --compile-memory-mb)\n";
  ssize_t ignored = ::write(2, message, sizeof(message) - 1);
  (void)ignored;
  ::_exit(server::kExitOutOfMemory);
}

// Dies with the daemon, even one killed with SIGKILL, even mid-job. (Not
// PR_SET_PDEATHSIG: it fires when the daemon *thread* that started us exits.)
void exitWithParent() {
  pid_t parent = ::getppid();
  std::thread([parent] {
    while (::getppid() == parent) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ::_exit(1);
  }).detach();
}

void setUp(const std::string &logFile, uint64_t memoryMb) {
  exitWithParent();
  auto logger = logFile.empty() ? spdlog::stderr_color_mt("msjit-worker")
                                : spdlog::basic_logger_mt("msjit-worker", logFile);
  logger->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [worker " + std::to_string(::getpid()) + "] [%l] %v");
  spdlog::set_default_logger(logger);
  spdlog::flush_on(spdlog::level::info);
  if (memoryMb > 0) {
    // RLIMIT_DATA (heap and private writable mappings) is the memory a compile uses; RLIMIT_AS
    // would also count the ~0.6 GiB of libraries and reservations an idle worker maps.
    rlimit limit{memoryMb << 20, memoryMb << 20};
    if (::setrlimit(RLIMIT_DATA, &limit) != 0) spdlog::warn("cannot limit memory to {} MiB", memoryMb);
  }
  std::set_new_handler(outOfMemory);
  llvm::install_bad_alloc_error_handler([](void *, const char *, bool) { outOfMemory(); });
}

worker::CompileResult compile(const worker::CompileJob &job) {
  passes::CompileOptions options;
  options.jitLevel = job.request().options().jit_level();
  options.dumpDir = job.dump_dir();
  options.dumpName = job.dump_name().empty() ? "module" : job.dump_name();
  options.reproDir = job.repro_dir();
  if (job.max_nodes() > 0) options.limits.maxNodes = job.max_nodes();
  passes::CompileResult compiled = passes::compileModel(job.request().model(), options);
  worker::CompileResult result;
  result.set_status(compiled.ok()                                          ? worker::JOB_OK
                    : compiled.status == passes::CompileStatus::kInvalidInput ? worker::JOB_INVALID_INPUT
                                                                           : worker::JOB_INTERNAL);
  result.set_error(compiled.error);
  result.set_artifact(std::move(compiled.artifact));
  for (const auto &v : compiled.inputs) *result.add_inputs() = v;
  for (const auto &v : compiled.outputs) *result.add_outputs() = v;
  return result;
}

// Executables stay loaded for the worker's life, keyed by the digest they were verified against.
std::map<std::string, msrt_executable *> g_loaded;

worker::ExecuteResult fail(worker::JobStatus status, const std::string &error) {
  worker::ExecuteResult result;
  result.set_status(status);
  result.set_error(error);
  return result;
}

worker::ExecuteResult execute(const worker::ExecuteJob &job) {
  msrt_executable *&exe = g_loaded[job.artifact_digest()];
  if (!exe) {
    std::ifstream in(job.artifact_path(), std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    std::string data = bytes.str();
    if (!in || server::sha256Hex(data) != job.artifact_digest()) {
      g_loaded.erase(job.artifact_digest());
      return fail(worker::JOB_TAMPERED, "artifact " + job.artifact_path() + " does not match its digest");
    }
    if (msrt_load_bytes(data.data(), data.size(), job.artifact_digest().c_str(), &exe) != 0) {
      g_loaded.erase(job.artifact_digest());
      return fail(worker::JOB_INTERNAL, std::string("loading the artifact failed: ") + msrt_last_error());
    }
  }
  worker::ExecuteResult result;
  std::string error;
  runtime::RunStatus status = runtime::runTensors(exe, job.inputs(), result.mutable_outputs(), &error);
  if (status == runtime::RunStatus::kInvalidInput) return fail(worker::JOB_INVALID_INPUT, error);
  if (status != runtime::RunStatus::kOk) return fail(worker::JOB_INTERNAL, error);
  return result;
}

int serve(bool compiles) {
  if (compiles) {
    worker::WorkerReply hello;
    const auto &target = passes::hostTarget();
    hello.mutable_hello()->set_compiler_version(passes::compilerVersion());
    hello.mutable_hello()->set_target_triple(target.triple);
    hello.mutable_hello()->set_target_cpu(target.cpu);
    hello.mutable_hello()->set_target_features(target.features);
    if (!server::writeFrame(1, hello)) return 1;
  }
  worker::WorkerRequest request;
  while (server::readFrame(0, request)) {
    worker::WorkerReply reply;
    if (request.has_compile() && compiles) *reply.mutable_compile() = compile(request.compile());
    else if (request.has_execute() && !compiles) *reply.mutable_execute() = execute(request.execute());
    else return spdlog::error("job of the wrong kind for this worker"), 1;
    if (!server::writeFrame(1, reply)) return 1;
    request.Clear();
  }
  return 0;  // the daemon closed our stdin
}

int replay(const std::string &path) {
  worker::CompileJob job;
  std::ifstream in(path, std::ios::binary);
  if (!in || !job.mutable_request()->ParseFromIstream(&in)) {
    std::fprintf(stderr, "msjit-worker: %s is not a serialized msjit.rpc.CompileRequest\n", path.c_str());
    return 2;
  }
  worker::CompileResult result = compile(job);
  std::printf("%s: %s%s\n", worker::JobStatus_Name(result.status()).c_str(), result.error().c_str(),
              result.status() == worker::JOB_OK ? (std::to_string(result.artifact().size()) + " bytes").c_str() : "");
  return result.status() == worker::JOB_OK ? 0 : 1;
}

}  // namespace

int main(int argc, char **argv) {
  std::string mode, logFile, replayPath;
  uint64_t memoryMb = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--mode") mode = value;
    else if (flag == "--log-file") logFile = value;
    else if (flag == "--memory-mb") memoryMb = std::strtoull(value.c_str(), nullptr, 10);
    else if (flag == "--replay") replayPath = value;
  }
  if (!replayPath.empty()) return replay(replayPath);
  if (mode != "compile" && mode != "execute") {
    std::fprintf(stderr,
                 "usage: msjit-worker --mode compile|execute [--memory-mb N] [--log-file F]  (started by msjitd)\n"
                 "       msjit-worker --replay REQUEST.pb  (rerun a compile that crashed a worker)\n");
    return 2;
  }
  setUp(logFile, mode == "compile" ? memoryMb : 0);
  return serve(mode == "compile");
}
