// config_test.cpp - msjitd flags: valid values parse, bad ones say which flag.
#include <catch2/catch.hpp>

#include "server/config.h"

using msjit::server::Config;
using msjit::server::parseFlags;

namespace {
std::string parse(std::vector<std::string> args, Config &c) {
  bool exit_now = false;
  return parseFlags(args, c, exit_now);
}

std::string parse(std::vector<std::string> args) {
  Config fresh;
  return parse(std::move(args), fresh);
}
}  // namespace

TEST_CASE("flags parse in both spellings", "[config]") {
  Config c;
  REQUIRE(parse({"--listen", "unix:///tmp/x.sock", "--cache-dir=/tmp/c", "--jobs", "4", "--log-level=debug",
                 "--cache-mem-mb", "8", "--dump-ir", "/tmp/d"},
                c) == "");
  CHECK(c.listen == "unix:///tmp/x.sock");
  CHECK(c.cache_dir == "/tmp/c");
  CHECK(c.jobs == 4);
  CHECK(c.log_level == "debug");
  CHECK(c.cache_mem_bytes == 8ull << 20);
  CHECK(c.dump_ir == "/tmp/d");
}

TEST_CASE("bad flags get messages naming the flag", "[config]") {
  CHECK(parse({"--listen", "x:1", "--cache-dir", "d", "--jobs", "0"}) == "--jobs must be > 0 and <= 256");
  CHECK(parse({"--listen", "x:1", "--cache-dir", "d", "--log-level", "loud"}).find("--log-level") == 0);
  CHECK(parse({"--cache-dir", "d"}).find("--listen is required") == 0);
  CHECK(parse({"--listen", "x:1"}).find("--cache-dir is required") == 0);
  CHECK(parse({"--listen", "x:1", "--cache-dir", "d", "--bogus", "1"}) == "unknown flag '--bogus'");
  CHECK(parse({"--listen"}) == "--listen needs a value");
}

TEST_CASE("the disk budget flag", "[config]") {
  Config c;
  REQUIRE(parse({"--listen", "x:1", "--cache-dir", "d", "--cache-disk-mb", "64"}, c) == "");
  CHECK(c.cache_disk_bytes == 64ull << 20);
  CHECK(parse({"--listen", "x:1", "--cache-dir", "d", "--cache-disk-mb", "0"}).find("--cache-disk-mb") == 0);
}

TEST_CASE("shared cache URLs", "[config]") {
  msjit::server::RedisUrl url;
  REQUIRE(msjit::server::parseRedisUrl("redis://cache.internal:7000/3", url) == "");
  CHECK(url.host == "cache.internal");
  CHECK(url.port == 7000);
  CHECK(url.db == 3);
  CHECK_FALSE(url.tls);
  REQUIRE(msjit::server::parseRedisUrl("rediss://msjit@[::1]", url) == "");
  CHECK(url.tls);
  CHECK(url.user == "msjit");
  CHECK(url.host == "::1");
  CHECK(url.port == 6379);
  CHECK(msjit::server::parseRedisUrl("redis://u:secret@h:1", url).find("password") != std::string::npos);
  CHECK(msjit::server::parseRedisUrl("http://h:1", url).find("--shared-cache must be") == 0);
  CHECK(msjit::server::parseRedisUrl("redis://h:99999", url).find("port") != std::string::npos);
  CHECK(msjit::server::parseRedisUrl("redis://h/99", url).find("database") != std::string::npos);
  CHECK(msjit::server::parseRedisUrl("redis://:1", url).find("host") != std::string::npos);
}

TEST_CASE("shared cache flags", "[config]") {
  Config c;
  REQUIRE(parse({"--listen", "x:1", "--cache-dir", "d", "--shared-cache", "redis://127.0.0.1:6379",
                 "--shared-cache-signing-key-file", "/k", "--lease-s", "5", "--shared-error-s", "0",
                 "--metrics-listen", "127.0.0.1:9100"},
                c) == "");
  CHECK(c.shared_cache == "redis://127.0.0.1:6379");
  CHECK(c.lease_s == 5);
  CHECK(c.shared_error_s == 0);
  CHECK(c.shared_cache_prefix == "msjit:");
  CHECK(c.metrics_listen == "127.0.0.1:9100");
  CHECK(parse({"--listen", "x:1", "--cache-dir", "d", "--shared-cache", "redis://h"}).find("signing-key") !=
        std::string::npos);
  CHECK(parse({"--listen", "x:1", "--cache-dir", "d", "--shared-cache", "redis://h", "--insecure"}) == "");
  CHECK(parse({"--listen", "x:1", "--cache-dir", "d", "--shared-cache", "redis://h", "--insecure",
               "--shared-cache-tls-ca", "/ca"})
            .find("rediss://") != std::string::npos);
  CHECK(parse({"--listen", "x:1", "--cache-dir", "d", "--shared-cache-signing-key-file", "/k"})
            .find("need --shared-cache") != std::string::npos);
  CHECK(parse({"--listen", "x:1", "--cache-dir", "d", "--metrics-listen", "nowhere"}).find("--metrics-listen") == 0);
  CHECK(parse({"--listen", "x:1", "--cache-dir", "d", "--lease-s", "1"}).find("--lease-s") == 0);
}
