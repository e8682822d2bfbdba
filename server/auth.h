// auth.h - who may talk to msjitd: bearer token, TLS, and which addresses need them.
//
// A unix socket is protected by its file mode; a TCP port is reachable by anyone on the
// network, so there the daemon wants a credential (a token, TLS, or both) and serves Execute,
// which runs generated code, only when told to.
#ifndef MSJIT_SERVER_AUTH_H
#define MSJIT_SERVER_AUTH_H

#include <memory>
#include <string>
#include <string_view>

#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_context.h>
#include <grpcpp/support/status.h>

#include "server/config.h"

namespace msjit::server {

// The bearer token a TCP daemon requires ("authorization: Bearer <token>" metadata), compared in constant
// time. Reads --auth-token-file once at startup (trailing whitespace/newline stripped; an empty or
// unreadable file is a startup error naming the file).
class Authenticator {
 public:
  static std::unique_ptr<Authenticator> fromConfig(const Config &config, std::string &error);
  // OK, or UNAUTHENTICATED with a clear message ("missing bearer token" / "wrong bearer token").
  // Always OK when no token is configured.
  grpc::Status check(const grpc::ServerContextBase &context) const;
  bool enabled() const { return !token_.empty(); }

  // The check on the metadata value itself ("Bearer <token>"), for check() and its tests.
  grpc::Status checkAuthorization(std::string_view authorization, bool present) const;

 private:
  explicit Authenticator(std::string token) : token_(std::move(token)) {}
  std::string token_;  // empty: no token required
};

// Whether `given` equals `expected`, taking the same time for every `given` of a length: a
// byte-by-byte early exit would tell an attacker how long a prefix they guessed right.
bool constantTimeEquals(std::string_view given, std::string_view expected);

// TLS credentials from --tls-cert/--tls-key (and --tls-client-ca: clients must present a certificate
// signed by it, i.e. mutual TLS, GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY), else insecure
// credentials. Sets `error` (naming the file) when a file cannot be read or only one of cert/key is given.
std::shared_ptr<grpc::ServerCredentials> serverCredentials(const Config &config, std::string &error);

// unix:// addresses and loopback TCP (127.0.0.0/8, [::1], localhost) are local.
bool isLocalAddress(const std::string &listen);

// "" when the daemon may listen as configured; otherwise the refusal message: a non-local TCP address
// needs a credential (token or TLS) unless --insecure is given.
std::string checkExposure(const Config &config);

// Whether Execute may be served on this listen address: always on a unix socket, on TCP only with
// --allow-execute.
bool executeAllowed(const Config &config);

}  // namespace msjit::server

#endif  // MSJIT_SERVER_AUTH_H
