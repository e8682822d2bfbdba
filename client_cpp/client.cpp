#include "client_cpp/client.h"

#include <grpcpp/grpcpp.h>

#include "proto/health.grpc.pb.h"

#include <chrono>
#include <cstdlib>

namespace msjit::client {

std::string defaultAddress() {
  if (const char *address = std::getenv("MSJITD_ADDRESS"); address && *address) return address;
  const char *home = std::getenv("MSJIT_HOME");
  std::string dir = home && *home ? home : std::string(std::getenv("HOME") ? std::getenv("HOME") : "/tmp") + "/.cache/msjit";
  return "unix://" + dir + "/msjitd.sock";
}

Client::Client(const std::string &address)
    : address_(address),
      channel_(grpc::CreateChannel(address, grpc::InsecureChannelCredentials())),
      stub_(rpc::Msjit::NewStub(channel_)) {}

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
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  return stub_->Stats(&ctx, rpc::StatsRequest(), &reply);
}

grpc::Status Client::compile(const rpc::CompileRequest &request, rpc::CompileReply &reply) {
  grpc::ClientContext ctx;
  return stub_->Compile(&ctx, request, &reply);
}

}  // namespace msjit::client
