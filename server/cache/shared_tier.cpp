#include "server/cache/shared_tier.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <cctype>
#include <fstream>
#include <sstream>

#include "server/cache/digest.h"
#include "spdlog/spdlog.h"

namespace msjit::server {
namespace {

constexpr size_t kMacBytes = 32;
constexpr size_t kMaxEntryBytes = 4 << 20;  // an ac: or err: value; real ones are a few KiB

// GET, but only a value whose length is in [ARGV[1], ARGV[2]]: anyone who can write to Redis could
// otherwise make every daemon read a huge value before its MAC or digest is checked. A value of
// another length comes back as that length (an integer), a missing key as nil.
constexpr const char *kBoundedGetScript =
    "local n = redis.call('strlen', KEYS[1]) "
    "if n == 0 then return false end "
    "if n < tonumber(ARGV[1]) or n > tonumber(ARGV[2]) then return n end "
    "return redis.call('get', KEYS[1])";

// Renew only our own lease, release only our own lease: the token says whose it is.
constexpr const char *kRenewScript =
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";
constexpr const char *kReleaseScript =
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

std::string randomToken() {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1) return "";
  static const char *hex = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out.push_back(hex[b >> 4]);
    out.push_back(hex[b & 15]);
  }
  return out;
}

// The file's bytes without trailing whitespace; nullopt if unreadable or empty.
std::optional<std::string> readSecret(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string s = buffer.str();
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  if (s.empty() || in.bad()) return std::nullopt;
  return s;
}

bool isOk(const std::optional<RedisReply> &r) { return r && r->kind != RedisReply::kError; }

}  // namespace

SharedTier::SharedTier(RedisOptions redis, std::string signing_key, std::string prefix, int lease_s, int shared_error_s,
                       std::string &error)
    : redis_(std::make_unique<RedisClient>(std::move(redis), error)),
      signing_key_(std::move(signing_key)),
      prefix_(std::move(prefix)),
      lease_s_(lease_s),
      shared_error_s_(shared_error_s) {
  redis_->onCall([this](double seconds) {
    counters_.us_total += static_cast<uint64_t>(seconds * 1e6);
    if (observe_) observe_(seconds);
  });
}

std::unique_ptr<SharedTier> SharedTier::fromConfig(const Config &config, std::string &error) {
  RedisOptions options;
  if (error = parseRedisUrl(config.shared_cache, options.url); !error.empty()) return nullptr;
  if (!config.shared_cache_password_file.empty()) {
    auto password = readSecret(config.shared_cache_password_file);
    if (!password) {
      error = "--shared-cache-password-file " + config.shared_cache_password_file + " is unreadable or empty";
      return nullptr;
    }
    options.password = *password;
  }
  std::string key;
  if (!config.shared_cache_signing_key_file.empty()) {
    auto secret = readSecret(config.shared_cache_signing_key_file);
    if (!secret) {
      error = "--shared-cache-signing-key-file " + config.shared_cache_signing_key_file + " is unreadable or empty";
      return nullptr;
    }
    key = *secret;
  }
  options.tls = {config.shared_cache_tls_ca, config.shared_cache_tls_cert, config.shared_cache_tls_key};
  auto tier = std::make_unique<SharedTier>(std::move(options), key, config.shared_cache_prefix, config.lease_s,
                                           config.shared_error_s, error);
  return error.empty() ? std::move(tier) : nullptr;
}

std::optional<RedisReply> SharedTier::call(const std::vector<std::string> &args) {
  auto reply = redis_->call(args);
  if (!reply) ++counters_.unavailable;
  else if (reply->kind == RedisReply::kError) spdlog::warn("shared cache: {} failed: {}", args[0], reply->str);
  return reply;
}

