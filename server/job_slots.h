// job_slots.h - at most N compiles run at once (--jobs); the rest wait.
#ifndef MSJIT_SERVER_JOB_SLOTS_H
#define MSJIT_SERVER_JOB_SLOTS_H

#include <condition_variable>
#include <mutex>

namespace msjit::server {

class JobSlots {
 public:
  explicit JobSlots(int slots) : free_(slots) {}

  class Held {
   public:
    explicit Held(JobSlots &s) : s_(s) {
      std::unique_lock<std::mutex> lock(s_.mu_);
      s_.cv_.wait(lock, [&] { return s_.free_ > 0; });
      --s_.free_;
    }
    ~Held() {
      {
        std::lock_guard<std::mutex> lock(s_.mu_);
        ++s_.free_;
      }
      s_.cv_.notify_one();
    }
    Held(const Held &) = delete;
    Held &operator=(const Held &) = delete;

   private:
    JobSlots &s_;
  };

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int free_;
};

}  // namespace msjit::server

#endif  // MSJIT_SERVER_JOB_SLOTS_H
