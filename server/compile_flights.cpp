#include "server/compile_flights.h"

namespace msjit::server {

int CompileFlights::active() {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(flights_.size());
}

CompileOutcome CompileFlights::run(const std::string &key, const grpc::ServerContextBase *client,
                                   const std::function<CompileOutcome(const std::function<bool()> &)> &compile,
                                   Role &role) {
  std::shared_ptr<Flight> flight;
  auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = remembered_.find(key); it != remembered_.end()) {
      if (it->second.until > now) {
        role = Role::kRemembered;
        auto left = std::chrono::ceil<std::chrono::seconds>(it->second.until - now).count();
        return {grpc::Status(it->second.status.error_code(),
                             it->second.status.error_message() + " [remembered: this graph is refused for another " +
                                 std::to_string(left) + " s (--crash-retry-after)]"),
                {}};
      }
      remembered_.erase(it);
    }
    if (auto it = flights_.find(key); it != flights_.end()) {
      flight = it->second;
      std::lock_guard<std::mutex> flight_lock(flight->mu);
      flight->waiters.push_back(client);
      role = Role::kJoined;
    } else if (static_cast<int>(flights_.size()) >= limit_) {
      role = Role::kRefused;
      return {grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                           "msjitd's compile queue is full (" + std::to_string(limit_) +
                               " graphs compiling or waiting, --max-queue); retry later"),
              {}};
    } else {
      flight = flights_[key] = std::make_shared<Flight>();
      flight->waiters.push_back(client);
      role = Role::kLed;
    }
  }
  if (role == Role::kJoined) {
    std::unique_lock<std::mutex> lock(flight->mu);
    flight->cv.wait(lock, [&] { return flight->done; });
    return flight->outcome;
  }
  auto abandoned = [&flight] {
    std::lock_guard<std::mutex> lock(flight->mu);
    for (const auto *waiter : flight->waiters)
      if (!waiter->IsCancelled()) return false;
    return true;
  };
  CompileOutcome outcome = compile(abandoned);
  {
    std::lock_guard<std::mutex> lock(mu_);
    flights_.erase(key);
    if (outcome.remember && remember_for_.count() > 0)
      remembered_[key] = {std::chrono::steady_clock::now() + remember_for_, outcome.status};
    for (auto it = remembered_.begin(); it != remembered_.end();)  // forget the expired ones
      it = it->second.until <= now ? remembered_.erase(it) : std::next(it);
  }
  {
    std::lock_guard<std::mutex> lock(flight->mu);
    flight->outcome = outcome;
    flight->done = true;
  }
  flight->cv.notify_all();
  return outcome;
}

}  // namespace msjit::server
