// service.cpp - Compile, FetchArtifact, Execute, Stats.
#include "server/service.h"

#include <cstring>

#include "passes/Codegen.h"
#include "passes/Compiler.h"
#include "server/cache/cache_key.h"
#include "server/cache/digest.h"
#include "server/status.h"
#include "spdlog/spdlog.h"

namespace msjit::server {
namespace {

constexpr size_t kChunkBytes = 1 << 20;
constexpr const char *kVersion = "msjitd 0.1.0";

grpc::Status shuttingDown() {
  return grpc::Status(grpc::StatusCode::UNAVAILABLE, "msjitd is shutting down");
}

std::string validateOptions(const rpc::CompileOptions &o) {
  auto oneOf = [](const std::string &v, std::initializer_list<const char *> valid) {
    for (const char *s : valid)
      if (v == s) return true;
    return false;
  };
  if (!oneOf(o.jit_level(), {"O0", "O1", "O2"}))
    return "jit_level '" + o.jit_level() + "' is not one of O0, O1, O2";
  if (!oneOf(o.backend(), {"", "ms_backend", "GE"}))
    return "backend '" + o.backend() + "' is not one of ms_backend, GE";
  if (!oneOf(o.exec_order(), {"", "bfs", "dfs"}))
    return "exec_order '" + o.exec_order() + "' is not one of bfs, dfs";
  if (!oneOf(o.infer_boost(), {"", "on", "off"}))
    return "infer_boost '" + o.infer_boost() + "' is not one of on, off";
  return "";
}

}  // namespace

MsjitService::MsjitService(const Config &config, ArtifactCache &cache)
    : config_(config), cache_(cache), jobs_(config.jobs) {}

MsjitService::Admission::Admission(MsjitService &s) : s_(s) {
  std::lock_guard<std::mutex> lock(s_.drain_mu_);
  admitted_ = !s_.draining_;
  if (admitted_) ++s_.inflight_;
}

MsjitService::Admission::~Admission() {
  if (!admitted_) return;
  std::lock_guard<std::mutex> lock(s_.drain_mu_);
  if (--s_.inflight_ == 0) s_.drain_cv_.notify_all();
}

bool MsjitService::drain(std::chrono::seconds timeout) {
  std::unique_lock<std::mutex> lock(drain_mu_);
  draining_ = true;
  return drain_cv_.wait_for(lock, timeout, [&] { return inflight_ == 0; });
}

MsjitService::~MsjitService() {
  for (auto &[key, exe] : executables_) msrt_unload(exe);
}

grpc::Status MsjitService::Compile(grpc::ServerContext *, const rpc::CompileRequest *request,
                                   rpc::CompileReply *reply) {
  ++compile_requests_;
  Admission admission(*this);
  if (!admission) return shuttingDown();
  if (std::string error = validateOptions(request->options()); !error.empty())
    return invalidArgument(error);
  static const CompilerIdentity compiler{passes::compilerVersion(), passes::hostTarget().triple,
                                         passes::hostTarget().cpu, passes::hostTarget().features};
  const std::string key = cacheKey(*request, compiler);
  if (auto hit = cache_.lookup(key)) {
    ++(hit->hit() == rpc::TIER_MEMORY ? memory_hits_ : disk_hits_);
    spdlog::debug("compile {}: {} hit", key.substr(0, 12), rpc::CacheTier_Name(hit->hit()));
    *reply = *hit;
    return grpc::Status::OK;
  }
  bool leader = false;
  Outcome outcome = single_flight_.run(key, [&] { return compileMiss(key, *request); }, leader);
  if (!leader && outcome.status.ok()) {
    ++inflight_joins_;
    outcome.reply.set_hit(rpc::TIER_INFLIGHT);
    outcome.reply.set_compile_ms(0);
  }
  *reply = outcome.reply;
  return outcome.status;
}

MsjitService::Outcome MsjitService::compileMiss(const std::string &key, const rpc::CompileRequest &request) {
  // Another request may have finished this key between our lookup and now.
  if (auto hit = cache_.lookup(key)) return {grpc::Status::OK, *hit};
  JobSlots::Held slot(jobs_);
  auto start = std::chrono::steady_clock::now();
  passes::CompileOptions options;
  options.jitLevel = request.options().jit_level();
  options.dumpDir = config_.dump_ir;
  options.dumpName = key.substr(0, 16);
  options.reproDir = cache_.dir() + "/repro";
  passes::CompileResult result = passes::compileModel(request.model(), options);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!result.ok()) {
    ++compile_errors_;
    spdlog::warn("compile {} failed: {}", key.substr(0, 12), result.error);
    return {toGrpcStatus(result.status, result.error), {}};
  }
  ++compiles_;
  compile_us_total_ += static_cast<uint64_t>(ms * 1000);
  rpc::CompileReply reply;
  for (const auto &v : result.inputs) *reply.add_inputs() = v;
  for (const auto &v : result.outputs) *reply.add_outputs() = v;
  if (!cache_.insert(key, result.artifact, reply))
    return {grpc::Status(grpc::StatusCode::UNAVAILABLE, "cannot write to the artifact cache in " + cache_.dir()), {}};
  reply.set_hit(rpc::TIER_NONE);
  reply.set_compile_ms(ms);
  spdlog::info("compiled {} at {} in {:.1f} ms ({} bytes)", key.substr(0, 12), options.jitLevel, ms,
               result.artifact.size());
  return {grpc::Status::OK, reply};
}

