#include "server/cache/redis_connection.h"

#include <hiredis/hiredis.h>

#include <cstdlib>

#include "spdlog/spdlog.h"

namespace msjit::server {
namespace {

constexpr size_t kMaxIdle = 8;
constexpr std::chrono::milliseconds kFirstPause{200}, kMaxPause{5000};

RedisReply convert(const redisReply *r) {
  RedisReply out;
  switch (r->type) {
    case REDIS_REPLY_STRING: out.kind = RedisReply::kString; break;
    case REDIS_REPLY_STATUS: out.kind = RedisReply::kStatus; break;
    case REDIS_REPLY_ERROR: out.kind = RedisReply::kError; break;
    case REDIS_REPLY_INTEGER: out.kind = RedisReply::kInteger; break;
    case REDIS_REPLY_ARRAY: out.kind = RedisReply::kArray; break;
    default: out.kind = RedisReply::kNil; break;
  }
  if (r->str) out.str.assign(r->str, r->len);
  out.integer = r->integer;
  for (size_t i = 0; i < r->elements; ++i) out.elements.push_back(convert(r->element[i]));
  return out;
}

// A setup command (AUTH, SELECT) that must answer +OK.
bool expectOk(RedisConnection &c, const std::vector<std::string> &args, std::string &error) {
  auto reply = c.command(args, error);
  if (!reply) return false;
  if (reply->kind == RedisReply::kError) {
    error = "Redis refused " + args[0] + ": " + reply->str;
    return false;
  }
  return true;
}

}  // namespace

RedisConnection::RedisConnection(std::unique_ptr<RedisTransport> transport, std::chrono::milliseconds command_timeout)
    : transport_(std::move(transport)), reader_(redisReaderCreate()), command_timeout_(command_timeout) {}

RedisConnection::~RedisConnection() { redisReaderFree(reader_); }

std::unique_ptr<RedisConnection> RedisConnection::open(const RedisOptions &options, SSL_CTX *tls, std::string &error) {
  auto deadline = std::chrono::steady_clock::now() + options.connect_timeout;
  auto transport = RedisTransport::open(options.url.host, options.url.port, options.url.tls ? tls : nullptr, deadline, error);
  if (!transport) return nullptr;
  std::unique_ptr<RedisConnection> c(new RedisConnection(std::move(transport), options.command_timeout));
  if (!options.password.empty()) {
    std::vector<std::string> auth = {"AUTH"};
    if (!options.url.user.empty()) auth.push_back(options.url.user);
    auth.push_back(options.password);
    if (!expectOk(*c, auth, error)) return nullptr;
  }
  if (options.url.db != 0 && !expectOk(*c, {"SELECT", std::to_string(options.url.db)}, error)) return nullptr;
  return c;
}

bool RedisConnection::send(const std::vector<std::string> &args, std::string &error) {
  std::vector<const char *> argv;
  std::vector<size_t> lens;
  for (const auto &a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  char *cmd = nullptr;
  int len = redisFormatCommandArgv(&cmd, static_cast<int>(args.size()), argv.data(), lens.data());
  if (len < 0) {
    error = "cannot encode a Redis command";
    return false;
  }
  bool ok = transport_->writeAll(std::string_view(cmd, static_cast<size_t>(len)),
                                 std::chrono::steady_clock::now() + command_timeout_, error);
  redisFreeCommand(cmd);
  return ok;
}

std::optional<RedisReply> RedisConnection::read(Deadline deadline, std::string &error, bool &timed_out) {
  timed_out = false;
  char buf[16384];
  for (;;) {
    void *raw = nullptr;
    if (redisReaderGetReply(reader_, &raw) != REDIS_OK) {
      error = std::string("unreadable reply from Redis: ") + reader_->errstr;
      return std::nullopt;
    }
    if (raw) {
      RedisReply reply = convert(static_cast<redisReply *>(raw));
      freeReplyObject(raw);
      return reply;
    }
    size_t n = transport_->readSome(buf, sizeof(buf), deadline, error, timed_out);
    if (n == 0) return std::nullopt;
    redisReaderFeed(reader_, buf, n);
  }
}

std::optional<RedisReply> RedisConnection::command(const std::vector<std::string> &args, std::string &error,
                                                   bool &timed_out) {
  timed_out = false;
  if (!send(args, error)) return std::nullopt;
  return read(std::chrono::steady_clock::now() + command_timeout_, error, timed_out);
}

std::optional<RedisReply> RedisConnection::command(const std::vector<std::string> &args, std::string &error) {
  bool timed_out = false;
  return command(args, error, timed_out);
}

RedisClient::RedisClient(RedisOptions options, std::string &error) : options_(std::move(options)) {
  if (options_.url.tls) tls_ = makeTlsContext(options_.tls, error);
}

std::string RedisClient::address() const {
  return std::string(options_.url.tls ? "rediss://" : "redis://") + options_.url.host + ":" +
         std::to_string(options_.url.port) + "/" + std::to_string(options_.url.db);
}

void RedisClient::failed(const std::string &error) {
  std::lock_guard<std::mutex> lock(mu_);
  idle_.clear();  // their peer is likely gone too
  pause_ = pause_.count() == 0 ? kFirstPause : std::min(pause_ * 2, kMaxPause);
  down_until_ = std::chrono::steady_clock::now() + pause_;
  // One warning per outage, not one per request.
  if (!warned_) spdlog::warn("shared cache {} unavailable ({}); serving locally, retrying in the background", address(), error);
  else spdlog::debug("shared cache {} still unavailable: {}", address(), error);
  warned_ = true;
}

std::unique_ptr<RedisConnection> RedisClient::take(bool &reused, bool fresh) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    reused = !fresh && !idle_.empty();
    if (reused) {
      auto c = std::move(idle_.back());
      idle_.pop_back();
      return c;
    }
    if (std::chrono::steady_clock::now() < down_until_) return nullptr;
  }
  std::string error;
  auto c = RedisConnection::open(options_, tls_.get(), error);
  if (!c) {
    failed(error);
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (warned_) spdlog::info("shared cache {} reachable again", address());
  warned_ = false;
  pause_ = std::chrono::milliseconds(0);
  return c;
}

// Always a new connection: a pooled one may have been closed by Redis meanwhile, and a failed
// SUBSCRIBE would make the caller compile instead of waiting.
std::unique_ptr<RedisConnection> RedisClient::dedicated() {
  bool reused = false;
  return take(reused, /*fresh=*/true);
}

std::optional<RedisReply> RedisClient::call(const std::vector<std::string> &args) {
  auto start = std::chrono::steady_clock::now();
  std::optional<RedisReply> reply;
  for (int attempt = 0; attempt < 2 && !reply; ++attempt) {
    bool reused = false, timed_out = false;
    auto c = take(reused);
    if (!c) break;
    std::string error;
    reply = c->command(args, error, timed_out);
    if (reply) {
      std::lock_guard<std::mutex> lock(mu_);
      if (idle_.size() < kMaxIdle) idle_.push_back(std::move(c));
    } else if (!reused || timed_out) {
      failed(error);
      break;
    }
    // A pooled connection Redis closed meanwhile (a restart, an idle timeout): so are the other
    // pooled ones; once more on a new one.
    std::lock_guard<std::mutex> lock(mu_);
    idle_.clear();
  }
  if (observe_) observe_(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return reply;
}

}  // namespace msjit::server
