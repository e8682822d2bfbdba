#include "server/cache/redis_transport.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace msjit::server {
namespace {

int msLeft(Deadline deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  return left.count() <= 0 ? 0 : static_cast<int>(std::min<int64_t>(left.count(), 1 << 30));
}

bool pollFd(int fd, short events, Deadline deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    int n = ::poll(&p, 1, msLeft(deadline));
    if (n > 0) return true;
    if (n == 0) return false;
    if (errno != EINTR) return false;
  }
}

// OpenSSL's reason; without one the peer just hung up, which a TLS server that
// wants a client certificate does after the handshake.
std::string sslError() {
  unsigned long code = ERR_get_error();
  if (code == 0) return "Redis closed the connection (does it require a client certificate?)";
  char text[256];
  ERR_error_string_n(code, text, sizeof(text));
  std::string reason = text;
  // TLS 1.3 servers say so with an alert instead of hanging up.
  if (reason.find("certificate required") != std::string::npos)
    reason += " (Redis requires a client certificate: --shared-cache-tls-cert/--shared-cache-tls-key)";
  return reason;
}

// A non-blocking TCP socket connected to one of host's addresses, or -1.
int connectTcp(const std::string &host, int port, Deadline deadline, std::string &error) {
  addrinfo hints{}, *found = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  if (int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); rc != 0) {
    error = "cannot resolve " + host + ": " + gai_strerror(rc);
    return -1;
  }
  int fd = -1;
  for (addrinfo *a = found; a && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int rc = ::connect(fd, a->ai_addr, a->ai_addrlen);
    int err = rc == 0 ? 0 : errno;
    if (err == EINPROGRESS) {
      err = ETIMEDOUT;
      if (pollFd(fd, POLLOUT, deadline)) {
        socklen_t len = sizeof(err);
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      }
    }
    if (err != 0) {
      error = "cannot connect to " + host + ":" + std::to_string(port) + ": " + std::strerror(err);
      ::close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd >= 0) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  return fd;
}

}  // namespace

std::shared_ptr<SSL_CTX> makeTlsContext(const TlsFiles &files, std::string &error) {
  std::shared_ptr<SSL_CTX> ctx(SSL_CTX_new(TLS_client_method()), SSL_CTX_free);
  if (!ctx) {
    error = "cannot create a TLS context: " + sslError();
    return nullptr;
  }
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  bool ca_ok = files.ca.empty() ? SSL_CTX_set_default_verify_paths(ctx.get()) == 1
                                : SSL_CTX_load_verify_locations(ctx.get(), files.ca.c_str(), nullptr) == 1;
  if (!ca_ok) {
    error = "--shared-cache-tls-ca " + files.ca + " is not a readable PEM certificate: " + sslError();
    return nullptr;
  }
  if (!files.cert.empty()) {
    if (SSL_CTX_use_certificate_chain_file(ctx.get(), files.cert.c_str()) != 1) {
      error = "--shared-cache-tls-cert " + files.cert + " is not a readable PEM certificate: " + sslError();
      return nullptr;
    }
    if (SSL_CTX_use_PrivateKey_file(ctx.get(), files.key.c_str(), SSL_FILETYPE_PEM) != 1 ||
        SSL_CTX_check_private_key(ctx.get()) != 1) {
      error = "--shared-cache-tls-key " + files.key + " is not the private key of the certificate: " + sslError();
      return nullptr;
    }
  }
  return ctx;
}

