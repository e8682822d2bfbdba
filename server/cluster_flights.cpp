#include "server/cluster_flights.h"

#include <condition_variable>
#include <mutex>
#include <thread>

#include "spdlog/spdlog.h"

namespace msjit::server {
namespace {

constexpr std::chrono::milliseconds kPoll{250};  // the safety net under pub/sub

// Errors of the graph itself: any daemon would fail the same way. Timeouts,
// crashes and cancellations are ours, and another daemon may well succeed.
bool shareable(const grpc::Status &s) {
  return s.error_code() == grpc::StatusCode::INVALID_ARGUMENT ||
         s.error_code() == grpc::StatusCode::FAILED_PRECONDITION;
}

// Renews a held lease every lease_s/3 until stopped, so it lapses only if this daemon dies or stalls.
class LeaseKeeper {
 public:
  LeaseKeeper(SharedTier &shared, const std::string &key, const std::string &token)
      : thread_([this, &shared, key, token] {
          auto every = std::chrono::milliseconds(shared.leaseSeconds() * 1000 / 3);
          std::unique_lock<std::mutex> lock(mu_);
          while (!cv_.wait_for(lock, every, [this] { return stop_; })) {
            lock.unlock();
            if (!shared.renewLease(key, token))
              spdlog::warn("shared cache: lost the lease on {} (another daemon may compile it too)", key.substr(0, 12));
            lock.lock();
          }
        }) {}
  ~LeaseKeeper() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;  // last: starts after the members it uses
};

}  // namespace

SharedTier::Result ClusterFlights::fetchInto(const std::string &key, bool count_miss, rpc::CompileReply &entry) {
  std::string artifact;
  SharedTier::Result result = shared_.fetch(key, entry, artifact, count_miss);
  if (result == SharedTier::Result::kHit && !cache_.insert(key, artifact, entry)) {
    spdlog::warn("shared cache: cannot copy {} into the local cache {}", key.substr(0, 12), cache_.dir());
    return SharedTier::Result::kMiss;
  }
  return result;
}

std::optional<rpc::CompileReply> ClusterFlights::fetch(const std::string &key) {
  rpc::CompileReply entry;
  if (fetchInto(key, /*count_miss=*/true, entry) != SharedTier::Result::kHit) return std::nullopt;
  entry.set_hit(rpc::TIER_SHARED);
  return entry;
}

std::optional<CompileOutcome> ClusterFlights::settled(const std::string &key, rpc::CacheTier tier, bool count_miss,
                                                      bool &unavailable) {
  rpc::CompileReply entry;
  switch (fetchInto(key, count_miss, entry)) {
    case SharedTier::Result::kUnavailable: unavailable = true; return std::nullopt;
    case SharedTier::Result::kHit: entry.set_hit(tier); return CompileOutcome{grpc::Status::OK, entry};
    case SharedTier::Result::kMiss: break;
  }
  int code = 0;
  std::string message;
  switch (shared_.fetchError(key, code, message)) {
    case SharedTier::Result::kUnavailable: unavailable = true; return std::nullopt;
    case SharedTier::Result::kHit: {
      grpc::Status status(static_cast<grpc::StatusCode>(code), message);
      if (!shareable(status)) return std::nullopt;
      ++shared_.counters().errors_served;
      return CompileOutcome{status, {}};
    }
    case SharedTier::Result::kMiss: return std::nullopt;
  }
  return std::nullopt;
}

CompileOutcome ClusterFlights::run(const std::string &key, const std::function<bool()> &abandoned,
                                   std::chrono::steady_clock::time_point deadline, const Compile &compile) {
  bool unavailable = false, lapsed = false;
  if (auto done = settled(key, rpc::TIER_SHARED, /*count_miss=*/true, unavailable)) return *done;
  while (!unavailable) {
    std::string token;
    SharedTier::Lease lease = shared_.acquireLease(key, token);
    if (lease == SharedTier::Lease::kUnavailable) break;
    if (lease == SharedTier::Lease::kAcquired) {
      if (lapsed) {
        ++shared_.counters().takeovers;
        spdlog::warn("shared cache: the lease on {} lapsed without a result; compiling it here", key.substr(0, 12));
      }
      // Another daemon may have finished between our look and our lease.
      if (auto done = settled(key, lapsed ? rpc::TIER_CLUSTER : rpc::TIER_SHARED, false, unavailable)) {
        shared_.releaseLease(key, token);
        return *done;
      }
      return compileHolding(key, token, abandoned, compile);
    }
    CompileOutcome outcome;
    switch (waitForHolder(key, abandoned, deadline, outcome)) {
      case Wait::kSettled:
      case Wait::kAbandoned: return outcome;
      case Wait::kLapsed: lapsed = true; break;
      case Wait::kUnavailable: unavailable = true; break;
    }
  }
  spdlog::debug("shared cache unavailable: compiling {} without it", key.substr(0, 12));
  CompileOutcome outcome = compile(abandoned);
  share(key, outcome);  // in case Redis is back (fails at once while it is not)
  return outcome;
}

void ClusterFlights::share(const std::string &key, const CompileOutcome &outcome) {
  if (outcome.status.ok()) {
    if (auto artifact = cache_.artifactBytes(outcome.reply)) shared_.store(key, outcome.reply, *artifact);
  } else if (shareable(outcome.status)) {
    shared_.storeError(key, static_cast<int>(outcome.status.error_code()), outcome.status.error_message());
  }
}

ClusterFlights::Wait ClusterFlights::waitForHolder(const std::string &key, const std::function<bool()> &abandoned,
                                                   std::chrono::steady_clock::time_point deadline,
                                                   CompileOutcome &outcome) {
  // Subscribed before looking, so a result published in between still wakes us.
  std::unique_ptr<RedisConnection> done = shared_.subscribe(key);
  if (!done) return Wait::kUnavailable;
  spdlog::debug("shared cache: another daemon holds the lease on {}; waiting for it", key.substr(0, 12));
  for (;;) {
    bool unavailable = false;
    if (auto result = settled(key, rpc::TIER_CLUSTER, false, unavailable)) {
      if (result->status.ok()) ++shared_.counters().waits;
      outcome = *result;
      return Wait::kSettled;
    }
    if (unavailable) return Wait::kUnavailable;
    // Before looking at the lease: a lease that keeps changing hands must not outlast the client.
    auto now = std::chrono::steady_clock::now();
    if (abandoned()) {
      outcome = {grpc::Status(grpc::StatusCode::CANCELLED,
                              "every client waiting for this graph went away while another msjitd compiled it"),
                 {}};
      return Wait::kAbandoned;
    }
    if (now >= deadline) {
      outcome = {grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED,
                              "another msjitd has held the compile lease on this graph for longer than "
                              "--compile-timeout; still not done"),
                 {}};
      return Wait::kAbandoned;
    }
    switch (shared_.leaseHeld(key)) {
      case SharedTier::Result::kUnavailable: return Wait::kUnavailable;
      case SharedTier::Result::kMiss: return Wait::kLapsed;
      case SharedTier::Result::kHit: break;
    }
    auto until = std::min(now + kPoll, deadline);
    if (done) {
      std::string error;
      bool timed_out = false;
      if (!done->read(until, error, timed_out) && !timed_out) done.reset();  // keep polling without it
    } else {
      std::this_thread::sleep_until(until);
    }
  }
}

CompileOutcome ClusterFlights::compileHolding(const std::string &key, const std::string &token,
                                              const std::function<bool()> &abandoned, const Compile &compile) {
  CompileOutcome outcome;
  {
    LeaseKeeper keeper(shared_, key, token);
    outcome = compile(abandoned);
    share(key, outcome);
  }
  // Released after the result is stored: a waiter that sees no lease and no result takes over.
  shared_.releaseLease(key, token);
  return outcome;
}

}  // namespace msjit::server
