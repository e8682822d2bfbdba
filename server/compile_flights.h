// compile_flights.h - one compile per key at a time, however many clients ask.
//
// The first request for a key leads (runs the compile); later ones join and
// share its outcome. The leader's compile is abandoned once every client
// waiting for it has gone. At most `limit` keys compile (or wait for a
// worker) at once; more is RESOURCE_EXHAUSTED. A key whose compile crashed a
// worker is remembered for a while so a retry storm costs no more workers.
#ifndef MSJIT_SERVER_COMPILE_FLIGHTS_H
#define MSJIT_SERVER_COMPILE_FLIGHTS_H

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "proto/msjit.pb.h"

namespace msjit::server {

struct CompileOutcome {
  grpc::Status status;
  rpc::CompileReply reply;
  bool remember = false;  // the graph crashed a worker: refuse it fast for a while
};

class CompileFlights {
 public:
  CompileFlights(int limit, std::chrono::seconds remember_for) : limit_(limit), remember_for_(remember_for) {}

  enum class Role { kLed, kJoined, kRefused, kRemembered };

  // Runs `compile(abandoned)` for `key` unless it is already running, in which case
  // waits for that run. `client` is this caller's call, polled for cancellation.
  CompileOutcome run(const std::string &key, const grpc::ServerContextBase *client,
                     const std::function<CompileOutcome(const std::function<bool()> &abandoned)> &compile,
                     Role &role);

  int active();

 private:
  struct Flight {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    CompileOutcome outcome;
    std::vector<const grpc::ServerContextBase *> waiters;
  };
  struct Remembered {
    std::chrono::steady_clock::time_point until;
    grpc::Status status;
  };

  const int limit_;
  const std::chrono::seconds remember_for_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<Flight>> flights_;
  std::map<std::string, Remembered> remembered_;
};

}  // namespace msjit::server

#endif  // MSJIT_SERVER_COMPILE_FLIGHTS_H
