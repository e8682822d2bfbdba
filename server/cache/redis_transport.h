// redis_transport.h - a byte stream to Redis with a deadline on every step:
// TCP, or TLS over it (OpenSSL) for rediss://. hiredis 0.14 has no TLS, so
// the daemon owns its sockets and hiredis only encodes and parses RESP.
#ifndef MSJIT_SERVER_CACHE_REDIS_TRANSPORT_H
#define MSJIT_SERVER_CACHE_REDIS_TRANSPORT_H

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;

namespace msjit::server {

using Deadline = std::chrono::steady_clock::time_point;

struct TlsFiles {
  std::string ca, cert, key;  // PEM files; ca "" = the system's trust store
};

// An OpenSSL client context that verifies the server (and presents a client
// certificate when cert/key are set). nullptr with `error` naming the flag.
std::shared_ptr<SSL_CTX> makeTlsContext(const TlsFiles &files, std::string &error);

class RedisTransport {
 public:
  // Connects to host:port by `deadline`; over TLS when `tls` is set (the
  // server's certificate must name `host`).
  static std::unique_ptr<RedisTransport> open(const std::string &host, int port, SSL_CTX *tls, Deadline deadline,
                                              std::string &error);
  ~RedisTransport();
  RedisTransport(const RedisTransport &) = delete;
  RedisTransport &operator=(const RedisTransport &) = delete;

  bool writeAll(std::string_view bytes, Deadline deadline, std::string &error);
  // Reads at least one byte into buf; 0 on error or timeout (`timed_out` says which).
  size_t readSome(char *buf, size_t size, Deadline deadline, std::string &error, bool &timed_out);

 private:
  RedisTransport(int fd, SSL *ssl) : fd_(fd), ssl_(ssl) {}
  // Waits until the socket is readable (`events` POLLIN) or writable (POLLOUT); false on timeout.
  bool wait(short events, Deadline deadline);

  int fd_;
  SSL *ssl_;
};

}  // namespace msjit::server

#endif  // MSJIT_SERVER_CACHE_REDIS_TRANSPORT_H
