// client.h - a small C++ client of msjitd: one daemon (Client), or a list of daemons with
// failover (FailoverClient) and a verified local artifact cache, with the same environment
// variables and policy as the Python client (client_py/msjit/rpc.py).
#ifndef MSJIT_CLIENT_CPP_CLIENT_H
#define MSJIT_CLIENT_CPP_CLIENT_H

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "proto/msjit.grpc.pb.h"
#include "server/cache/digest.h"

namespace msjit::client {

// The failover policy, the same numbers as client_py/msjit/rpc.py: a health check answers within
// kHealthTimeoutMs or the address counts as down; a down address is skipped for kBackoffFirstMs,
// doubling on each further failure up to kBackoffMaxMs, then tried again.
constexpr int kHealthTimeoutMs = 1000;
constexpr int kBackoffFirstMs = 1000;
constexpr int kBackoffMaxMs = 30000;

// $MSJIT_HOME, defaulting to ~/.cache/msjit.
std::string msjitHome();
// unix://$MSJIT_HOME/msjitd.sock: the private local daemon.
std::string localAddress();
// A comma-separated list of gRPC targets, blanks dropped.
std::vector<std::string> splitAddresses(const std::string &list);
// MSJITD_ADDRESS's addresses, else {localAddress()}: the same rule as the Python client.
std::vector<std::string> defaultAddresses();
// The first of defaultAddresses(): for tools that talk to one daemon (msjitctl).
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
  // msjitctl cache ls (limit 0: all entries) and cache rm.
  grpc::Status listCache(uint32_t limit, rpc::ListCacheReply &reply);
  grpc::Status removeCacheEntry(const std::string &key, bool shared, rpc::RemoveCacheEntryReply &reply);
  // timeout_ms 0: no deadline.
  grpc::Status compile(const rpc::CompileRequest &request, rpc::CompileReply &reply, int timeout_ms = 0);
  // The artifact bytes of `key` as streamed, unverified (FailoverClient::fetchArtifact verifies).
  grpc::Status fetchArtifact(const std::string &key, std::string &bytes, int timeout_ms = 120000);

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

// Several daemons serving one cluster: calls go to the first healthy address; a call that fails
// with UNAVAILABLE (the daemon went away) moves to the next one and is made again there; a down
// address is tried again after its backoff, so a recovered daemon earlier in the list is used
// again. Other failures (a compile error of the graph, a refused credential) are returned as they
// are. Thread-safe.
class FailoverClient {
 public:
  FailoverClient(const std::vector<std::string> &addresses, const Credentials &credentials);

  // A busy daemon (RESOURCE_EXHAUSTED: its queue is full) is asked again with backoff for up to
  // 120 s, as the Python client does. timeout_ms 0: no deadline per attempt.
  grpc::Status compile(const rpc::CompileRequest &request, rpc::CompileReply &reply, int timeout_ms = 0);
  // The artifact of `key` as bytes whose SHA-256 is `digest`: from $MSJIT_HOME/artifacts/<digest>.so
  // when that copy verifies (a copy that does not is moved to $MSJIT_HOME/quarantine/), else
  // fetched, verified and stored there atomically for the next process on this host (*fetched
  // says which). A digest that is not 64 hex characters is refused (it names a file).
  grpc::Status fetchArtifact(const std::string &key, const std::string &digest, std::string &bytes,
                             bool *fetched = nullptr);
  // The artifact of a CompileReply: the daemon's own file when it is on this filesystem and
  // verifies, else fetchArtifact(). *source says which ("daemon", "client-cache", "fetched").
  grpc::Status artifact(const rpc::CompileReply &reply, std::string &bytes, std::string *source = nullptr);

  // The address the last call went to ("" before the first).
  std::string address() const;

 private:
  struct Target {
    std::string address;
    std::shared_ptr<Client> client;  // re-created after a failure: a fresh channel, no reconnect backoff
    std::chrono::steady_clock::time_point retry_at;
    int backoff_ms = 0;  // 0: not down
  };
  template <class Call>
  grpc::Status call(Call &&fn);
  // The index of the first healthy address not `excluded`: those not in backoff first, in list
  // order, then those in backoff; -1 when none answers (each one tried is marked down).
  int choose(const std::vector<bool> &excluded);
  // True when an address before the current one has waited out its backoff: look again.
  bool earlierMayServe() const;
  void markDown(size_t index);

  Credentials credentials_;
  std::vector<Target> targets_;
  mutable std::mutex mutex_;
  int current_ = -1;
};

// The daemon's own digest functions: hex SHA-256, and "is this 64 lowercase hex characters".
using server::isDigest;
using server::sha256Hex;

}  // namespace msjit::client

#endif  // MSJIT_CLIENT_CPP_CLIENT_H
