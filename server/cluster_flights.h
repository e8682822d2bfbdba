// cluster_flights.h - one compile per key across the daemons sharing a Redis tier.
//
// After a local miss (and the local single-flight, so one request per daemon
// per key gets here), a daemon looks in Redis, then takes the key's lease.
// The holder compiles, renewing the lease every lease_s/3, stores the result
// (or a compile error) and releases the lease. The others wait: woken by
// done:<key> (pub/sub) with a poll every 250 ms as a safety net, until the
// entry appears (TIER_CLUSTER), an error is shared, or the lease lapses
// without a result (its holder died: take it over and compile). Whenever
// Redis is unreachable the daemon just compiles locally.
#ifndef MSJIT_SERVER_CLUSTER_FLIGHTS_H
#define MSJIT_SERVER_CLUSTER_FLIGHTS_H

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "server/cache/artifact_cache.h"
#include "server/cache/shared_tier.h"
#include "server/compile_flights.h"

namespace msjit::server {

class ClusterFlights {
 public:
  using Compile = std::function<CompileOutcome(const std::function<bool()> &abandoned)>;

  ClusterFlights(SharedTier &shared, ArtifactCache &cache) : shared_(shared), cache_(cache) {}

  // The key's verified entry from Redis, copied into the local tiers (hit = TIER_SHARED).
  std::optional<rpc::CompileReply> fetch(const std::string &key);

  // Resolves a local miss: from Redis, by waiting for another daemon's
  // compile, or by `compile` (whose result is then shared). Waiting stops
  // when `abandoned` says every client left, or at `deadline`.
  CompileOutcome run(const std::string &key, const std::function<bool()> &abandoned,
                     std::chrono::steady_clock::time_point deadline, const Compile &compile);

  SharedTier &shared() { return shared_; }

 private:
  enum class Wait { kSettled, kLapsed, kUnavailable, kAbandoned };
  // Redis's verified entry for `key`, copied into the local tiers (kMiss if that fails).
  SharedTier::Result fetchInto(const std::string &key, bool count_miss, rpc::CompileReply &entry);
  // An entry (with `tier`) or a shared error for `key` in Redis, if there is one.
  std::optional<CompileOutcome> settled(const std::string &key, rpc::CacheTier tier, bool count_miss, bool &unavailable);
  Wait waitForHolder(const std::string &key, const std::function<bool()> &abandoned,
                     std::chrono::steady_clock::time_point deadline, CompileOutcome &outcome);
  // Stores a compile's artifact, or its error if another daemon would fail the same way.
  void share(const std::string &key, const CompileOutcome &outcome);
  CompileOutcome compileHolding(const std::string &key, const std::string &token, const std::function<bool()> &abandoned,
                                const Compile &compile);

  SharedTier &shared_;
  ArtifactCache &cache_;
};

}  // namespace msjit::server

#endif  // MSJIT_SERVER_CLUSTER_FLIGHTS_H
