#include "client_cpp/client.h"

#include <grpcpp/grpcpp.h>

#include "proto/health.grpc.pb.h"

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace msjit::client {
namespace {

// The file named by environment variable `variable` into `out` (left empty when unset).
std::string readEnvFile(const char *variable, std::string &out) {
  const char *path = std::getenv(variable);
  if (!path || !*path) return "";
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::string("cannot read ") + variable + "=" + path + ": " + std::strerror(errno);
  std::stringstream bytes;
  bytes << in.rdbuf();
  out = bytes.str();
  return "";
}

std::shared_ptr<grpc::Channel> makeChannel(const std::string &address, const Credentials &c) {
  if (!c.tls()) return grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = c.root_certs;
  ssl.pem_cert_chain = c.cert_chain;
  ssl.pem_private_key = c.private_key;
  grpc::ChannelArguments args;
  if (!c.server_name.empty()) args.SetSslTargetNameOverride(c.server_name);
  return grpc::CreateCustomChannel(address, grpc::SslCredentials(ssl), args);
}

}  // namespace

std::string localAddress() {
  const char *home = std::getenv("MSJIT_HOME"), *user_home = std::getenv("HOME");
  std::string dir = home && *home ? home : std::string(user_home ? user_home : "/tmp") + "/.cache/msjit";
  return "unix://" + dir + "/msjitd.sock";
}

std::string defaultAddress() {
  if (const char *address = std::getenv("MSJITD_ADDRESS"); address && *address) return address;
  return localAddress();
}

std::string Credentials::fromEnvironment(Credentials &out) {
  out = Credentials();
  using Field = std::pair<const char *, std::string *>;
  for (auto [variable, field] : {Field{"MSJITD_TOKEN_FILE", &out.token}, Field{"MSJITD_TLS_CA", &out.root_certs},
                                 Field{"MSJITD_TLS_CERT", &out.cert_chain}, Field{"MSJITD_TLS_KEY", &out.private_key}})
    if (std::string error = readEnvFile(variable, *field); !error.empty()) return error;
  // Editors and `echo > file` add a newline; a token never ends in whitespace (as the daemon reads it).
  out.token.erase(out.token.find_last_not_of(" \t\r\n") + 1);
  if (std::getenv("MSJITD_TOKEN_FILE") && *std::getenv("MSJITD_TOKEN_FILE") && out.token.empty())
    return std::string("MSJITD_TOKEN_FILE=") + std::getenv("MSJITD_TOKEN_FILE") + " is empty";
  if (out.cert_chain.empty() != out.private_key.empty())
    return "MSJITD_TLS_CERT and MSJITD_TLS_KEY go together (a client certificate and its key); set both or neither";
  if (const char *name = std::getenv("MSJITD_TLS_SERVER_NAME")) out.server_name = name;
  return "";
}

Client::Client(const std::string &address, const Credentials &credentials)
    : address_(address),
      token_(credentials.token),
      channel_(makeChannel(address, credentials)),
      stub_(rpc::Msjit::NewStub(channel_)) {}

void Client::authorize(grpc::ClientContext &ctx) const {
  if (!token_.empty()) ctx.AddMetadata("authorization", "Bearer " + token_);
}

bool Client::healthy(int timeout_ms) {
  auto stub = grpc::health::v1::Health::NewStub(channel_);
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms));
  grpc::health::v1::HealthCheckResponse response;
  grpc::Status status = stub->Check(&ctx, grpc::health::v1::HealthCheckRequest(), &response);
  return status.ok() && response.status() == grpc::health::v1::HealthCheckResponse::SERVING;
}

grpc::Status Client::stats(rpc::StatsReply &reply) {
  grpc::ClientContext ctx;
  authorize(ctx);
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  return stub_->Stats(&ctx, rpc::StatsRequest(), &reply);
}

grpc::Status Client::compile(const rpc::CompileRequest &request, rpc::CompileReply &reply) {
  grpc::ClientContext ctx;
  authorize(ctx);
  return stub_->Compile(&ctx, request, &reply);
}

}  // namespace msjit::client