std::string SharedTier::sign(const std::string &what, const std::string &payload) const {
  // The MAC covers what the value is (its logical key) as well as the value: a signed entry moved
  // to another key does not verify.
  std::string message = what + '\0' + payload;
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), signing_key_.data(), static_cast<int>(signing_key_.size()),
       reinterpret_cast<const unsigned char *>(message.data()), message.size(), mac, &len);
  return std::string(reinterpret_cast<char *>(mac), len) + payload;
}

std::optional<std::string> SharedTier::verify(const std::string &what, const std::string &signed_value) const {
  if (signed_value.size() < kMacBytes) return std::nullopt;
  std::string payload = signed_value.substr(kMacBytes);
  std::string expected = sign(what, payload);
  if (CRYPTO_memcmp(expected.data(), signed_value.data(), kMacBytes) != 0) return std::nullopt;
  return payload;
}

std::optional<RedisReply> SharedTier::boundedGet(const std::string &name, uint64_t min_bytes, uint64_t max_bytes) {
  return call({"EVAL", kBoundedGetScript, "1", prefix_ + name, std::to_string(min_bytes), std::to_string(max_bytes)});
}

void SharedTier::reject(const std::string &key, const std::string &why, const std::vector<std::string> &redis_keys) {
  ++counters_.rejected;
  spdlog::error("shared cache: refused the entry for {}: {}; deleted it from Redis", key.substr(0, 12), why);
  std::vector<std::string> del = {"DEL"};
  for (const auto &k : redis_keys) del.push_back(prefix_ + k);
  call(del);
}

SharedTier::Result SharedTier::fetch(const std::string &key, rpc::CompileReply &entry, std::string &artifact,
                                     bool count_miss) {
  const std::string ac = "ac:" + key;
  auto r = boundedGet(ac, kMacBytes, kMaxEntryBytes);
  if (!isOk(r)) return Result::kUnavailable;
  auto miss = [&] {
    if (count_miss) ++counters_.misses;
    return Result::kMiss;
  };
  if (r->kind == RedisReply::kNil) return miss();
  if (r->kind == RedisReply::kInteger) {
    reject(key, "its entry is " + std::to_string(r->integer) + " bytes long", {ac});
    return miss();
  }
  auto payload = verify(ac, r->str);
  if (!payload) {
    reject(key, "its signature does not verify (another signing key, or tampered)", {ac});
    return miss();
  }
  if (!entry.ParseFromString(*payload) || entry.key() != key || !isDigest(entry.artifact_digest())) {
    reject(key, "the signed entry does not describe this key", {ac});
    return miss();
  }
  const std::string cas = "cas:" + entry.artifact_digest();
  auto a = boundedGet(cas, entry.artifact_size(), entry.artifact_size());
  if (!isOk(a)) return Result::kUnavailable;
  if (a->kind == RedisReply::kNil) return miss();  // evicted: recompiled and stored again
  if (a->kind == RedisReply::kInteger || sha256Hex(a->str) != entry.artifact_digest()) {
    reject(key, "the artifact's bytes do not match its digest " + entry.artifact_digest().substr(0, 12), {ac, cas});
    return miss();
  }
  artifact = std::move(a->str);
  entry.clear_artifact_path();
  entry.set_hit(rpc::TIER_SHARED);
  entry.set_compile_ms(0);
  ++counters_.hits;
  return Result::kHit;
}

bool SharedTier::store(const std::string &key, const rpc::CompileReply &entry, const std::string &artifact) {
  rpc::CompileReply shared = entry;
  shared.set_key(key);
  shared.clear_artifact_path();  // daemon-local
  shared.set_hit(rpc::TIER_NONE);
  shared.set_compile_ms(0);
  // The artifact first: an entry in Redis always names an artifact that was stored.
  if (!isOk(call({"SET", prefix_ + "cas:" + shared.artifact_digest(), artifact}))) return false;
  if (!isOk(call({"SET", prefix_ + "ac:" + key, sign("ac:" + key, shared.SerializeAsString())}))) return false;
  ++counters_.stores;
  call({"PUBLISH", prefix_ + "done:" + key, "ok"});
  return true;
}

