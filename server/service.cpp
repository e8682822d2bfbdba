// service.cpp - Compile, FetchArtifact, Execute, Stats.
#include "server/service.h"

#include <grpcpp/support/proto_buffer_reader.h>

#include <fstream>
#include <thread>

#include "server/cache/digest.h"
#include "server/call_util.h"
#include "server/request_check.h"
#include "spdlog/spdlog.h"

namespace msjit::server {
namespace {

constexpr size_t kChunkBytes = 1 << 20;
constexpr const char *kVersion = "msjitd 0.2.0";

grpc::Status invalidArgument(const std::string &message) {
  return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, message);
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

// Streams an artifact in chunks; the first carries its digest and size.
class ChunkWriter : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
 public:
  ChunkWriter(std::shared_ptr<void> admission, std::string bytes, std::string digest)
      : admission_(std::move(admission)), bytes_(std::move(bytes)), digest_(std::move(digest)) {
    next();
  }
  explicit ChunkWriter(const grpc::Status &status) { Finish(status); }
  void OnWriteDone(bool ok) override {
    if (!ok) return Finish(grpc::Status(grpc::StatusCode::CANCELLED, "client went away"));
    next();
  }
  void OnDone() override { delete this; }

 private:
  void next() {
    if (offset_ > 0 && offset_ >= bytes_.size()) return Finish(grpc::Status::OK);
    rpc::ArtifactChunk chunk;
    if (offset_ == 0) {
      chunk.set_artifact_digest(digest_);
      chunk.set_total_size(bytes_.size());
    }
    chunk.set_data(bytes_.substr(offset_, kChunkBytes));
    offset_ += kChunkBytes;
    if (bytes_.empty()) offset_ = 1;  // one (empty) chunk, then done
    serialize(chunk, &buffer_);
    StartWrite(&buffer_);
  }

  std::shared_ptr<void> admission_;
  std::string bytes_, digest_;
  size_t offset_ = 0;
  grpc::ByteBuffer buffer_;
};

}  // namespace

MsjitService::MsjitService(const Config &config, ArtifactCache &cache, const Authenticator &auth,
                           WorkerPool &compilers, WorkerPool &executors, Metrics &metrics)
    : config_(config),
      cache_(cache),
      auth_(auth),
      compilers_(compilers),
      executors_(executors),
      metrics_(metrics),
      compiler_{compilers.hello().compiler_version(), compilers.hello().target_triple(),
                compilers.hello().target_cpu(), compilers.hello().target_features()},
      flights_(config.max_queue, std::chrono::seconds(config.crash_retry_after_s)) {}

MsjitService::Admission::Admission(MsjitService &s) : s_(s) {
  std::lock_guard<std::mutex> lock(s_.drain_mu_);
  admitted_ = !s_.draining_;
  if (admitted_) ++s_.inflight_;
}

MsjitService::Admission::~Admission() {
  if (!admitted_) return;
  std::lock_guard<std::mutex> lock(s_.drain_mu_);
  s_.inflight_bytes_ -= bytes_;
  if (--s_.inflight_ == 0) s_.drain_cv_.notify_all();
}

bool MsjitService::Admission::reserve(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(s_.drain_mu_);
  if (s_.inflight_bytes_ + bytes > s_.config_.max_inflight_bytes) return false;
  s_.inflight_bytes_ += bytes;
  bytes_ += bytes;
  return true;
}

bool MsjitService::drain(std::chrono::seconds timeout) {
  std::unique_lock<std::mutex> lock(drain_mu_);
  draining_ = true;
  return drain_cv_.wait_for(lock, timeout, [&] { return inflight_ == 0; });
}

grpc::Status MsjitService::accept(grpc::CallbackServerContext *context, const grpc::ByteBuffer *request,
                                  google::protobuf::Message &message, std::shared_ptr<Admission> &admission) {
  admission = std::make_shared<Admission>(*this);
  if (!*admission) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "msjitd is shutting down");
  if (grpc::Status s = auth_.check(*context); !s.ok()) {
    ++auth_failures_;
    spdlog::warn("refused a call from {}: {}", context->peer(), s.error_message());
    return s;
  }
  // A request is parsed, copied to a worker and answered: bounded, so no mix of clients can exhaust memory.
  if (!admission->reserve(request->Length()))
    return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                        "msjitd holds too many request bytes at once (--max-inflight-mb " +
                            std::to_string(config_.max_inflight_bytes >> 20) + "); retry later");
  grpc::ByteBuffer copy(*request);  // (shares the slices)
  grpc::ProtoBufferReader reader(&copy);
  if (!message.ParseFromZeroCopyStream(&reader))
    return invalidArgument("the request is not a serialized " + message.GetTypeName());
  return grpc::Status::OK;
}

