// auth_test.cpp - which addresses need credentials, and the token check's semantics.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>

#include "server/auth.h"

using namespace msjit::server;

namespace {

Config listening(const std::string &listen) {
  Config c;
  c.listen = listen;
  return c;
}

// A file in a fresh temporary directory holding `text`; removed with the object.
struct TempFile {
  std::string dir, path;
  explicit TempFile(const std::string &text) {
    char templ[] = "/tmp/auth_test.XXXXXX";
    dir = mkdtemp(templ);
    path = dir + "/token";
    std::ofstream(path) << text;
  }
  ~TempFile() {
    unlink(path.c_str());
    rmdir(dir.c_str());
  }
};

std::unique_ptr<Authenticator> withToken(const std::string &file_text) {
  TempFile file(file_text);
  Config c = listening("127.0.0.1:1");
  c.auth_token_file = file.path;
  std::string error;
  auto auth = Authenticator::fromConfig(c, error);
  REQUIRE(error == "");
  REQUIRE(auth != nullptr);
  return auth;
}

}  // namespace

TEST_CASE("local addresses: unix sockets and loopback only", "[auth]") {
  for (const char *local : {"unix:///tmp/x.sock", "unix:/tmp/x.sock", "unix-abstract:msjit", "127.0.0.1:5000",
                            "127.1.2.3:5000", "localhost:5000", "[::1]:5000", "ipv4:127.0.0.1:5000",
                            "[::ffff:127.0.0.1]:5000"}) {
    INFO(local);
    CHECK(isLocalAddress(local));
  }
  for (const char *exposed : {"0.0.0.0:5000", ":5000", "[::]:5000", "10.0.0.1:5000", "128.0.0.1:5000",
                              "example.com:5000", "localhost.example.com:5000", "[::ffff:10.0.0.1]:5000",
                              "[2001:db8::1]:5000"}) {
    INFO(exposed);
    CHECK_FALSE(isLocalAddress(exposed));
  }
}

TEST_CASE("a non-local address needs a credential or --insecure", "[auth]") {
  CHECK(checkExposure(listening("unix:///tmp/x.sock")) == "");
  CHECK(checkExposure(listening("127.0.0.1:5000")) == "");
  std::string refusal = checkExposure(listening("0.0.0.0:5000"));
  CHECK_THAT(refusal, Catch::Contains("0.0.0.0:5000") && Catch::Contains("--insecure") &&
                          Catch::Contains("--auth-token-file"));
  Config token = listening("0.0.0.0:5000");
  token.auth_token_file = "/some/token";
  CHECK(checkExposure(token) == "");
  Config tls = listening("0.0.0.0:5000");
  tls.tls_cert = "/c.pem";
  tls.tls_key = "/k.pem";
  CHECK(checkExposure(tls) == "");
  Config insecure = listening("0.0.0.0:5000");
  insecure.insecure = true;
  CHECK(checkExposure(insecure) == "");
}

TEST_CASE("Execute: always on a socket file, on TCP only with --allow-execute", "[auth]") {
  CHECK(executeAllowed(listening("unix:///tmp/x.sock")));
  CHECK_FALSE(executeAllowed(listening("unix-abstract:msjit")));  // no file mode guards it
  CHECK_FALSE(executeAllowed(listening("127.0.0.1:5000")));
  CHECK_FALSE(executeAllowed(listening("0.0.0.0:5000")));
  Config allowed = listening("127.0.0.1:5000");
  allowed.allow_execute = true;
  CHECK(executeAllowed(allowed));
}

TEST_CASE("constant-time comparison is plain equality", "[auth]") {
  CHECK(constantTimeEquals("secret", "secret"));
  CHECK_FALSE(constantTimeEquals("secreT", "secret"));
  CHECK_FALSE(constantTimeEquals("secre", "secret"));     // a prefix
  CHECK_FALSE(constantTimeEquals("secrets", "secret"));   // longer, with the token as prefix
  CHECK_FALSE(constantTimeEquals("", "secret"));
  CHECK_FALSE(constantTimeEquals(std::string("secret\0", 7), "secret"));
  CHECK(constantTimeEquals("", ""));
}

TEST_CASE("bearer token check", "[auth]") {
  auto auth = withToken("s3cret-token\n \n");  // trailing whitespace is not part of the token
  CHECK(auth->enabled());
  CHECK(auth->checkAuthorization("Bearer s3cret-token", true).ok());
  grpc::Status missing = auth->checkAuthorization("", false);
  CHECK(missing.error_code() == grpc::StatusCode::UNAUTHENTICATED);
  CHECK_THAT(missing.error_message(), Catch::Contains("missing bearer token"));
  for (const char *wrong : {"Bearer s3cret-toke", "Bearer s3cret-token2", "Bearer S3cret-token", "Bearer ",
                            "Bearer s3cret-token\n"}) {
    INFO(wrong);
    grpc::Status status = auth->checkAuthorization(wrong, true);
    CHECK(status.error_code() == grpc::StatusCode::UNAUTHENTICATED);
    CHECK(status.error_message() == "wrong bearer token");
  }
  // Another scheme is not a bearer token at all.
  CHECK_THAT(auth->checkAuthorization("Basic czNjcmV0", true).error_message(), Catch::Contains("missing"));
}

TEST_CASE("no token configured: every call passes", "[auth]") {
  std::string error;
  auto auth = Authenticator::fromConfig(listening("unix:///tmp/x.sock"), error);
  REQUIRE(auth != nullptr);
  CHECK_FALSE(auth->enabled());
  CHECK(auth->checkAuthorization("", false).ok());
}

TEST_CASE("token and TLS files: errors name the flag and the file", "[auth]") {
  Config c = listening("127.0.0.1:1");
  std::string error;
  c.auth_token_file = "/nonexistent/token";
  CHECK(Authenticator::fromConfig(c, error) == nullptr);
  CHECK_THAT(error, Catch::Contains("--auth-token-file /nonexistent/token"));
  {
    TempFile blank(" \n");
    c.auth_token_file = blank.path;
    error.clear();
    CHECK(Authenticator::fromConfig(c, error) == nullptr);
    CHECK_THAT(error, Catch::Contains(blank.path) && Catch::Contains("empty"));
  }
  Config tls = listening("127.0.0.1:1");
  error.clear();
  CHECK(serverCredentials(tls, error) != nullptr);  // insecure credentials
  CHECK(error == "");
  tls.tls_cert = "/nonexistent/cert.pem";
  CHECK(serverCredentials(tls, error) == nullptr);
  CHECK_THAT(error, Catch::Contains("--tls-key"));
  tls.tls_key = "/nonexistent/key.pem";
  error.clear();
  CHECK(serverCredentials(tls, error) == nullptr);
  CHECK_THAT(error, Catch::Contains("--tls-cert /nonexistent/cert.pem"));
  Config ca_only = listening("127.0.0.1:1");
  ca_only.tls_client_ca = "/ca.pem";
  error.clear();
  CHECK(serverCredentials(ca_only, error) == nullptr);
  CHECK_THAT(error, Catch::Contains("--tls-client-ca"));
}