bool SharedTier::storeError(const std::string &key, int code, const std::string &message) {
  if (shared_error_s_ <= 0) return true;
  std::string value = sign("err:" + key, std::to_string(code) + "\n" + message);
  if (!isOk(call({"SET", prefix_ + "err:" + key, value, "PX", std::to_string(shared_error_s_ * 1000)}))) return false;
  call({"PUBLISH", prefix_ + "done:" + key, "err"});
  return true;
}

SharedTier::Result SharedTier::fetchError(const std::string &key, int &code, std::string &message) {
  auto r = boundedGet("err:" + key, kMacBytes, kMaxEntryBytes);
  if (!isOk(r)) return Result::kUnavailable;
  if (r->kind == RedisReply::kNil) return Result::kMiss;
  auto payload = r->kind == RedisReply::kString ? verify("err:" + key, r->str) : std::nullopt;
  size_t newline = payload ? payload->find('\n') : std::string::npos;
  if (newline == std::string::npos) {
    reject(key, "its compile error's signature does not verify", {"err:" + key});
    return Result::kMiss;
  }
  code = std::atoi(payload->substr(0, newline).c_str());
  message = payload->substr(newline + 1);
  return Result::kHit;
}

bool SharedTier::remove(const std::string &key) {
  auto r = call({"DEL", prefix_ + "ac:" + key, prefix_ + "err:" + key});
  return isOk(r) && r->integer > 0;
}

bool SharedTier::reachable() { return isOk(redis_->call({"PING"})); }

SharedTier::Lease SharedTier::acquireLease(const std::string &key, std::string &token) {
  token = randomToken();
  auto r = call({"SET", prefix_ + "lease:" + key, token, "NX", "PX", std::to_string(lease_s_ * 1000)});
  if (!isOk(r) || token.empty()) return Lease::kUnavailable;
  return r->kind == RedisReply::kNil ? Lease::kHeld : Lease::kAcquired;
}

bool SharedTier::renewLease(const std::string &key, const std::string &token) {
  auto r = call({"EVAL", kRenewScript, "1", prefix_ + "lease:" + key, token, std::to_string(lease_s_ * 1000)});
  return isOk(r) && r->integer == 1;
}

bool SharedTier::releaseLease(const std::string &key, const std::string &token) {
  auto r = call({"EVAL", kReleaseScript, "1", prefix_ + "lease:" + key, token});
  return isOk(r) && r->integer == 1;
}

SharedTier::Result SharedTier::leaseHeld(const std::string &key) {
  auto r = call({"EXISTS", prefix_ + "lease:" + key});
  if (!isOk(r)) return Result::kUnavailable;
  return r->integer == 1 ? Result::kHit : Result::kMiss;
}

std::unique_ptr<RedisConnection> SharedTier::subscribe(const std::string &key) {
  auto c = redis_->dedicated();
  if (!c) {
    ++counters_.unavailable;
    return nullptr;
  }
  std::string error;
  auto r = c->command({"SUBSCRIBE", prefix_ + "done:" + key}, error);
  if (!r || r->kind != RedisReply::kArray) {
    ++counters_.unavailable;
    return nullptr;
  }
  return c;
}

void SharedTier::fillStats(rpc::StatsReply &stats) const {
  stats.set_shared_cache(redis_->address());
  stats.set_shared_hits(counters_.hits);
  stats.set_shared_misses(counters_.misses);
  stats.set_shared_stores(counters_.stores);
  stats.set_shared_waits(counters_.waits);
  stats.set_shared_takeovers(counters_.takeovers);
  stats.set_shared_errors_served(counters_.errors_served);
  stats.set_shared_rejected(counters_.rejected);
  stats.set_shared_unavailable(counters_.unavailable);
  stats.set_shared_ms_total(counters_.us_total / 1000.0);
}

}  // namespace msjit::server
