// The C++ client's address lists, digests and failover when nothing answers (no daemon needed;
// tests/e2e/test_msjit_run.py and test_failover.py run it against real daemons).
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>

#include "client_cpp/client.h"

using namespace msjit::client;

namespace {

// A loopback port nothing listens on: bound, then closed.
std::string closedPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof addr;
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0);
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &size) == 0);
  ::close(fd);
  return "127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
}

}  // namespace

TEST_CASE("address lists split at commas, blanks dropped") {
  CHECK(splitAddresses("a:1, b:2 ,,unix:///x.sock") == std::vector<std::string>{"a:1", "b:2", "unix:///x.sock"});
  CHECK(splitAddresses(" , ").empty());
  ::setenv("MSJITD_ADDRESS", "h1:7420,h2:7420", 1);
  CHECK(defaultAddresses() == std::vector<std::string>{"h1:7420", "h2:7420"});
  CHECK(defaultAddress() == "h1:7420");
  ::setenv("MSJITD_ADDRESS", "", 1);
  ::setenv("MSJIT_HOME", "/tmp/msjit-client-test", 1);
  CHECK(defaultAddresses() == std::vector<std::string>{"unix:///tmp/msjit-client-test/msjitd.sock"});
  ::unsetenv("MSJITD_ADDRESS");
}

TEST_CASE("sha256Hex and isDigest") {
  CHECK(sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(isDigest(sha256Hex("")));
  CHECK_FALSE(isDigest("../../etc/passwd"));
  CHECK_FALSE(isDigest(std::string(64, 'A')));
}

TEST_CASE("no daemon at any address: UNAVAILABLE naming them all, within the health-check bound") {
  std::vector<std::string> dead{closedPort(), closedPort()};
  FailoverClient client(dead, Credentials());
  msjit::rpc::CompileReply reply;
  auto t0 = std::chrono::steady_clock::now();
  grpc::Status status = client.compile(msjit::rpc::CompileRequest(), reply);
  auto elapsed = std::chrono::steady_clock::now() - t0;
  CHECK(status.error_code() == grpc::StatusCode::UNAVAILABLE);
  CHECK(status.error_message() == "msjitd is not reachable at " + dead[0] + ", " + dead[1] + " (MSJITD_ADDRESS)");
  CHECK(elapsed < std::chrono::milliseconds(2 * kHealthTimeoutMs + 500));
  CHECK(client.address().empty());
}

TEST_CASE("a digest that is not a SHA-256 never names a file") {
  FailoverClient client({closedPort()}, Credentials());
  std::string bytes;
  grpc::Status status = client.fetchArtifact("k", "../../../tmp/x", bytes);
  CHECK(status.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
}