grpc::ServerUnaryReactor *MsjitService::Compile(grpc::CallbackServerContext *context,
                                                const grpc::ByteBuffer *bytes, grpc::ByteBuffer *out) {
  metrics_.countRequest(Rpc::kCompile);
  auto arrived = std::chrono::steady_clock::now();
  auto answered = [this, arrived] {
    metrics_.request_seconds.observe(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - arrived).count());
  };
  auto request = std::make_shared<rpc::CompileRequest>();
  std::shared_ptr<Admission> admission;
  if (grpc::Status s = accept(context, bytes, *request, admission); !s.ok()) return finishNow(context, s);
  if (std::string error = validateOptions(request->options()); !error.empty())
    return finishNow(context, invalidArgument(error));
  ir::ShapeLimits limits;
  limits.maxNodes = config_.max_nodes;
  if (std::string error = checkCompileRequest(*request, limits); !error.empty())
    return finishNow(context, invalidArgument(error));
  std::string key = cacheKey(*request, compiler_);
  if (auto hit = cache_.lookup(key)) {
    ++(hit->hit() == rpc::TIER_MEMORY ? memory_hits_ : disk_hits_);
    serialize(*hit, out);
    answered();
    return finishNow(context, grpc::Status::OK);
  }
  auto *reactor = context->DefaultReactor();
  finishLater(reactor, [this, admission, request, key, context, out, answered]() {
    CompileFlights::Role role;
    CompileOutcome outcome = flights_.run(
        key, context, [&](const std::function<bool()> &abandoned) { return compileMiss(key, *request, abandoned); },
        role);
    if (role == CompileFlights::Role::kRefused) ++queue_rejections_;
    if (role == CompileFlights::Role::kRemembered) ++remembered_failures_;
    if (role == CompileFlights::Role::kJoined && outcome.status.ok()) {
      ++inflight_joins_;
      outcome.reply.set_hit(rpc::TIER_INFLIGHT);
      outcome.reply.set_compile_ms(0);
    }
    if (outcome.status.ok()) serialize(outcome.reply, out);
    answered();
    return outcome.status;
  });
  return reactor;
}

CompileOutcome MsjitService::compileMiss(const std::string &key, const rpc::CompileRequest &request,
                                         const std::function<bool()> &abandoned) {
  // Another request may have finished this key between our lookup and now.
  if (auto hit = cache_.lookup(key)) return {grpc::Status::OK, *hit};
  if (!cluster_) return compileLocally(key, request, abandoned);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(config_.compile_timeout_s);
  return cluster_->run(key, abandoned, deadline, [&](const std::function<bool()> &abandoned) {
    return compileLocally(key, request, abandoned);
  });
}

void MsjitService::setSharedTier(SharedTier *shared) {
  cluster_ = std::make_unique<ClusterFlights>(*shared, cache_);
  shared->onCall([this](double seconds) { metrics_.shared_seconds.observe(seconds); });
}

std::optional<rpc::CompileReply> MsjitService::lookup(const std::string &key) {
  if (auto hit = cache_.lookup(key)) return hit;
  return cluster_ ? cluster_->fetch(key) : std::nullopt;
}

CompileOutcome MsjitService::compileLocally(const std::string &key, const rpc::CompileRequest &request,
                                            const std::function<bool()> &abandoned) {
  worker::WorkerRequest job;
  auto *compile = job.mutable_compile();
  *compile->mutable_request() = request;
  compile->set_dump_dir(config_.dump_ir);
  compile->set_dump_name(key.substr(0, 16));
  compile->set_repro_dir(cache_.dir() + "/repro");
  compile->set_max_nodes(config_.max_nodes);
  auto start = std::chrono::steady_clock::now();
  JobOutcome ran = compilers_.run(job, start + std::chrono::seconds(config_.compile_timeout_s), abandoned);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (ran.end != JobEnd::kReplied || !ran.reply.has_compile()) return compileFailure(key, request, ran);
  const worker::CompileResult &result = ran.reply.compile();
  if (result.status() != worker::JOB_OK) {
    ++compile_errors_;
    spdlog::warn("compile {} failed: {}", key.substr(0, 12), result.error());
    bool invalid = result.status() == worker::JOB_INVALID_INPUT;
    return {grpc::Status(invalid ? grpc::StatusCode::INVALID_ARGUMENT : grpc::StatusCode::INTERNAL, result.error()), {}};
  }
  ++compiles_;
  compile_us_total_ += static_cast<uint64_t>(ms * 1000);
  metrics_.compile_seconds.observe(ms / 1000);
  rpc::CompileReply reply;
  *reply.mutable_inputs() = result.inputs();
  *reply.mutable_outputs() = result.outputs();
  if (!cache_.insert(key, result.artifact(), reply))
    return {grpc::Status(grpc::StatusCode::UNAVAILABLE, "cannot write to the artifact cache in " + cache_.dir()), {}};
  reply.set_hit(rpc::TIER_NONE);
  reply.set_compile_ms(ms);
  spdlog::info("compiled {} at {} in {:.1f} ms ({} bytes, worker {})", key.substr(0, 12),
               request.options().jit_level(), ms, result.artifact().size(), ran.pid);
  return {grpc::Status::OK, reply};
}

