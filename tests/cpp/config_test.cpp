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
