// shared_tier.h - the cache tier several daemons share, in Redis.
//
// Keys (all under --shared-cache-prefix, default "msjit:"):
//   ac:<key>      the action entry of a cache key: HMAC-SHA256 (32 bytes) then
//                 a serialized CompileReply (key, artifact digest and size,
//                 input/output signature; no daemon-local path). The HMAC,
//                 with --shared-cache-signing-key-file, covers the key and
//                 the reply, so an entry cannot be forged or moved to
//                 another key by anyone who can write to Redis but lacks
//                 the key. No expiry.
//   cas:<digest>  the artifact bytes, content-addressed by SHA-256. Written
//                 before the ac: entry naming it. No expiry.
//   err:<key>     a compile error (signed "code\nmessage"), shared with the
//                 other daemons for --shared-error-s, then gone (PX).
//   lease:<key>   who compiles the key now: a random owner token, SET NX PX
//                 --lease-s; renewed while the compile runs and released by
//                 Lua scripts that only touch the key if the token is still
//                 theirs. A holder that dies stops renewing: the lease
//                 lapses and a waiting daemon takes it over.
//   done:<key>    a pub/sub channel: PUBLISHed after ac: or err: is written,
//                 to wake the daemons waiting on that key.
// Fetching verifies the HMAC and the artifact's digest and size; a failure is
// counted (shared_rejected), logged, deleted from Redis and treated as a miss.
//
// Eviction is Redis's own: run it with `maxmemory <bytes>` and
// `maxmemory-policy allkeys-lru`. Any key may go at any time: an ac: entry
// whose cas: artifact was evicted is a miss (and is recompiled and stored
// again); an evicted lease is a lapsed lease (at worst one extra compile).
// Without a signing key (--insecure) entries are MACed with an empty key:
// that catches corruption, not forgery.
#ifndef MSJIT_SERVER_CACHE_SHARED_TIER_H
#define MSJIT_SERVER_CACHE_SHARED_TIER_H

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "proto/msjit.pb.h"
#include "server/cache/redis_connection.h"
#include "server/config.h"

namespace msjit::server {

struct SharedCounters {
  std::atomic<uint64_t> hits{0}, misses{0}, stores{0}, waits{0}, takeovers{0}, errors_served{0}, rejected{0},
      unavailable{0}, us_total{0};
};

class SharedTier {
 public:
  enum class Result { kHit, kMiss, kUnavailable };
  enum class Lease { kAcquired, kHeld, kUnavailable };

  SharedTier(RedisOptions redis, std::string signing_key, std::string prefix, int lease_s, int shared_error_s,
             std::string &error);

  // From --shared-cache and its files; nullptr with a message naming the flag
  // when a file is unreadable. Redis itself is not contacted.
  static std::unique_ptr<SharedTier> fromConfig(const Config &config, std::string &error);

  // ac:<key> and its cas: artifact, both verified. kMiss also for anything refused.
  // `count_miss` false: a waiting daemon polling, not a lookup (shared_misses counts lookups).
  Result fetch(const std::string &key, rpc::CompileReply &entry, std::string &artifact, bool count_miss = true);
  // cas: first, then ac:, then PUBLISH done:<key>. False if Redis failed.
  bool store(const std::string &key, const rpc::CompileReply &entry, const std::string &artifact);
  // A compile error for --shared-error-s, then PUBLISH done:<key>.
  bool storeError(const std::string &key, int code, const std::string &message);
  // err:<key> if a daemon failed this key recently.
  Result fetchError(const std::string &key, int &code, std::string &message);
  // Deletes ac:<key> and err:<key> (the artifact may be shared by other keys: left to
  // eviction); true if there was something to delete.
  bool remove(const std::string &key);
  // PING: is Redis reachable now (with these credentials)?
  bool reachable();

  Lease acquireLease(const std::string &key, std::string &token);
  bool renewLease(const std::string &key, const std::string &token);  // false: lost (or Redis failed)
  bool releaseLease(const std::string &key, const std::string &token);
  // kHit: someone holds the lease now; kMiss: nobody does.
  Result leaseHeld(const std::string &key);

  // A connection subscribed to done:<key>, or nullptr if Redis is unavailable.
  std::unique_ptr<RedisConnection> subscribe(const std::string &key);

  // Also called with the duration of every Redis call (seconds), e.g. for a latency histogram.
  void onCall(std::function<void(double)> observe) { observe_ = std::move(observe); }
  int leaseSeconds() const { return lease_s_; }
  RedisClient &redis() { return *redis_; }
  SharedCounters &counters() { return counters_; }
  void fillStats(rpc::StatsReply &stats) const;

 private:
  std::optional<RedisReply> call(const std::vector<std::string> &args);
  // The value of prefix+`name` if its length is in [min_bytes, max_bytes]; its length (an integer
  // reply) if not; nil if there is none.
  std::optional<RedisReply> boundedGet(const std::string &name, uint64_t min_bytes, uint64_t max_bytes);
  std::string sign(const std::string &what, const std::string &payload) const;
  // The payload of `signed_value` if its MAC over (what, payload) is right.
  std::optional<std::string> verify(const std::string &what, const std::string &signed_value) const;
  void reject(const std::string &key, const std::string &why, const std::vector<std::string> &redis_keys);

  std::unique_ptr<RedisClient> redis_;
  const std::string signing_key_, prefix_;
  const int lease_s_, shared_error_s_;
  SharedCounters counters_;
  std::function<void(double)> observe_;
};

}  // namespace msjit::server

#endif  // MSJIT_SERVER_CACHE_SHARED_TIER_H