CompileOutcome MsjitService::compileFailure(const std::string &key, const rpc::CompileRequest &request,
                                            const JobOutcome &job) {
  using grpc::StatusCode;
  ++compile_errors_;
  std::string worker = "compile worker " + std::to_string(job.pid);
  switch (job.end) {
    case JobEnd::kTimedOut:
      ++compile_timeouts_;
      return {grpc::Status(StatusCode::DEADLINE_EXCEEDED,
                           "compiling this graph took longer than msjitd's --compile-timeout of " +
                               std::to_string(config_.compile_timeout_s) + " s; the " + worker + " was stopped"),
              {}};
    case JobEnd::kCancelled:
      ++compile_cancellations_;
      return {grpc::Status(StatusCode::CANCELLED,
                           "every client waiting for this compile went away; the " + worker + " was stopped"),
              {}};
    case JobEnd::kNoWorker:
      return {grpc::Status(StatusCode::UNAVAILABLE, "no compile worker could be started: " + job.detail), {}};
    case JobEnd::kOutOfMemory:
      ++worker_crashes_;
      return {grpc::Status(StatusCode::RESOURCE_EXHAUSTED,
                           "compiling this graph needs more memory than msjitd's --compile-memory-mb of " +
                               std::to_string(config_.compile_memory_mb) + " MiB (the " + worker + " " +
                               job.detail + ")"),
              {},
              /*remember=*/true};
    default: break;
  }
  ++worker_crashes_;
  // What a developer needs to reproduce it without a daemon.
  std::string repro = cache_.dir() + "/repro/" + key.substr(0, 16) + ".request.pb";
  std::ofstream(repro, std::ios::binary) << request.SerializeAsString();
  std::string message = "the " + worker + " crashed compiling this graph: it " + job.detail +
                        "; reproduce with: msjit-worker --replay " + repro;
  spdlog::error("compile {}: {}", key.substr(0, 12), message);
  return {grpc::Status(StatusCode::INTERNAL, message), {}, /*remember=*/true};
}

grpc::ServerWriteReactor<grpc::ByteBuffer> *MsjitService::FetchArtifact(grpc::CallbackServerContext *context,
                                                                        const grpc::ByteBuffer *bytes) {
  metrics_.countRequest(Rpc::kFetchArtifact);
  rpc::FetchArtifactRequest request;
  std::shared_ptr<Admission> admission;
  if (grpc::Status s = accept(context, bytes, request, admission); !s.ok()) return new ChunkWriter(s);
  if (!isDigest(request.key())) return new ChunkWriter(invalidArgument("key must be a hex SHA-256 digest"));
  auto entry = lookup(request.key());
  std::optional<std::string> artifact = entry ? cache_.artifactBytes(*entry) : std::nullopt;
  if (!artifact)
    return new ChunkWriter(grpc::Status(grpc::StatusCode::NOT_FOUND, "no artifact for key " + request.key()));
  return new ChunkWriter(admission, std::move(*artifact), entry->artifact_digest());
}

grpc::ServerUnaryReactor *MsjitService::Execute(grpc::CallbackServerContext *context, const grpc::ByteBuffer *bytes,
                                                grpc::ByteBuffer *out) {
  metrics_.countRequest(Rpc::kExecute);
  auto request = std::make_shared<rpc::ExecuteRequest>();
  std::shared_ptr<Admission> admission;
  if (grpc::Status s = accept(context, bytes, *request, admission); !s.ok()) return finishNow(context, s);
  if (!executeAllowed(config_))
    return finishNow(context, grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                                           "Execute runs code in msjitd's workers and is not served on TCP "
                                           "unless msjitd runs with --allow-execute"));
  if (!isDigest(request->key())) return finishNow(context, invalidArgument("key must be a hex SHA-256 digest"));
  auto entry = lookup(request->key());
  if (!entry)
    return finishNow(context, grpc::Status(grpc::StatusCode::NOT_FOUND,
                                           "no artifact for key " + request->key() + "; Compile first"));
  auto *reactor = context->DefaultReactor();
  finishLater(reactor, [this, admission, request, entry = *entry, context, out]() {
    rpc::ExecuteReply reply;
    grpc::Status status = execute(entry, *request, context, reply);
    if (status.ok()) serialize(reply, out);
    return status;
  });
  return reactor;
}

