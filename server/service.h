// service.h - the msjit.rpc.Msjit gRPC service.
//
// Every method takes the raw request bytes (gRPC's callback API), so bytes that
// do not parse are the client's INVALID_ARGUMENT, never an INTERNAL of ours.
// Cache hits are answered on gRPC's thread; compiles and executes run in
// supervised worker processes, waited for on a thread of their own.
#ifndef MSJIT_SERVER_SERVICE_H
#define MSJIT_SERVER_SERVICE_H

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>

#include "proto/msjit.grpc.pb.h"
#include "server/auth.h"
#include "server/cache/artifact_cache.h"
#include "server/cache/cache_key.h"
#include "server/config.h"
#include "server/cluster_flights.h"
#include "server/compile_flights.h"
#include "server/metrics.h"
#include "server/worker/worker_pool.h"

namespace msjit::server {

using RawService = rpc::Msjit::WithRawCallbackMethod_Compile<rpc::Msjit::WithRawCallbackMethod_FetchArtifact<
    rpc::Msjit::WithRawCallbackMethod_Execute<rpc::Msjit::WithRawCallbackMethod_Stats<
        rpc::Msjit::WithRawCallbackMethod_ListCache<rpc::Msjit::WithRawCallbackMethod_RemoveCacheEntry<
            rpc::Msjit::Service>>>>>>;

class MsjitService final : public RawService {
 public:
  MsjitService(const Config &config, ArtifactCache &cache, const Authenticator &auth, WorkerPool &compilers,
               WorkerPool &executors, Metrics &metrics);

  grpc::ServerUnaryReactor *Compile(grpc::CallbackServerContext *, const grpc::ByteBuffer *request,
                                    grpc::ByteBuffer *reply) override;
  grpc::ServerWriteReactor<grpc::ByteBuffer> *FetchArtifact(grpc::CallbackServerContext *,
                                                            const grpc::ByteBuffer *request) override;
  grpc::ServerUnaryReactor *Execute(grpc::CallbackServerContext *, const grpc::ByteBuffer *request,
                                    grpc::ByteBuffer *reply) override;
  grpc::ServerUnaryReactor *Stats(grpc::CallbackServerContext *, const grpc::ByteBuffer *request,
                                  grpc::ByteBuffer *reply) override;
  // cache_admin.cpp: msjitctl cache ls / cache rm.
  grpc::ServerUnaryReactor *ListCache(grpc::CallbackServerContext *, const grpc::ByteBuffer *request,
                                      grpc::ByteBuffer *reply) override;
  grpc::ServerUnaryReactor *RemoveCacheEntry(grpc::CallbackServerContext *, const grpc::ByteBuffer *request,
                                             grpc::ByteBuffer *reply) override;

  // Shares artifacts and compiles with the other daemons on `shared` (--shared-cache); before serving.
  void setSharedTier(SharedTier *shared);

  // The Prometheus text of /metrics: a Stats snapshot and the histograms.
  std::string prometheusText();

  // Refuses new requests (UNAVAILABLE) and waits up to `timeout` for the
  // in-flight ones to finish. True if they all did.
  bool drain(std::chrono::seconds timeout);

 private:
  // Counts a request as in flight for its lifetime; false once draining.
  class Admission {
   public:
    explicit Admission(MsjitService &s);
    ~Admission();
    explicit operator bool() const { return admitted_; }
    // Holds `bytes` of request against --max-inflight-mb until this admission ends; false if over.
    bool reserve(uint64_t bytes);

   private:
    MsjitService &s_;
    bool admitted_;
    uint64_t bytes_ = 0;
  };

  // Admission, credentials and request bytes, in that order; OK with `message` filled, else why not.
  grpc::Status accept(grpc::CallbackServerContext *context, const grpc::ByteBuffer *request,
                      google::protobuf::Message &message, std::shared_ptr<Admission> &admission);
  // The Stats counters as they are now.
  rpc::StatsReply snapshot();
  CompileOutcome compileMiss(const std::string &key, const rpc::CompileRequest &request,
                             const std::function<bool()> &abandoned);
  CompileOutcome compileLocally(const std::string &key, const rpc::CompileRequest &request,
                                const std::function<bool()> &abandoned);
  // The local tiers, then the shared tier (which fills the local ones).
  std::optional<rpc::CompileReply> lookup(const std::string &key);
  CompileOutcome compileFailure(const std::string &key, const rpc::CompileRequest &request, const JobOutcome &job);
  grpc::Status execute(const rpc::CompileReply &entry, rpc::ExecuteRequest &request,
                       grpc::CallbackServerContext *context, rpc::ExecuteReply &reply);

  const Config &config_;
  ArtifactCache &cache_;
  const Authenticator &auth_;
  WorkerPool &compilers_, &executors_;
  Metrics &metrics_;
  std::unique_ptr<ClusterFlights> cluster_;  // with --shared-cache
  const CompilerIdentity compiler_;
  CompileFlights flights_;
  std::mutex drain_mu_;
  std::condition_variable drain_cv_;
  int inflight_ = 0;
  uint64_t inflight_bytes_ = 0;
  bool draining_ = false;
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();

  // Requests per rpc are counted in metrics_ (Stats reads them there).
  std::atomic<uint64_t> compiles_{0}, memory_hits_{0}, disk_hits_{0}, inflight_joins_{0},
      compile_errors_{0}, worker_crashes_{0}, compile_timeouts_{0}, compile_cancellations_{0},
      queue_rejections_{0}, auth_failures_{0}, remembered_failures_{0};
  std::atomic<uint64_t> compile_us_total_{0};
};

}  // namespace msjit::server

#endif  // MSJIT_SERVER_SERVICE_H
