// metrics_http.h - a minimal HTTP/1.1 server for Prometheus scrapes (--metrics-listen).
//
//   GET /metrics       200, text/plain; version=0.0.4 (the text of `render`)
//   any other path     404        another method   405 (Allow: GET)
//   head over 8 KiB    431        head not complete within 5 s, or reply unread for 5 s   408
//   more than kMaxConnections open at once: 503 and close
// One thread, non-blocking sockets and poll(): a slow or hostile client holds
// one connection slot for at most the timeout and never blocks the others or
// the daemon. One request per connection (Connection: close).
//
// The endpoint is unauthenticated by design (Prometheus scrapes plain HTTP):
// it exposes counters and latency histograms only, never cache keys, paths,
// addresses or credentials. Bind it to loopback or a network only the
// monitoring system reaches.
#ifndef MSJIT_SERVER_METRICS_HTTP_H
#define MSJIT_SERVER_METRICS_HTTP_H

#include <chrono>
#include <functional>
#include <string>
#include <thread>

namespace msjit::server {

class MetricsHttpServer {
 public:
  static constexpr size_t kMaxHeadBytes = 8 * 1024;
  static constexpr int kMaxConnections = 32;

  explicit MetricsHttpServer(std::function<std::string()> render,
                             std::chrono::milliseconds timeout = std::chrono::seconds(5));
  ~MetricsHttpServer();
  MetricsHttpServer(const MetricsHttpServer &) = delete;
  MetricsHttpServer &operator=(const MetricsHttpServer &) = delete;

  // Binds HOST:PORT ([v6]:PORT too) and starts serving; "" on success, else why not.
  std::string start(const std::string &host_port);
  // Closes every connection and joins the thread; idempotent.
  void stop();
  int port() const { return port_; }

 private:
  void serve();

  std::function<std::string()> render_;
  std::chrono::milliseconds timeout_;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};  // a pipe: stop() writes, poll() wakes
  int port_ = 0;
  std::thread thread_;
};

// The reply to one request head (request line and headers, CRLF CRLF included
// or not): status line, headers and body. Exposed for tests.
std::string metricsHttpReply(const std::string &head, const std::function<std::string()> &render);

}  // namespace msjit::server

#endif  // MSJIT_SERVER_METRICS_HTTP_H
