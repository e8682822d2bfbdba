// client.h - a small C++ client of msjitd.
#ifndef MSJIT_CLIENT_CPP_CLIENT_H
#define MSJIT_CLIENT_CPP_CLIENT_H

#include <memory>
#include <string>

#include "proto/msjit.grpc.pb.h"

namespace msjit::client {

// unix://$MSJIT_HOME/msjitd.sock (MSJIT_HOME defaults to ~/.cache/msjit): the private local daemon.
std::string localAddress();
// MSJITD_ADDRESS, else localAddress(): the same rule as the Python client.
std::string defaultAddress();

// What the client presents to a TCP daemon. The same environment variables as the Python client
// (client_py/msjit/rpc.py), each naming a file except the server name.
struct Credentials {
  std::string token;        // MSJITD_TOKEN_FILE: sent as "authorization: Bearer <token>"
  std::string root_certs;   // MSJITD_TLS_CA: PEM roots that verify the daemon (TLS when set)
  std::string cert_chain;   // MSJITD_TLS_CERT: client certificate for mutual TLS
  std::string private_key;  // MSJITD_TLS_KEY: its key
  std::string server_name;  // MSJITD_TLS_SERVER_NAME: name checked in the daemon's certificate
  bool tls() const { return !root_certs.empty() || !cert_chain.empty(); }

  // "" on success, else an error naming the variable and its file.
  static std::string fromEnvironment(Credentials &out);
};

class Client {
 public:
  explicit Client(const std::string &address, const Credentials &credentials = {});

  // True when the standard grpc.health.v1 check answers SERVING.
  bool healthy(int timeout_ms = 2000);
  grpc::Status stats(rpc::StatsReply &reply);
  grpc::Status compile(const rpc::CompileRequest &request, rpc::CompileReply &reply);

  const std::string &address() const { return address_; }

 private:
  // Every msjit call goes through here: the token travels as call metadata because gRPC
  // refuses call credentials on a plaintext channel, and a loopback daemon may use one.
  void authorize(grpc::ClientContext &ctx) const;

  std::string address_;
  std::string token_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<rpc::Msjit::Stub> stub_;
};

}  // namespace msjit::client

#endif  // MSJIT_CLIENT_CPP_CLIENT_H
