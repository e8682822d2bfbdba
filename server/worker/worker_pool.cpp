#include "server/worker/worker_pool.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <thread>

#include "server/worker/frame.h"
#include "server/worker/worker_exit.h"
#include "spdlog/spdlog.h"

extern char **environ;

namespace msjit::server {
namespace {

constexpr auto kPollSlice = std::chrono::milliseconds(20);
constexpr auto kHelloTimeout = std::chrono::seconds(60);

// Reads one frame from `fd` until `deadline` or `cancelled()`.
enum class ReadEnd { kDone, kClosed, kTimedOut, kCancelled };
ReadEnd readUntil(int fd, google::protobuf::MessageLite &message, std::chrono::steady_clock::time_point deadline,
                  const std::function<bool()> &cancelled) {
  FrameReader reader;
  while (!reader.done()) {
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return ReadEnd::kTimedOut;
    if (cancelled && cancelled()) return ReadEnd::kCancelled;
    auto slice = std::min<std::chrono::steady_clock::duration>(kPollSlice, deadline - now);
    pollfd p{fd, POLLIN, 0};
    int ready = ::poll(&p, 1, static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(slice).count()));
    if (ready > 0 && !reader.feed(fd)) return ReadEnd::kClosed;
  }
  return reader.parse(message) ? ReadEnd::kDone : ReadEnd::kClosed;
}

}  // namespace

std::string describeWaitStatus(int status) {
  if (WIFSIGNALED(status))
    return "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  if (WIFEXITED(status) && WEXITSTATUS(status) == kExitOutOfMemory) return "ran out of its memory limit";
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended with wait status " + std::to_string(status);
}

WorkerPool::WorkerPool(std::string name, WorkerSpec spec, int size)
    : name_(std::move(name)), spec_(std::move(spec)), size_(size) {}

WorkerPool::~WorkerPool() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto &w : idle_) {
    ::close(w->to);
    ::close(w->from);
    ::kill(w->pid, SIGKILL);
    ::waitpid(w->pid, nullptr, 0);
  }
}

bool WorkerPool::start(std::string &error) {
  std::unique_ptr<Worker> w = acquire(error);
  if (!w) return false;
  release(std::move(w));
  return true;
}

std::unique_ptr<WorkerPool::Worker> WorkerPool::spawn(std::string &error) {
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0) return error = std::string("pipe: ") + strerror(errno), nullptr;
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]);
    return error = std::string("pipe: ") + strerror(errno), nullptr;
  }
  std::vector<std::string> args = {spec_.binary};
  args.insert(args.end(), spec_.args.begin(), spec_.args.end());
  std::vector<char *> argv;
  for (auto &a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  if (!spec_.stderr_file.empty())
    posix_spawn_file_actions_addopen(&actions, 2, spec_.stderr_file.c_str(), O_WRONLY | O_APPEND | O_CREAT, 0600);
  // Workers get the default signal mask, not the daemon's (which blocks SIGTERM for sigwait).
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, spec_.binary.c_str(), &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(in[0]);
  ::close(out[1]);
  if (rc != 0) {
    ::close(in[1]), ::close(out[0]);
    return error = "cannot start " + spec_.binary + ": " + strerror(rc), nullptr;
  }
  auto w = std::make_unique<Worker>();
  w->pid = pid;
  w->to = in[1];
  w->from = out[0];
  {
    std::lock_guard<std::mutex> lock(mu_);
    pids_.push_back(pid);
  }
  ++live_;
  if (spec_.sends_hello) {
    worker::WorkerReply hello;
    if (readUntil(w->from, hello, std::chrono::steady_clock::now() + kHelloTimeout, nullptr) != ReadEnd::kDone ||
        !hello.has_hello()) {
      int status = reap(*w, /*kill=*/true);
      return error = spec_.binary + " did not start as a worker (" + describeWaitStatus(status) + ")", nullptr;
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (hello_.compiler_version().empty()) hello_ = hello.hello();
  }
  spdlog::debug("{} worker {} started", name_, pid);
  return w;
}

int WorkerPool::reap(Worker &w, bool kill) {
  ::close(w.to);
  ::close(w.from);
  int st = 0;
  // A worker that closed its pipe is normally exiting: give it a moment, so its
  // own cause of death (a signal, the memory limit) is what we report.
  for (int i = 0; !kill && i < 50; ++i) {
    if (::waitpid(w.pid, &st, WNOHANG) == w.pid) break;
    if (i == 49) kill = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (kill) {
    ::kill(w.pid, SIGKILL);
    ::waitpid(w.pid, &st, 0);
  }
  --live_;
  std::lock_guard<std::mutex> lock(mu_);
  pids_.erase(std::remove(pids_.begin(), pids_.end(), w.pid), pids_.end());
  return st;
}

int WorkerPool::retire(std::unique_ptr<Worker> w, bool kill) {
  int status = reap(*w, kill);
  // Replaced at once, so the pool is at full strength (and warm) for the next job.
  std::thread([this] {
    std::string error;
    if (auto fresh = spawn(error)) return release(std::move(fresh));
    spdlog::error("{} worker could not be replaced: {}", name_, error);
    std::lock_guard<std::mutex> lock(mu_);
    --starting_or_running_;
    cv_.notify_one();
  }).detach();
  return status;
}

std::unique_ptr<WorkerPool::Worker> WorkerPool::acquire(std::string &error) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return !idle_.empty() || starting_or_running_ < size_; });
  if (!idle_.empty()) {
    auto w = std::move(idle_.back());
    idle_.pop_back();
    return w;
  }
  ++starting_or_running_;
  lock.unlock();
  auto w = spawn(error);
  if (!w) {
    lock.lock();
    --starting_or_running_;
    cv_.notify_one();
  }
  return w;
}

void WorkerPool::release(std::unique_ptr<Worker> w) {
  std::lock_guard<std::mutex> lock(mu_);
  idle_.push_back(std::move(w));
  cv_.notify_one();
}

std::vector<pid_t> WorkerPool::pids() {
  std::lock_guard<std::mutex> lock(mu_);
  return pids_;
}

JobOutcome WorkerPool::run(const worker::WorkerRequest &job, std::chrono::steady_clock::time_point deadline,
                           const std::function<bool()> &cancelled) {
  JobOutcome outcome;
  std::unique_ptr<Worker> w = acquire(outcome.detail);
  if (!w) return outcome;  // kNoWorker
  outcome.pid = w->pid;
  ReadEnd end = writeFrame(w->to, job) ? readUntil(w->from, outcome.reply, deadline, cancelled) : ReadEnd::kClosed;
  if (end == ReadEnd::kDone) {
    outcome.end = JobEnd::kReplied;
    release(std::move(w));
    return outcome;
  }
  int status = retire(std::move(w), /*kill=*/end != ReadEnd::kClosed);
  switch (end) {
    case ReadEnd::kTimedOut: outcome.end = JobEnd::kTimedOut; break;
    case ReadEnd::kCancelled: outcome.end = JobEnd::kCancelled; break;
    default:
      outcome.end = WIFEXITED(status) && WEXITSTATUS(status) == kExitOutOfMemory ? JobEnd::kOutOfMemory
                                                                                  : JobEnd::kCrashed;
  }
  outcome.detail = describeWaitStatus(status);
  spdlog::warn("{} worker {} {} ({})", name_, outcome.pid,
               end == ReadEnd::kTimedOut ? "stopped at its deadline" : end == ReadEnd::kCancelled ? "stopped: nobody waits" : "died",
               outcome.detail);
  return outcome;
}

}  // namespace msjit::server
