#include "server/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <stdexcept>

namespace msjit::server {
namespace {

// The shortest decimal that reads back as `v` (Prometheus parses Go floats: 0.005, 1e-05, +Inf).
std::string formatValue(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (std::isnan(v)) return "NaN";
  char buf[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

struct Sample {
  std::string labels;  // `k="v",...` already escaped, or ""
  double value;
};

// One metric family: HELP and TYPE, then its samples.
void family(std::string &out, const std::string &name, const char *type, const char *help,
            const std::vector<Sample> &samples) {
  out += "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
  for (const Sample &s : samples)
    out += name + (s.labels.empty() ? "" : "{" + s.labels + "}") + " " + formatValue(s.value) + "\n";
}

void counter(std::string &out, const std::string &name, const char *help, double value) {
  family(out, name, "counter", help, {{"", value}});
}

void gauge(std::string &out, const std::string &name, const char *help, double value) {
  family(out, name, "gauge", help, {{"", value}});
}

std::string label(const std::string &key, const std::string &value) {
  return key + "=\"" + escapeLabelValue(value) + "\"";
}

}  // namespace

Histogram::Histogram(std::string name, std::string help, std::vector<double> bounds)
    : name_(std::move(name)), help_(std::move(help)), bounds_(std::move(bounds)) {
  if (bounds_.size() > kMaxBuckets || !std::is_sorted(bounds_.begin(), bounds_.end()) ||
      std::adjacent_find(bounds_.begin(), bounds_.end()) != bounds_.end())
    throw std::invalid_argument("histogram " + name_ + ": at most 16 strictly increasing bounds");
}

void Histogram::observe(double seconds) {
  if (!(seconds >= 0)) seconds = 0;  // a clock step backwards (or NaN) is not a negative duration
  // First bound >= seconds: Prometheus buckets are "less than or equal".
  size_t i = std::lower_bound(bounds_.begin(), bounds_.end(), seconds) - bounds_.begin();
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  sum_nanos_.fetch_add(static_cast<uint64_t>(std::llround(std::min(seconds, 1e9) * 1e9)), std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
}

uint64_t Histogram::cumulative(size_t i) const {
  uint64_t total = 0;
  for (size_t b = 0; b <= std::min(i, bounds_.size()); ++b) total += buckets_[b].load(std::memory_order_relaxed);
  return total;
}

std::string Histogram::render() const {
  std::vector<Sample> buckets;
  uint64_t total = 0;
  for (size_t b = 0; b <= bounds_.size(); ++b) {
    total += buckets_[b].load(std::memory_order_relaxed);
    double le = b < bounds_.size() ? bounds_[b] : INFINITY;
    buckets.push_back({label("le", formatValue(le)), static_cast<double>(total)});
  }
  std::string out;
  family(out, name_, "histogram", help_.c_str(), {});
  for (const Sample &s : buckets) out += name_ + "_bucket{" + s.labels + "} " + formatValue(s.value) + "\n";
  // _count equals the +Inf bucket of this same pass, so a scrape is self-consistent.
  out += name_ + "_sum " + formatValue(sum()) + "\n" + name_ + "_count " + formatValue(total) + "\n";
  return out;
}

Metrics::Metrics()
    : compile_seconds("msjit_compile_duration_seconds", "Time of a real compile in a worker (cache misses only).",
                      {0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300}),
      shared_seconds("msjit_shared_call_duration_seconds", "Time of one call to the shared (Redis) tier.",
                     {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5}),
      request_seconds("msjit_compile_request_duration_seconds",
                      "Time of a Compile request from arrival to reply, hit or miss.",
                      {0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 30, 120}) {}

std::string escapeLabelValue(const std::string &value) {
  std::string out;
  for (char c : value) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string renderPrometheus(const rpc::StatsReply &s, const Metrics &metrics) {
  static const char *const kRpcNames[] = {"Compile", "FetchArtifact", "Execute", "Stats", "ListCache",
                                          "RemoveCacheEntry"};
  static_assert(std::size(kRpcNames) == static_cast<size_t>(Rpc::kCount));
  std::string out;
  std::vector<Sample> byRpc;
  for (size_t i = 0; i < std::size(kRpcNames); ++i)
    byRpc.push_back({label("rpc", kRpcNames[i]), double(metrics.requests[i].load(std::memory_order_relaxed))});
  family(out, "msjit_requests_total", "counter", "Requests received, by rpc.", byRpc);
  family(out, "msjit_cache_hits_total", "counter",
         "Compile requests answered without compiling here, by tier (cluster: waited for another daemon's compile).",
         {{label("tier", "memory"), double(s.memory_hits())},
          {label("tier", "disk"), double(s.disk_hits())},
          {label("tier", "shared"), double(s.shared_hits())},
          {label("tier", "cluster"), double(s.shared_waits())},
          {label("tier", "inflight"), double(s.inflight_joins())}});
  counter(out, "msjit_compiles_total", "Real compiles (cache misses compiled by this daemon).", s.compiles());
  counter(out, "msjit_compile_errors_total", "Compiles that failed (bad graph, crash, timeout, cancellation).",
          s.compile_errors());
  counter(out, "msjit_compile_timeouts_total", "Compiles stopped at --compile-timeout.", s.compile_timeouts());
  counter(out, "msjit_compile_cancellations_total", "Compiles stopped because every waiting client went away.",
          s.compile_cancellations());
  counter(out, "msjit_queue_rejections_total", "Compiles refused because the queue was full (--max-queue).",
          s.queue_rejections());
  counter(out, "msjit_remembered_failures_total", "Compiles refused fast: the graph crashed a worker recently.",
          s.remembered_failures());
  counter(out, "msjit_worker_crashes_total", "Worker processes that died mid-job.", s.worker_crashes());
  counter(out, "msjit_auth_failures_total", "Calls refused for a missing or wrong credential.", s.auth_failures());
  counter(out, "msjit_quarantined_total", "Artifacts that failed their digest check and were moved aside.",
          s.quarantined());
  counter(out, "msjit_cache_evictions_total", "Entries evicted to keep the disk tier in its budget.",
          s.disk_evictions());
  gauge(out, "msjit_queue_depth", "Compiles queued or running now.", s.queued());
  gauge(out, "msjit_workers", "Live worker processes (compile and execute).", s.workers());
  family(out, "msjit_cache_entries", "gauge", "Entries in a local cache tier.",
         {{label("tier", "memory"), double(s.memory_entries())}, {label("tier", "disk"), double(s.disk_entries())}});
  family(out, "msjit_cache_bytes", "gauge", "Bytes held by a local cache tier.",
         {{label("tier", "memory"), double(s.memory_bytes())}, {label("tier", "disk"), double(s.disk_bytes())}});
  gauge(out, "msjit_uptime_seconds", "Seconds since the daemon started.", s.uptime_s());
  gauge(out, "msjit_shared_enabled", "1 if the daemon runs with a shared tier (--shared-cache).",
        s.shared_cache().empty() ? 0 : 1);
  counter(out, "msjit_shared_hits_total", "Artifacts found in the shared tier and verified.", s.shared_hits());
  counter(out, "msjit_shared_misses_total", "Shared-tier lookups that found nothing.", s.shared_misses());
  counter(out, "msjit_shared_stores_total", "Artifacts this daemon published to the shared tier.", s.shared_stores());
  counter(out, "msjit_shared_waits_total", "Compiles another daemon held the lease for; this one waited.",
          s.shared_waits());
  counter(out, "msjit_shared_takeovers_total", "Leases taken over from a holder that stopped renewing.",
          s.shared_takeovers());
  counter(out, "msjit_shared_errors_served_total", "Compile errors answered from another daemon's recent failure.",
          s.shared_errors_served());
  counter(out, "msjit_shared_rejected_total", "Shared entries or artifacts refused: bad signature, digest or shape.",
          s.shared_rejected());
  counter(out, "msjit_shared_unavailable_total", "Shared-tier calls that failed or timed out (served locally).",
          s.shared_unavailable());
  counter(out, "msjit_shared_call_seconds_total", "Seconds spent in shared-tier calls.", s.shared_ms_total() / 1000);
  for (const Histogram *h : {&metrics.compile_seconds, &metrics.shared_seconds, &metrics.request_seconds})
    out += h->render();
  return out;
}

}  // namespace msjit::server