std::unique_ptr<RedisTransport> RedisTransport::open(const std::string &host, int port, SSL_CTX *tls,
                                                     Deadline deadline, std::string &error) {
  int fd = connectTcp(host, port, deadline, error);
  if (fd < 0) return nullptr;
  std::unique_ptr<RedisTransport> t(new RedisTransport(fd, nullptr));
  if (!tls) return t;
  t->ssl_ = SSL_new(tls);
  SSL_set_fd(t->ssl_, fd);
  // The certificate must name the host we dialled (an IP address is matched as one).
  X509_VERIFY_PARAM *param = SSL_get0_param(t->ssl_);
  in6_addr ip{};
  bool is_ip = inet_pton(AF_INET, host.c_str(), &ip) == 1 || inet_pton(AF_INET6, host.c_str(), &ip) == 1;
  if (is_ip) X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str());
  else {
    X509_VERIFY_PARAM_set1_host(param, host.c_str(), 0);
    SSL_set_tlsext_host_name(t->ssl_, host.c_str());
  }
  for (;;) {
    ERR_clear_error();
    int rc = SSL_connect(t->ssl_);
    if (rc == 1) return t;
    int why = SSL_get_error(t->ssl_, rc);
    short events = why == SSL_ERROR_WANT_READ ? POLLIN : why == SSL_ERROR_WANT_WRITE ? POLLOUT : 0;
    if (events == 0) {
      long verify = SSL_get_verify_result(t->ssl_);
      error = "TLS handshake with " + host + ":" + std::to_string(port) + " failed: " +
              (verify != X509_V_OK ? X509_verify_cert_error_string(verify) : sslError());
      return nullptr;
    }
    if (!t->wait(events, deadline)) {
      error = "TLS handshake with " + host + ":" + std::to_string(port) + " timed out";
      return nullptr;
    }
  }
}

RedisTransport::~RedisTransport() {
  if (ssl_) SSL_free(ssl_);  // no close_notify: the peer may be gone, and Redis does not need it
  ::close(fd_);
}

bool RedisTransport::wait(short events, Deadline deadline) { return pollFd(fd_, events, deadline); }

bool RedisTransport::writeAll(std::string_view bytes, Deadline deadline, std::string &error) {
  while (!bytes.empty()) {
    ssize_t n;
    short events = POLLOUT;
    if (ssl_) {
      ERR_clear_error();
      int rc = SSL_write(ssl_, bytes.data(), static_cast<int>(std::min<size_t>(bytes.size(), 1 << 30)));
      n = rc > 0 ? rc : -1;
      if (rc <= 0) {
        int why = SSL_get_error(ssl_, rc);
        if (why == SSL_ERROR_WANT_READ) events = POLLIN;
        else if (why != SSL_ERROR_WANT_WRITE) {
          error = "TLS write failed: " + sslError();
          return false;
        }
      }
    } else {
      n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n < 0 && errno != EAGAIN && errno != EINTR) {
        error = std::string("write failed: ") + std::strerror(errno);
        return false;
      }
    }
    if (n > 0) {
      bytes.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (!wait(events, deadline)) {
      error = "timed out writing to Redis";
      return false;
    }
  }
  return true;
}

size_t RedisTransport::readSome(char *buf, size_t size, Deadline deadline, std::string &error, bool &timed_out) {
  timed_out = false;
  for (;;) {
    short events = POLLIN;
    if (ssl_) {
      ERR_clear_error();
      int rc = SSL_read(ssl_, buf, static_cast<int>(std::min<size_t>(size, 1 << 30)));
      if (rc > 0) return static_cast<size_t>(rc);
      int why = SSL_get_error(ssl_, rc);
      if (why == SSL_ERROR_WANT_WRITE) events = POLLOUT;
      else if (why != SSL_ERROR_WANT_READ) {
        error = why == SSL_ERROR_ZERO_RETURN ? "Redis closed the connection" : "TLS read failed: " + sslError();
        return 0;
      }
    } else {
      ssize_t n = ::recv(fd_, buf, size, 0);
      if (n > 0) return static_cast<size_t>(n);
      if (n == 0) {
        error = "Redis closed the connection";
        return 0;
      }
      if (errno != EAGAIN && errno != EINTR) {
        error = std::string("read failed: ") + std::strerror(errno);
        return 0;
      }
    }
    if (!wait(events, deadline)) {
      timed_out = true;
      error = "timed out waiting for Redis";
      return 0;
    }
  }
}

}  // namespace msjit::server
