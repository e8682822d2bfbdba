// service.h - the msjit.rpc.Msjit gRPC service.
#ifndef MSJIT_SERVER_SERVICE_H
#define MSJIT_SERVER_SERVICE_H

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>

#include "proto/msjit.grpc.pb.h"
#include "runtime/msjit_runtime.h"
#include "server/cache/artifact_cache.h"
#include "server/config.h"
#include "server/job_slots.h"
#include "server/single_flight.h"

namespace msjit::server {

class MsjitService final : public rpc::Msjit::Service {
 public:
  MsjitService(const Config &config, ArtifactCache &cache);
  ~MsjitService() override;

  grpc::Status Compile(grpc::ServerContext *, const rpc::CompileRequest *request,
                       rpc::CompileReply *reply) override;
  grpc::Status FetchArtifact(grpc::ServerContext *, const rpc::FetchArtifactRequest *request,
                             grpc::ServerWriter<rpc::ArtifactChunk> *writer) override;
  grpc::Status Execute(grpc::ServerContext *, const rpc::ExecuteRequest *request,
                       rpc::ExecuteReply *reply) override;
  grpc::Status Stats(grpc::ServerContext *, const rpc::StatsRequest *,
                     rpc::StatsReply *reply) override;

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

   private:
    MsjitService &s_;
    bool admitted_;
  };

  struct Outcome {
    grpc::Status status;
    rpc::CompileReply reply;
  };
  Outcome compileMiss(const std::string &key, const rpc::CompileRequest &request);
  // The loaded executable for a cached key (loaded once, kept for the daemon's life).
  grpc::Status loadExecutable(const std::string &key, const msrt_executable **exe);

  const Config &config_;
  ArtifactCache &cache_;
  JobSlots jobs_;
  SingleFlight<Outcome> single_flight_;
  std::mutex drain_mu_;
  std::condition_variable drain_cv_;
  int inflight_ = 0;
  bool draining_ = false;
  std::mutex executables_mu_;
  std::map<std::string, msrt_executable *> executables_;
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();

  std::atomic<uint64_t> compile_requests_{0}, compiles_{0}, memory_hits_{0}, disk_hits_{0},
      inflight_joins_{0}, compile_errors_{0}, executes_{0};
  std::atomic<uint64_t> compile_us_total_{0};
};

}  // namespace msjit::server

#endif  // MSJIT_SERVER_SERVICE_H
