// worker_pool.h - supervised msjit-worker processes, one job at a time each.
//
// A job runs on an idle worker (started on demand, at most `size`); callers
// beyond that wait. The worker's death, the deadline or the caller's
// cancellation ends the job: the worker is killed and reaped, and replaced by
// the next job that needs one. Nothing a job does reaches the daemon's memory.
#ifndef MSJIT_SERVER_WORKER_WORKER_POOL_H
#define MSJIT_SERVER_WORKER_WORKER_POOL_H

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "proto/worker.pb.h"

namespace msjit::server {

struct WorkerSpec {
  std::string binary;              // msjit-worker
  std::vector<std::string> args;   // --mode compile --memory-mb N ...
  bool sends_hello = false;        // compile workers introduce themselves first
  std::string stderr_file;         // where a worker's stderr goes (crash messages); inherited if empty
};

enum class JobEnd {
  kReplied,      // `reply` holds the worker's answer
  kCrashed,      // the worker died (signal or exit): `detail` says how
  kOutOfMemory,  // the worker hit its memory limit
  kTimedOut,     // the deadline passed; the worker was killed
  kCancelled,    // `cancelled()` said so; the worker was killed
  kNoWorker,     // a worker could not be started: `detail` says why
};

struct JobOutcome {
  JobEnd end = JobEnd::kNoWorker;
  worker::WorkerReply reply;
  std::string detail;
  pid_t pid = 0;
};

class WorkerPool {
 public:
  WorkerPool(std::string name, WorkerSpec spec, int size);
  ~WorkerPool();

  // Starts one worker now (and, for compile workers, reads its Hello). False with `error` if it cannot.
  bool start(std::string &error);
  const worker::Hello &hello() const { return hello_; }

  // Runs `job`, blocking until it ends. `cancelled` is polled while it runs.
  JobOutcome run(const worker::WorkerRequest &job, std::chrono::steady_clock::time_point deadline,
                 const std::function<bool()> &cancelled);

  int live() const { return live_; }
  std::vector<pid_t> pids();

 private:
  struct Worker {
    pid_t pid = 0;
    int to = -1, from = -1;  // its stdin and stdout
  };
  std::unique_ptr<Worker> spawn(std::string &error);
  // Closes its pipes and waits for it (killing it first if `kill`); returns its wait status.
  int reap(Worker &w, bool kill);
  // reap, and starts a replacement in its slot. (Pools live as long as the daemon.)
  int retire(std::unique_ptr<Worker> w, bool kill);
  std::unique_ptr<Worker> acquire(std::string &error);
  void release(std::unique_ptr<Worker> w);

  const std::string name_;
  const WorkerSpec spec_;
  const int size_;
  worker::Hello hello_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<Worker>> idle_;
  std::vector<pid_t> pids_;  // every live worker
  int starting_or_running_ = 0;  // workers alive or being started
  std::atomic<int> live_{0};
};

// "killed by signal 11 (Segmentation fault)" / "exited with status 3".
std::string describeWaitStatus(int status);

}  // namespace msjit::server

#endif  // MSJIT_SERVER_WORKER_WORKER_POOL_H
