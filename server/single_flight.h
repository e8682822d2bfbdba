// single_flight.h - one computation per key at a time; late callers share it.
#ifndef MSJIT_SERVER_SINGLE_FLIGHT_H
#define MSJIT_SERVER_SINGLE_FLIGHT_H

#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <string>

namespace msjit::server {

template <typename Result>
class SingleFlight {
 public:
  // Runs `fn` unless a call for `key` is in flight, in which case waits for
  // that call's result. `leader` tells which of the two happened.
  Result run(const std::string &key, const std::function<Result()> &fn, bool &leader) {
    std::promise<Result> promise;
    std::shared_future<Result> future;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = inflight_.find(key);
      leader = it == inflight_.end();
      if (leader) future = inflight_[key] = promise.get_future().share();
      else future = it->second;
    }
    if (!leader) return future.get();
    Result result = fn();
    promise.set_value(result);
    std::lock_guard<std::mutex> lock(mu_);
    inflight_.erase(key);
    return result;
  }

 private:
  std::mutex mu_;
  std::map<std::string, std::shared_future<Result>> inflight_;
};

}  // namespace msjit::server

#endif  // MSJIT_SERVER_SINGLE_FLIGHT_H