grpc::Status MsjitService::execute(const rpc::CompileReply &entry, rpc::ExecuteRequest &request,
                                   grpc::CallbackServerContext *context, rpc::ExecuteReply &reply) {
  worker::WorkerRequest job;
  job.mutable_execute()->set_artifact_path(entry.artifact_path());
  job.mutable_execute()->set_artifact_digest(entry.artifact_digest());
  job.mutable_execute()->mutable_inputs()->Swap(request.mutable_inputs());
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(config_.compile_timeout_s);
  JobOutcome ran = executors_.run(job, deadline, [context] { return context->IsCancelled(); });
  if (ran.end != JobEnd::kReplied || !ran.reply.has_execute()) {
    if (ran.end == JobEnd::kCrashed || ran.end == JobEnd::kOutOfMemory) ++worker_crashes_;
    return grpc::Status(ran.end == JobEnd::kTimedOut ? grpc::StatusCode::DEADLINE_EXCEEDED : grpc::StatusCode::INTERNAL,
                        "the execute worker " + std::to_string(ran.pid) + " " + ran.detail);
  }
  worker::ExecuteResult &result = *ran.reply.mutable_execute();
  switch (result.status()) {
    case worker::JOB_OK: reply.mutable_outputs()->Swap(result.mutable_outputs()); return grpc::Status::OK;
    case worker::JOB_INVALID_INPUT: return invalidArgument(result.error());
    case worker::JOB_TAMPERED:
      cache_.verifyArtifact(entry.artifact_digest());  // quarantines it
      return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, result.error() + "; it was quarantined: Compile again");
    default: return grpc::Status(grpc::StatusCode::INTERNAL, result.error());
  }
}

grpc::ServerUnaryReactor *MsjitService::Stats(grpc::CallbackServerContext *context, const grpc::ByteBuffer *bytes,
                                              grpc::ByteBuffer *out) {
  metrics_.countRequest(Rpc::kStats);
  rpc::StatsRequest request;
  std::shared_ptr<Admission> admission;
  if (grpc::Status s = accept(context, bytes, request, admission); !s.ok()) return finishNow(context, s);
  serialize(snapshot(), out);
  return finishNow(context, grpc::Status::OK);
}

std::string MsjitService::prometheusText() { return renderPrometheus(snapshot(), metrics_); }

rpc::StatsReply MsjitService::snapshot() {
  rpc::StatsReply reply;
  reply.set_compile_requests(metrics_.requests[static_cast<size_t>(Rpc::kCompile)]);
  reply.set_compiles(compiles_);
  reply.set_memory_hits(memory_hits_);
  reply.set_disk_hits(disk_hits_);
  reply.set_inflight_joins(inflight_joins_);
  reply.set_compile_errors(compile_errors_);
  reply.set_executes(metrics_.requests[static_cast<size_t>(Rpc::kExecute)]);
  reply.set_memory_entries(cache_.memoryEntries());
  reply.set_memory_bytes(cache_.memoryBytes());
  reply.set_disk_entries(cache_.diskEntries());
  reply.set_disk_bytes(cache_.diskBytes());
  reply.set_disk_evictions(cache_.evictions());
  reply.set_uptime_s(std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count());
  reply.set_version(kVersion);
  reply.set_cache_dir(cache_.dir());
  reply.set_compile_ms_total(compile_us_total_ / 1000.0);
  reply.set_worker_crashes(worker_crashes_);
  reply.set_compile_timeouts(compile_timeouts_);
  reply.set_compile_cancellations(compile_cancellations_);
  reply.set_queue_rejections(queue_rejections_);
  reply.set_workers(compilers_.live() + executors_.live());
  reply.set_queued(flights_.active());
  reply.set_quarantined(cache_.quarantined());
  reply.set_auth_failures(auth_failures_);
  reply.set_remembered_failures(remembered_failures_);
  if (cluster_) cluster_->shared().fillStats(reply);
  return reply;
}

}  // namespace msjit::server
