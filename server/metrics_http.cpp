#include "server/metrics_http.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "spdlog/spdlog.h"

namespace msjit::server {
namespace {

using Clock = std::chrono::steady_clock;
// After a reply, what the client still sends is read and dropped for this long before
// closing, so the kernel does not answer unread bytes with a reset that destroys the reply.
constexpr std::chrono::milliseconds kLinger{1000};

std::string response(int code, const char *reason, const std::string &content_type, const std::string &body,
                     const std::string &extra_headers = "") {
  return "HTTP/1.1 " + std::to_string(code) + " " + reason + "\r\nContent-Type: " + content_type +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n" + extra_headers + "\r\n" +
         body;
}

std::string plain(int code, const char *reason, const std::string &extra_headers = "") {
  return response(code, reason, "text/plain; charset=utf-8", std::string(reason) + "\n", extra_headers);
}

// Where the head ends (just past the blank line), or npos while incomplete.
size_t headEnd(const std::string &in) {
  size_t crlf = in.find("\r\n\r\n"), lf = in.find("\n\n");
  size_t end = std::min(crlf == std::string::npos ? crlf : crlf + 4, lf == std::string::npos ? lf : lf + 2);
  return end;
}

enum class Phase { kReading, kWriting, kLingering };

struct Connection {
  int fd;
  Clock::time_point deadline;
  Phase phase = Phase::kReading;
  std::string in, out;
  size_t sent = 0;
  bool done = false;  // close it now
};

void sendBestEffort(int fd, const std::string &bytes) { (void)::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT); }

// Reads what is available; false when the peer closed or failed.
bool readAvailable(Connection &c, size_t cap) {
  char buf[4096];
  while (c.in.size() <= cap) {
    ssize_t n = ::recv(c.fd, buf, sizeof(buf), MSG_DONTWAIT);
    if (n > 0) {
      if (c.phase == Phase::kReading) c.in.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    if (n < 0 && errno == EINTR) continue;
    return false;
  }
  return true;
}

void startReply(Connection &c, std::string reply, std::chrono::milliseconds timeout) {
  c.out = std::move(reply);
  c.phase = Phase::kWriting;
  c.deadline = Clock::now() + timeout;  // the reply gets its own time to be read
}

void writeSome(Connection &c) {
  while (c.sent < c.out.size()) {
    ssize_t n = ::send(c.fd, c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      c.sent += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    c.done = true;
    return;
  }
  ::shutdown(c.fd, SHUT_WR);
  c.phase = Phase::kLingering;
  c.deadline = std::min(c.deadline, Clock::now() + kLinger);
}

}  // namespace

std::string metricsHttpReply(const std::string &head, const std::function<std::string()> &render) {
  std::string line = head.substr(0, head.find('\n'));
  if (!line.empty() && line.back() == '\r') line.pop_back();
  size_t sp1 = line.find(' '), sp2 = sp1 == std::string::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string::npos || line.find(' ', sp2 + 1) != std::string::npos ||
      line.compare(sp2 + 1, 7, "HTTP/1.") != 0)
    return plain(400, "Bad Request");
  std::string method = line.substr(0, sp1), target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  if (method != "GET") return plain(405, "Method Not Allowed", "Allow: GET\r\n");
  if (target.substr(0, target.find('?')) != "/metrics") return plain(404, "Not Found");
  try {
    return response(200, "OK", "text/plain; version=0.0.4; charset=utf-8", render());
  } catch (const std::exception &e) {
    spdlog::error("metrics: rendering failed: {}", e.what());
    return plain(500, "Internal Server Error");
  }
}

MetricsHttpServer::MetricsHttpServer(std::function<std::string()> render, std::chrono::milliseconds timeout)
    : render_(std::move(render)), timeout_(timeout) {}

MetricsHttpServer::~MetricsHttpServer() { stop(); }

std::string MetricsHttpServer::start(const std::string &host_port) {
  size_t colon = host_port.rfind(':');
  if (colon == std::string::npos) return "--metrics-listen must be HOST:PORT (got '" + host_port + "')";
  std::string host = host_port.substr(0, colon), port = host_port.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  addrinfo hints{}, *found = nullptr;
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  if (int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &found); rc != 0)
    return "--metrics-listen " + host_port + ": " + gai_strerror(rc);
  std::string error = "--metrics-listen " + host_port + ": no address";
  for (addrinfo *a = found; a && listen_fd_ < 0; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    int one = 1;
    if (fd >= 0) ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (fd >= 0 && ::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 64) == 0) {
      listen_fd_ = fd;
      sockaddr_storage bound{};
      socklen_t len = sizeof(bound);
      ::getsockname(fd, reinterpret_cast<sockaddr *>(&bound), &len);
      port_ = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6 &>(bound).sin6_port
                                                : reinterpret_cast<sockaddr_in &>(bound).sin_port);
    } else {
      error = "cannot listen on --metrics-listen " + host_port + ": " + std::strerror(errno);
      if (fd >= 0) ::close(fd);
    }
  }
  ::freeaddrinfo(found);
  if (listen_fd_ < 0) return error;
  if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) return std::string("metrics: pipe: ") + std::strerror(errno);
  thread_ = std::thread([this] { serve(); });
  return "";
}

