// The shared tier against a real redis-server on a free loopback port.
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "server/cache/digest.h"
#include "server/cache/shared_tier.h"

using namespace msjit::server;
using Clock = std::chrono::steady_clock;

namespace {

constexpr const char *kRedisServer = "/usr/bin/redis-server";

int freePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

// One redis-server process, no persistence, killed when the test ends.
struct RedisServer {
  pid_t pid = -1;
  int port = freePort();
  std::string password;

  explicit RedisServer(std::string pw = "", std::vector<std::string> extra = {}) : password(std::move(pw)) {
    pid = fork();
    if (pid == 0) {
      int null = open("/dev/null", O_RDWR);
      dup2(null, 1);
      dup2(null, 2);
      std::string p = std::to_string(port);
      std::vector<const char *> argv = {kRedisServer, "--port", p.c_str(), "--bind", "127.0.0.1", "--save", "",
                                        "--appendonly", "no", "--dir", "/tmp"};
      if (!password.empty()) argv.insert(argv.end(), {"--requirepass", password.c_str()});
      for (const auto &e : extra) argv.push_back(e.c_str());
      argv.push_back(nullptr);
      execv(kRedisServer, const_cast<char **>(argv.data()));
      _exit(127);
    }
    auto deadline = Clock::now() + std::chrono::seconds(10);
    while (Clock::now() < deadline) {
      std::string error;
      if (RedisConnection::open(options(), nullptr, error)) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    FAIL("redis-server did not start on port " << port);
  }
  ~RedisServer() {
    kill(pid, SIGCONT);
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
  RedisOptions options(std::chrono::milliseconds timeout = std::chrono::milliseconds(2000)) const {
    RedisOptions o;
    o.url.host = "127.0.0.1";
    o.url.port = port;
    o.password = password;
    o.connect_timeout = o.command_timeout = timeout;
    return o;
  }
  // A raw command, to look at or tamper with what the tier stored.
  RedisReply raw(const std::vector<std::string> &args) {
    std::string error;
    auto c = RedisConnection::open(options(), nullptr, error);
    REQUIRE(c);
    auto r = c->command(args, error);
    REQUIRE(r);
    return *r;
  }
};

std::unique_ptr<SharedTier> tier(const RedisOptions &o, const std::string &signing_key = "k1", int lease_s = 30,
                                 int error_s = 10) {
  std::string error;
  auto t = std::make_unique<SharedTier>(o, signing_key, "msjit:", lease_s, error_s, error);
  REQUIRE(error.empty());
  return t;
}

// An entry as the daemon stores it: digest and size of `artifact`, a signature.
msjit::rpc::CompileReply entryFor(const std::string &key, const std::string &artifact) {
  msjit::rpc::CompileReply e;
  e.set_key(key);
  e.set_artifact_digest(sha256Hex(artifact));
  e.set_artifact_size(artifact.size());
  e.set_artifact_path("/daemon/local/path.so");
  e.add_inputs()->set_name("x");
  return e;
}

bool haveRedis() { return access(kRedisServer, X_OK) == 0; }

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

}  // namespace

#define REQUIRE_REDIS()                                              \
  if (!haveRedis()) {                                                \
    WARN("skipped: " << kRedisServer << " is not installed");        \
    SUCCEED();                                                       \
    return;                                                          \
  }

TEST_CASE("shared tier: store then fetch round trip, without the daemon-local path") {
  REQUIRE_REDIS();
  RedisServer redis;
  auto a = tier(redis.options()), b = tier(redis.options());
  std::string key = sha256Hex("graph 1"), artifact = std::string("\x7f" "ELF", 4) + std::string(100000, '\0') + "end";
  REQUIRE(a->store(key, entryFor(key, artifact), artifact));
  msjit::rpc::CompileReply got;
  std::string bytes;
  REQUIRE(b->fetch(key, got, bytes) == SharedTier::Result::kHit);
  CHECK(bytes == artifact);
  CHECK(got.key() == key);
  CHECK(got.artifact_digest() == sha256Hex(artifact));
  CHECK(got.artifact_path().empty());
  CHECK(got.hit() == msjit::rpc::TIER_SHARED);
  CHECK(got.inputs(0).name() == "x");
  CHECK(b->fetch(sha256Hex("other"), got, bytes) == SharedTier::Result::kMiss);
  CHECK(a->counters().stores == 1);
  CHECK(b->counters().hits == 1);
  CHECK(b->counters().misses == 1);
  CHECK(b->counters().us_total > 0);
  // The artifact was stored before the entry naming it; both under the prefix.
  CHECK(redis.raw({"EXISTS", "msjit:cas:" + sha256Hex(artifact), "msjit:ac:" + key}).integer == 2);
}

TEST_CASE("shared tier: a tampered entry, another signing key or a tampered artifact is refused and deleted") {
  REQUIRE_REDIS();
  RedisServer redis;
  auto t = tier(redis.options());
  std::string key = sha256Hex("graph 2"), artifact = "artifact bytes";
  std::string ac = "msjit:ac:" + key, cas = "msjit:cas:" + sha256Hex(artifact);
  msjit::rpc::CompileReply got;
  std::string bytes;

  SECTION("an entry whose bytes changed after signing") {
    REQUIRE(t->store(key, entryFor(key, artifact), artifact));
    std::string value = redis.raw({"GET", ac}).str;
    value.back() ^= 1;
    redis.raw({"SET", ac, value});
    CHECK(t->fetch(key, got, bytes) == SharedTier::Result::kMiss);
    CHECK(t->counters().rejected == 1);
    CHECK(redis.raw({"EXISTS", ac}).integer == 0);
  }
  SECTION("an entry signed with another key") {
    REQUIRE(tier(redis.options(), "someone else's key")->store(key, entryFor(key, artifact), artifact));
    CHECK(t->fetch(key, got, bytes) == SharedTier::Result::kMiss);
    CHECK(t->counters().rejected == 1);
  }
  SECTION("an entry copied to another key") {
    REQUIRE(t->store(key, entryFor(key, artifact), artifact));
    std::string other = sha256Hex("graph 3");
    redis.raw({"SET", "msjit:ac:" + other, redis.raw({"GET", ac}).str});
    CHECK(t->fetch(other, got, bytes) == SharedTier::Result::kMiss);
    CHECK(t->counters().rejected == 1);
  }
  SECTION("an artifact whose bytes changed") {
    REQUIRE(t->store(key, entryFor(key, artifact), artifact));
    redis.raw({"SET", cas, "artifact bytez"});
    CHECK(t->fetch(key, got, bytes) == SharedTier::Result::kMiss);
    CHECK(t->counters().rejected == 1);
    CHECK(redis.raw({"EXISTS", ac, cas}).integer == 0);
  }
  SECTION("an artifact or an entry replaced by a huge value is refused unread") {
    REQUIRE(t->store(key, entryFor(key, artifact), artifact));
    redis.raw({"SET", cas, std::string(8 << 20, 'x')});
    CHECK(t->fetch(key, got, bytes) == SharedTier::Result::kMiss);
    CHECK(t->counters().rejected == 1);
    redis.raw({"SET", ac, std::string(8 << 20, 'x')});
    CHECK(t->fetch(key, got, bytes) == SharedTier::Result::kMiss);
    CHECK(t->counters().rejected == 2);
    CHECK(redis.raw({"EXISTS", ac}).integer == 0);
  }
  SECTION("an evicted artifact is a plain miss") {
    REQUIRE(t->store(key, entryFor(key, artifact), artifact));
    redis.raw({"DEL", cas});
    CHECK(t->fetch(key, got, bytes) == SharedTier::Result::kMiss);
    CHECK(t->counters().rejected == 0);
    CHECK(t->counters().misses == 1);
  }
}

TEST_CASE("shared tier: a lease is exclusive, renewed and released only by its holder, and lapses") {
  REQUIRE_REDIS();
  RedisServer redis;
  auto a = tier(redis.options(), "k1", /*lease_s=*/2), b = tier(redis.options(), "k1", 2);
  std::string key = sha256Hex("graph 4"), ta, tb;
  REQUIRE(a->acquireLease(key, ta) == SharedTier::Lease::kAcquired);
  CHECK(b->acquireLease(key, tb) == SharedTier::Lease::kHeld);
  CHECK(b->leaseHeld(key) == SharedTier::Result::kHit);
  CHECK_FALSE(b->renewLease(key, tb));
  CHECK_FALSE(b->releaseLease(key, tb));
  CHECK(a->renewLease(key, ta));
  CHECK(redis.raw({"PTTL", "msjit:lease:" + key}).integer > 1500);
  CHECK(a->releaseLease(key, ta));
  CHECK(b->leaseHeld(key) == SharedTier::Result::kMiss);

  // A holder that stops renewing loses the lease after lease_s; a takeover cannot be undone by it.
  REQUIRE(a->acquireLease(key, ta) == SharedTier::Lease::kAcquired);
  auto start = Clock::now();
  while (b->acquireLease(key, tb) != SharedTier::Lease::kAcquired && secondsSince(start) < 5)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(secondsSince(start) > 1.5);
  CHECK(secondsSince(start) < 3.0);
  CHECK_FALSE(a->renewLease(key, ta));
  CHECK_FALSE(a->releaseLease(key, ta));
  CHECK(b->leaseHeld(key) == SharedTier::Result::kHit);
}

TEST_CASE("shared tier: a compile error is shared for --shared-error-s, then gone") {
  REQUIRE_REDIS();
  RedisServer redis;
  auto t = tier(redis.options(), "k1", 30, /*error_s=*/1);
  std::string key = sha256Hex("graph 5"), message;
  int code = 0;
  CHECK(t->fetchError(key, code, message) == SharedTier::Result::kMiss);
  REQUIRE(t->storeError(key, 3, "Add: shapes (2,3) and (4,) do not broadcast"));
  REQUIRE(t->fetchError(key, code, message) == SharedTier::Result::kHit);
  CHECK(code == 3);
  CHECK(message == "Add: shapes (2,3) and (4,) do not broadcast");
  std::this_thread::sleep_for(std::chrono::milliseconds(1300));
  CHECK(t->fetchError(key, code, message) == SharedTier::Result::kMiss);

  // A forged error (no valid MAC) is refused.
  redis.raw({"SET", "msjit:err:" + key, std::string(32, 'x') + "3\nforged"});
  CHECK(t->fetchError(key, code, message) == SharedTier::Result::kMiss);
  CHECK(t->counters().rejected == 1);
}

TEST_CASE("shared tier: remove drops the entry and the error; done:<key> is published on store") {
  REQUIRE_REDIS();
  RedisServer redis;
  auto t = tier(redis.options());
  std::string key = sha256Hex("graph 6"), artifact = "bytes";
  auto sub = t->subscribe(key);
  REQUIRE(sub);
  REQUIRE(t->store(key, entryFor(key, artifact), artifact));
  std::string error;
  bool timed_out = false;
  auto message = sub->read(Clock::now() + std::chrono::seconds(2), error, timed_out);
  REQUIRE(message);
  REQUIRE(message->elements.size() == 3);
  CHECK(message->elements[1].str == "msjit:done:" + key);
  REQUIRE(t->storeError(key, 3, "bad"));
  CHECK(t->remove(key));
  CHECK_FALSE(t->remove(key));
  CHECK(redis.raw({"EXISTS", "msjit:ac:" + key, "msjit:err:" + key}).integer == 0);
}

TEST_CASE("shared tier: an ACL user limited to the prefix, and a database other than 0") {
  REQUIRE_REDIS();
  RedisServer redis("admin");
  redis.raw({"ACL", "SETUSER", "msjitd", "on", ">daemon-pw", "~msjit:*", "&msjit:*", "+@all"});
  auto o = redis.options();
  o.url.user = "msjitd";
  o.password = "daemon-pw";
  o.url.db = 3;
  auto t = tier(o);
  std::string key = sha256Hex("graph 9"), artifact = "bytes";
  REQUIRE(t->store(key, entryFor(key, artifact), artifact));
  msjit::rpc::CompileReply got;
  std::string bytes;
  CHECK(t->fetch(key, got, bytes) == SharedTier::Result::kHit);
  CHECK(redis.raw({"EXISTS", "msjit:ac:" + key}).integer == 0);  // not in database 0
  std::string error;
  auto admin = RedisConnection::open(redis.options(), nullptr, error);
  REQUIRE(admin);
  REQUIRE(admin->command({"SELECT", "3"}, error));
  CHECK(admin->command({"EXISTS", "msjit:ac:" + key}, error)->integer == 1);
}

TEST_CASE("shared tier: under maxmemory with allkeys-lru, evicted artifacts are misses, never rejections") {
  REQUIRE_REDIS();
  RedisServer redis("", {"--maxmemory", "4mb", "--maxmemory-policy", "allkeys-lru"});
  auto t = tier(redis.options());
  std::vector<std::string> keys;
  for (int i = 0; i < 40; ++i) {  // 40 x 256 KiB: several times maxmemory
    std::string key = sha256Hex("evicted " + std::to_string(i)), artifact(256 << 10, static_cast<char>('a' + i % 26));
    artifact += std::to_string(i);
    t->store(key, entryFor(key, artifact), artifact);
    keys.push_back(key);
  }
  int hits = 0, misses = 0;
  for (const auto &key : keys) {
    msjit::rpc::CompileReply got;
    std::string bytes;
    auto r = t->fetch(key, got, bytes);
    REQUIRE(r != SharedTier::Result::kUnavailable);
    (r == SharedTier::Result::kHit ? hits : misses)++;
  }
  CHECK(hits > 0);
  CHECK(misses > 0);
  CHECK(t->counters().rejected == 0);
}

TEST_CASE("shared tier: pooled connections that Redis closed are replaced without a failure") {
  REQUIRE_REDIS();
  RedisServer redis;
  auto t = tier(redis.options());
  msjit::rpc::CompileReply got;
  std::string bytes, key = sha256Hex("graph 8");
  REQUIRE(t->fetch(key, got, bytes) == SharedTier::Result::kMiss);
  redis.raw({"CLIENT", "KILL", "TYPE", "normal", "SKIPME", "no"});
  CHECK(t->fetch(key, got, bytes) == SharedTier::Result::kMiss);
  redis.raw({"CLIENT", "KILL", "TYPE", "normal", "SKIPME", "no"});
  CHECK(t->subscribe(key) != nullptr);
  CHECK(t->counters().unavailable == 0);
}

TEST_CASE("shared tier: a dead, frozen or refusing Redis fails within the timeout, then fast") {
  REQUIRE_REDIS();
  msjit::rpc::CompileReply got;
  std::string bytes, key = sha256Hex("graph 7"), token;

  SECTION("nothing listens") {
    RedisOptions o;
    o.url.host = "127.0.0.1";
    o.url.port = freePort();
    auto t = tier(o);
    auto start = Clock::now();
    CHECK(t->fetch(key, got, bytes) == SharedTier::Result::kUnavailable);
    CHECK(t->acquireLease(key, token) == SharedTier::Lease::kUnavailable);
    CHECK_FALSE(t->store(key, entryFor(key, "x"), "x"));
    CHECK(secondsSince(start) < 1.0);
    CHECK(t->counters().unavailable >= 2);
  }
  SECTION("Redis is frozen (SIGSTOP): one call waits out the command timeout, the next fails at once") {
    RedisServer redis;
    auto t = tier(redis.options(std::chrono::milliseconds(300)));
    REQUIRE(t->fetch(key, got, bytes) == SharedTier::Result::kMiss);  // a pooled connection
    kill(redis.pid, SIGSTOP);
    auto start = Clock::now();
    CHECK(t->fetch(key, got, bytes) == SharedTier::Result::kUnavailable);
    CHECK(secondsSince(start) < 1.0);
    start = Clock::now();
    CHECK(t->fetch(key, got, bytes) == SharedTier::Result::kUnavailable);
    CHECK(secondsSince(start) < 0.1);
    kill(redis.pid, SIGCONT);
    // Back after the pause (which doubles while Redis stays down, at most 5 s).
    start = Clock::now();
    while (t->fetch(key, got, bytes) == SharedTier::Result::kUnavailable && secondsSince(start) < 5)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    CHECK(t->fetch(key, got, bytes) == SharedTier::Result::kMiss);
  }
  SECTION("a wrong password") {
    RedisServer redis("right");
    auto o = redis.options();
    o.password = "wrong";
    auto t = tier(o);
    CHECK(t->fetch(key, got, bytes) == SharedTier::Result::kUnavailable);
    CHECK(tier(redis.options())->fetch(key, got, bytes) == SharedTier::Result::kMiss);
  }
}
