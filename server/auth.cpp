// auth.cpp - bearer token, TLS credentials, and the exposure rules of a listen address.
#include "server/auth.h"

#include <arpa/inet.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <grpcpp/security/server_credentials.h>

#include "spdlog/spdlog.h"

namespace msjit::server {
namespace {

constexpr std::string_view kBearer = "Bearer ";

// The whole file, or false with `error` naming the flag and the file.
bool readFlagFile(const char *flag, const std::string &path, std::string &out, std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = std::string("cannot read ") + flag + " " + path + ": " + std::strerror(errno);
    return false;
  }
  std::stringstream bytes;
  bytes << in.rdbuf();
  out = bytes.str();
  return true;
}

bool hasPrefix(const std::string &s, std::string_view prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

// The host part of HOST:PORT, [HOST]:PORT, or gRPC's ipv4:/ipv6: forms.
std::string hostOf(std::string address) {
  for (std::string_view scheme : {"ipv4:", "ipv6:", "dns:///", "dns:"})
    if (hasPrefix(address, scheme)) address = address.substr(scheme.size());
  if (hasPrefix(address, "[")) {
    size_t close = address.find(']');
    return close == std::string::npos ? address.substr(1) : address.substr(1, close - 1);
  }
  size_t colon = address.rfind(':');
  // More than one colon without brackets is a bare IPv6 address with no port.
  if (colon != std::string::npos && address.find(':') == colon) return address.substr(0, colon);
  return address;
}

}  // namespace

bool constantTimeEquals(std::string_view given, std::string_view expected) {
  // Runs over `expected` whatever `given` is, so neither a wrong length nor a right prefix
  // returns sooner; `volatile` keeps the compiler from turning it back into an early exit.
  volatile unsigned char diff = given.size() == expected.size() ? 0 : 1;
  for (size_t i = 0; i < expected.size(); ++i) {
    unsigned char g = i < given.size() ? static_cast<unsigned char>(given[i]) : 0;
    diff = diff | (g ^ static_cast<unsigned char>(expected[i]));
  }
  return diff == 0;
}

std::unique_ptr<Authenticator> Authenticator::fromConfig(const Config &config, std::string &error) {
  if (config.auth_token_file.empty()) return std::unique_ptr<Authenticator>(new Authenticator(""));
  std::string token;
  if (!readFlagFile("--auth-token-file", config.auth_token_file, token, error)) return nullptr;
  // Editors and `echo > file` add a newline; a token never ends in whitespace.
  token.erase(token.find_last_not_of(" \t\r\n") + 1);
  if (token.empty()) {
    error = "--auth-token-file " + config.auth_token_file + " is empty";
    return nullptr;
  }
  return std::unique_ptr<Authenticator>(new Authenticator(std::move(token)));
}

grpc::Status Authenticator::check(const grpc::ServerContextBase &context) const {
  if (!enabled()) return grpc::Status::OK;
  const auto &metadata = context.client_metadata();
  auto it = metadata.find("authorization");
  if (it == metadata.end()) return checkAuthorization({}, false);
  return checkAuthorization(std::string_view(it->second.data(), it->second.size()), true);
}

grpc::Status Authenticator::checkAuthorization(std::string_view authorization, bool present) const {
  if (!enabled()) return grpc::Status::OK;
  if (!present || authorization.substr(0, kBearer.size()) != kBearer)
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        "missing bearer token: this daemon requires 'authorization: Bearer <token>' metadata "
                        "(clients: set MSJITD_TOKEN_FILE)");
  if (!constantTimeEquals(authorization.substr(kBearer.size()), token_))
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "wrong bearer token");
  return grpc::Status::OK;
}

std::shared_ptr<grpc::ServerCredentials> serverCredentials(const Config &config, std::string &error) {
  bool cert = !config.tls_cert.empty(), key = !config.tls_key.empty();
  if (!cert && !key) {
    if (!config.tls_client_ca.empty()) {
      error = "--tls-client-ca needs --tls-cert and --tls-key (mutual TLS is TLS first)";
      return nullptr;
    }
    return grpc::InsecureServerCredentials();
  }
  if (!cert || !key) {
    error = cert ? "--tls-cert " + config.tls_cert + " needs --tls-key too"
                 : "--tls-key " + config.tls_key + " needs --tls-cert too";
    return nullptr;
  }
  grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
  if (!readFlagFile("--tls-cert", config.tls_cert, pair.cert_chain, error) ||
      !readFlagFile("--tls-key", config.tls_key, pair.private_key, error))
    return nullptr;
  grpc::SslServerCredentialsOptions options(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  if (!config.tls_client_ca.empty()) {
    if (!readFlagFile("--tls-client-ca", config.tls_client_ca, options.pem_root_certs, error)) return nullptr;
    options.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  options.pem_key_cert_pairs.push_back(std::move(pair));
  spdlog::info("TLS with certificate {}{}", config.tls_cert,
               config.tls_client_ca.empty() ? "" : ", clients verified against " + config.tls_client_ca);
  return grpc::SslServerCredentials(options);
}

bool isLocalAddress(const std::string &listen) {
  if (hasPrefix(listen, "unix:") || hasPrefix(listen, "unix-abstract:")) return true;
  std::string host = hostOf(listen);
  if (host == "localhost") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) {
    if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
    // ::ffff:127.x.y.z is IPv4 loopback seen through an IPv6 socket.
    return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
  }
  return false;  // a host name or an empty host (every interface)
}

std::string checkExposure(const Config &config) {
  bool credential = !config.auth_token_file.empty() || !config.tls_cert.empty();
  if (isLocalAddress(config.listen) || credential || config.insecure) return "";
  return "refusing to listen on " + config.listen +
         " without a credential: anyone who can reach it could compile and fetch artifacts. Give "
         "--auth-token-file FILE and/or --tls-cert/--tls-key, listen on a loopback address or a unix "
         "socket, or pass --insecure to accept the exposure";
}

bool executeAllowed(const Config &config) {
  // A socket file's mode limits who connects; an abstract unix socket, like loopback TCP, has none.
  return hasPrefix(config.listen, "unix:") || config.allow_execute;
}

}  // namespace msjit::server
