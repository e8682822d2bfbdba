// client.h - a small C++ client of msjitd.
#ifndef MSJIT_CLIENT_CPP_CLIENT_H
#define MSJIT_CLIENT_CPP_CLIENT_H

#include <memory>
#include <string>

#include "proto/msjit.grpc.pb.h"

namespace msjit::client {

// MSJITD_ADDRESS, else unix://$MSJIT_HOME/msjitd.sock (MSJIT_HOME defaults to
// ~/.cache/msjit): the same rule as the Python client.
std::string defaultAddress();

class Client {
 public:
  explicit Client(const std::string &address);

  // True when the standard grpc.health.v1 check answers SERVING.
  bool healthy(int timeout_ms = 2000);
  grpc::Status stats(rpc::StatsReply &reply);
  grpc::Status compile(const rpc::CompileRequest &request, rpc::CompileReply &reply);

  const std::string &address() const { return address_; }

 private:
  std::string address_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<rpc::Msjit::Stub> stub_;
};

}  // namespace msjit::client

#endif  // MSJIT_CLIENT_CPP_CLIENT_H