grpc::Status MsjitService::FetchArtifact(grpc::ServerContext *, const rpc::FetchArtifactRequest *request,
                                         grpc::ServerWriter<rpc::ArtifactChunk> *writer) {
  Admission admission(*this);
  if (!admission) return shuttingDown();
  if (!isDigest(request->key())) return invalidArgument("key must be a hex SHA-256 digest");
  auto entry = cache_.lookup(request->key());
  std::optional<std::string> bytes = entry ? cache_.artifactBytes(*entry) : std::nullopt;
  if (!bytes) return grpc::Status(grpc::StatusCode::NOT_FOUND, "no artifact for key " + request->key());
  for (size_t offset = 0; offset < bytes->size() || offset == 0; offset += kChunkBytes) {
    rpc::ArtifactChunk chunk;
    if (offset == 0) {
      chunk.set_artifact_digest(entry->artifact_digest());
      chunk.set_total_size(bytes->size());
    }
    chunk.set_data(bytes->substr(offset, kChunkBytes));
    if (!writer->Write(chunk)) return grpc::Status(grpc::StatusCode::CANCELLED, "client went away");
    if (bytes->empty()) break;
  }
  return grpc::Status::OK;
}

grpc::Status MsjitService::loadExecutable(const std::string &key, const msrt_executable **exe) {
  std::lock_guard<std::mutex> lock(executables_mu_);
  if (auto it = executables_.find(key); it != executables_.end()) {
    *exe = it->second;
    return grpc::Status::OK;
  }
  auto entry = cache_.lookup(key);
  if (!entry) return grpc::Status(grpc::StatusCode::NOT_FOUND, "no artifact for key " + key + "; Compile first");
  msrt_executable *loaded = nullptr;
  if (msrt_load(entry->artifact_path().c_str(), &loaded) != 0)
    return grpc::Status(grpc::StatusCode::INTERNAL, std::string("loading the artifact failed: ") + msrt_last_error());
  executables_[key] = loaded;
  *exe = loaded;
  return grpc::Status::OK;
}

grpc::Status MsjitService::Execute(grpc::ServerContext *, const rpc::ExecuteRequest *request,
                                   rpc::ExecuteReply *reply) {
  ++executes_;
  Admission admission(*this);
  if (!admission) return shuttingDown();
  if (!isDigest(request->key())) return invalidArgument("key must be a hex SHA-256 digest");
  const msrt_executable *exe = nullptr;
  if (grpc::Status s = loadExecutable(request->key(), &exe); !s.ok()) return s;
  int numInputs = msrt_num_inputs(exe), numOutputs = msrt_num_outputs(exe);
  if (request->inputs_size() != numInputs)
    return invalidArgument("expected " + std::to_string(numInputs) + " inputs, got " +
                           std::to_string(request->inputs_size()));
  std::vector<void *> inputs, outputs;
  for (int i = 0; i < numInputs; ++i) {
    msrt_tensor_info info;
    msrt_tensor(exe, 0, i, &info);
    const auto &t = request->inputs(i);
    bool dimsMatch = t.dims_size() == info.rank &&
                     std::equal(t.dims().begin(), t.dims().end(), info.dims);
    if (static_cast<int>(t.dtype()) != info.dtype || !dimsMatch ||
        static_cast<int64_t>(t.raw_data().size()) != info.num_bytes)
      return invalidArgument("input " + std::to_string(i) + " does not match the compiled dtype/shape");
    inputs.push_back(const_cast<char *>(t.raw_data().data()));
  }
  for (int i = 0; i < numOutputs; ++i) {
    msrt_tensor_info info;
    msrt_tensor(exe, 1, i, &info);
    auto *t = reply->add_outputs();
    t->set_name("output" + std::to_string(i));
    t->set_dtype(static_cast<mindir::DataType>(info.dtype));
    for (int d = 0; d < info.rank; ++d) t->add_dims(info.dims[d]);
    t->mutable_raw_data()->resize(info.num_bytes);
  }
  for (int i = 0; i < numOutputs; ++i) outputs.push_back(reply->mutable_outputs(i)->mutable_raw_data()->data());
  msrt_run(exe, inputs.data(), outputs.data());
  return grpc::Status::OK;
}

grpc::Status MsjitService::Stats(grpc::ServerContext *, const rpc::StatsRequest *, rpc::StatsReply *reply) {
  reply->set_compile_requests(compile_requests_);
  reply->set_compiles(compiles_);
  reply->set_memory_hits(memory_hits_);
  reply->set_disk_hits(disk_hits_);
  reply->set_inflight_joins(inflight_joins_);
  reply->set_compile_errors(compile_errors_);
  reply->set_executes(executes_);
  reply->set_memory_entries(cache_.memoryEntries());
  reply->set_memory_bytes(cache_.memoryBytes());
  reply->set_disk_entries(cache_.diskEntries());
  reply->set_disk_bytes(cache_.diskBytes());
  reply->set_disk_evictions(cache_.evictions());
  reply->set_uptime_s(std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count());
  reply->set_version(kVersion);
  reply->set_cache_dir(cache_.dir());
  reply->set_compile_ms_total(compile_us_total_ / 1000.0);
  return grpc::Status::OK;
}

}  // namespace msjit::server
