// metrics.h - the daemon's latency histograms and its Prometheus text rendering.
//
// Counters live where they are counted (MsjitService, ArtifactCache, the
// shared tier) and reach Prometheus through a StatsReply snapshot, so
// `msjitctl stats` and /metrics can never disagree. Only distributions,
// which a StatsReply cannot carry, live here.
#ifndef MSJIT_SERVER_METRICS_H
#define MSJIT_SERVER_METRICS_H

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "proto/msjit.pb.h"

namespace msjit::server {

// A fixed-bucket histogram of durations in seconds. observe() is lock-free
// (relaxed atomics): a scrape may see a sum and a count one observation
// apart, which Prometheus tolerates.
class Histogram {
 public:
  static constexpr size_t kMaxBuckets = 16;
  // `bounds`: strictly increasing upper bounds in seconds (at most kMaxBuckets); +Inf is implicit.
  Histogram(std::string name, std::string help, std::vector<double> bounds);

  void observe(double seconds);

  const std::string &name() const { return name_; }
  const std::vector<double> &bounds() const { return bounds_; }
  // Cumulative count of observations <= bounds()[i]; i == bounds().size() is +Inf (= count()).
  uint64_t cumulative(size_t i) const;
  uint64_t count() const { return count_.load(std::memory_order_relaxed); }
  double sum() const { return sum_nanos_.load(std::memory_order_relaxed) / 1e9; }

  // HELP, TYPE, _bucket{le=...} lines, _sum and _count, in text format 0.0.4.
  std::string render() const;

 private:
  std::string name_, help_;
  std::vector<double> bounds_;
  std::array<std::atomic<uint64_t>, kMaxBuckets + 1> buckets_{};  // per bucket, not cumulative
  std::atomic<uint64_t> count_{0};
  std::atomic<uint64_t> sum_nanos_{0};  // integer nanoseconds: atomic add without a CAS loop
};

// The rpcs of service Msjit, for msjit_requests_total{rpc=...}.
enum class Rpc { kCompile, kFetchArtifact, kExecute, kStats, kListCache, kRemoveCacheEntry, kCount };

// What MsjitService (and the shared tier) record beyond the StatsReply counters.
struct Metrics {
  Metrics();
  void countRequest(Rpc rpc) { requests[static_cast<size_t>(rpc)].fetch_add(1, std::memory_order_relaxed); }

  Histogram compile_seconds;  // a real compile in a worker (misses only)
  Histogram shared_seconds;   // one call to the shared (Redis) tier
  Histogram request_seconds;  // a Compile request, arrival to reply, hit or miss
  std::array<std::atomic<uint64_t>, static_cast<size_t>(Rpc::kCount)> requests{};
};

// Prometheus text format 0.0.4 of a Stats snapshot and the metrics. Counters
// only: no keys, no paths, no addresses, no credentials (the endpoint is unauthenticated).
std::string renderPrometheus(const rpc::StatsReply &stats, const Metrics &metrics);

// A label value escaped for the text format: backslash, double quote and newline.
std::string escapeLabelValue(const std::string &value);

}  // namespace msjit::server

#endif  // MSJIT_SERVER_METRICS_H