void MetricsHttpServer::stop() {
  if (thread_.joinable()) {
    char byte = 0;
    (void)!::write(wake_[1], &byte, 1);
    thread_.join();
  }
  for (int *fd : {&listen_fd_, &wake_[0], &wake_[1]})
    if (*fd >= 0) {
      ::close(*fd);
      *fd = -1;
    }
}

void MetricsHttpServer::serve() {
  std::vector<Connection> conns;
  std::vector<pollfd> fds;
  for (;;) {
    fds.assign({{wake_[0], POLLIN, 0}, {listen_fd_, POLLIN, 0}});
    auto now = Clock::now();
    auto wait = std::chrono::milliseconds(60000);
    for (const Connection &c : conns) {
      fds.push_back({c.fd, static_cast<short>(c.phase == Phase::kWriting ? POLLOUT : POLLIN), 0});
      wait = std::min(wait, std::chrono::duration_cast<std::chrono::milliseconds>(c.deadline - now) +
                                std::chrono::milliseconds(1));
    }
    if (::poll(fds.data(), fds.size(), static_cast<int>(std::max<int64_t>(0, wait.count()))) < 0) {
      if (errno == EINTR) continue;
      spdlog::error("metrics: poll failed ({}); /metrics is no longer served", std::strerror(errno));
      break;
    }
    if (fds[0].revents) break;  // stop()
    now = Clock::now();
    for (size_t i = 0; i < conns.size(); ++i) {
      Connection &c = conns[i];
      short revents = fds[i + 2].revents;
      if (c.phase != Phase::kWriting && (revents & (POLLIN | POLLHUP | POLLERR))) {
        bool open = readAvailable(c, kMaxHeadBytes);
        if (c.phase == Phase::kLingering) {
          c.done = !open;
        } else if (size_t end = headEnd(c.in); end != std::string::npos && end <= kMaxHeadBytes + 4) {
          startReply(c, metricsHttpReply(c.in.substr(0, end), render_), timeout_);
        } else if (c.in.size() > kMaxHeadBytes) {
          startReply(c, plain(431, "Request Header Fields Too Large"), timeout_);
        } else if (!open) {
          c.done = true;  // went away before finishing its request
        }
      }
      if (c.phase == Phase::kWriting && !c.done) writeSome(c);
      if (!c.done && now >= c.deadline) {
        if (c.phase == Phase::kReading) sendBestEffort(c.fd, plain(408, "Request Timeout"));
        c.done = true;
      }
    }
    conns.erase(std::remove_if(conns.begin(), conns.end(),
                               [](const Connection &c) {
                                 if (c.done) ::close(c.fd);
                                 return c.done;
                               }),
                conns.end());
    if (fds[1].revents & POLLIN) {
      for (int fd; (fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0;) {
        if (static_cast<int>(conns.size()) >= kMaxConnections) {
          sendBestEffort(fd, plain(503, "Service Unavailable"));
          ::close(fd);
          continue;
        }
        conns.push_back({fd, now + timeout_});
      }
      // Out of file descriptors: the pending connection stays queued; pause rather than spin on it.
      if (errno == EMFILE || errno == ENFILE) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  for (const Connection &c : conns) ::close(c.fd);
}

}  // namespace msjit::server
