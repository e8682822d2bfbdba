// redis_connection.h - RESP commands to Redis with timeouts, and a small pool
// that fails fast while Redis is down.
//
// hiredis encodes commands (redisFormatCommandArgv) and parses replies
// (redisReader); RedisTransport carries the bytes. A connection authenticates
// (AUTH [user] password) and selects its database when it opens. Every step
// has a deadline, so a dead or frozen Redis costs the caller a bounded wait:
// RedisClient::call returns nullopt ("unavailable") and, after a failure,
// refuses further calls at once for a pause that doubles up to 5 s, so the
// daemon serves from its local tiers instead of queueing on Redis.
#ifndef MSJIT_SERVER_CACHE_REDIS_CONNECTION_H
#define MSJIT_SERVER_CACHE_REDIS_CONNECTION_H

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "server/cache/redis_transport.h"
#include "server/config.h"

struct redisReader;

namespace msjit::server {

struct RedisReply {
  enum Kind { kNil, kString, kStatus, kError, kInteger, kArray };
  Kind kind = kNil;
  std::string str;  // kString, kStatus, kError
  long long integer = 0;
  std::vector<RedisReply> elements;
};

struct RedisOptions {
  RedisUrl url;
  std::string password;  // "" = no AUTH
  TlsFiles tls;          // used when url.tls
  std::chrono::milliseconds connect_timeout{2000};
  std::chrono::milliseconds command_timeout{5000};
};

class RedisConnection {
 public:
  // Connects, authenticates and selects the database; nullptr with `error` otherwise.
  static std::unique_ptr<RedisConnection> open(const RedisOptions &options, SSL_CTX *tls, std::string &error);
  ~RedisConnection();

  // One command and its reply within the command timeout. nullopt: the
  // connection failed (and must be dropped; `timed_out` says if Redis was
  // just slow); an error reply is a kError reply.
  std::optional<RedisReply> command(const std::vector<std::string> &args, std::string &error);
  std::optional<RedisReply> command(const std::vector<std::string> &args, std::string &error, bool &timed_out);
  bool send(const std::vector<std::string> &args, std::string &error);
  // The next reply by `deadline`; nullopt on timeout (`timed_out`) or failure.
  std::optional<RedisReply> read(Deadline deadline, std::string &error, bool &timed_out);

 private:
  RedisConnection(std::unique_ptr<RedisTransport> transport, std::chrono::milliseconds command_timeout);

  std::unique_ptr<RedisTransport> transport_;
  redisReader *reader_;
  std::chrono::milliseconds command_timeout_;
};

class RedisClient {
 public:
  // `error` is set if the TLS files are unusable (Redis itself is not contacted here).
  RedisClient(RedisOptions options, std::string &error);

  // One command on a pooled connection. nullopt: Redis is unavailable (or was
  // moments ago); the caller serves locally.
  std::optional<RedisReply> call(const std::vector<std::string> &args);
  // A connection of its own (for SUBSCRIBE), or nullptr while Redis is unavailable.
  std::unique_ptr<RedisConnection> dedicated();

  // Called with the duration of every call (seconds), for latency metrics.
  void onCall(std::function<void(double)> observe) { observe_ = std::move(observe); }
  // "host:port/db" (no credentials), for Stats and logs.
  std::string address() const;
  const RedisOptions &options() const { return options_; }

 private:
  // A pooled connection (`reused`) or, if none or `fresh`, a new one; nullptr while Redis is unavailable.
  std::unique_ptr<RedisConnection> take(bool &reused, bool fresh = false);
  void failed(const std::string &error);

  const RedisOptions options_;
  std::shared_ptr<SSL_CTX> tls_;
  std::function<void(double)> observe_;
  std::mutex mu_;
  std::vector<std::unique_ptr<RedisConnection>> idle_;
  std::chrono::steady_clock::time_point down_until_{};
  std::chrono::milliseconds pause_{0};
  bool warned_ = false;
};

}  // namespace msjit::server

#endif  // MSJIT_SERVER_CACHE_REDIS_CONNECTION_H
