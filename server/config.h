// config.h - msjitd's command line, validated into readable messages.
#ifndef MSJIT_SERVER_CONFIG_H
#define MSJIT_SERVER_CONFIG_H

#include <cstdint>
#include <string>
#include <vector>

namespace msjit::server {

struct Config {
  std::string listen = "";         // "unix:///path.sock" or "HOST:PORT"
  std::string cache_dir = "";      // content-addressed artifact store
  int jobs = 2;                    // concurrent compiles
  std::string log_level = "info";  // trace|debug|info|warn|error|off
  std::string log_file = "";       // stderr when empty
  std::string dump_ir = "";        // write the IR after each stage here
  uint64_t cache_mem_bytes = 256ull << 20;
  uint64_t cache_disk_bytes = 10ull << 30;
  uint64_t max_request_bytes = 512ull << 20;
  uint64_t max_inflight_bytes = 2048ull << 20;  // request bytes held at once, all clients together
  // Limits on untrusted work (compiles and executes run in worker processes).
  int compile_timeout_s = 300;       // per compile, wall clock; the client's deadline may cut it shorter
  uint64_t compile_memory_mb = 8192; // data-segment cap of a compile worker (RLIMIT_DATA)
  int max_queue = 256;               // compiles queued or running; beyond: RESOURCE_EXHAUSTED
  int64_t max_nodes = 200000;        // nodes in one request, nested Grad bodies included
  int crash_retry_after_s = 60;      // a key that killed its worker fails fast this long
  std::string worker_binary = "";    // msjit-worker; default: next to msjitd
  // Who may call.
  std::string auth_token_file = "";  // bearer token required on every msjit call
  std::string tls_cert = "", tls_key = "", tls_client_ca = "";
  bool insecure = false;             // allow a non-loopback address without a credential
  bool allow_execute = false;        // serve Execute on TCP (always served on a unix socket)
  // The shared tier: several daemons share artifacts and single-flight compiles through Redis.
  std::string shared_cache = "";                   // redis://[user@]host[:port][/db] or rediss://...
  std::string shared_cache_password_file = "";     // Redis AUTH password (never in the URL)
  std::string shared_cache_tls_ca = "", shared_cache_tls_cert = "", shared_cache_tls_key = "";
  std::string shared_cache_signing_key_file = "";  // HMAC key the daemons sign entries with
  std::string shared_cache_prefix = "msjit:";      // every Redis key starts with this
  int lease_s = 30;        // a compile lease expires this long after its holder's last renewal
  int shared_error_s = 10; // a compile error is shared with the other daemons this long
  std::string metrics_listen = "";  // HOST:PORT serving Prometheus text metrics at /metrics
};

// A parsed --shared-cache URL.
struct RedisUrl {
  bool tls = false;  // rediss://
  std::string user;  // ACL user ("" = default)
  std::string host;
  int port = 6379;
  int db = 0;
};

// "" on success, else what is wrong with `url` (a password in it is refused: it
// would show in `ps`; use --shared-cache-password-file).
std::string parseRedisUrl(const std::string &url, RedisUrl &out);

// Parses `--flag value` / `--flag=value`. Returns "" on success, otherwise a
// message naming the flag ("--jobs must be > 0"). Sets `exit_now` for --help.
std::string parseFlags(const std::vector<std::string> &args, Config &config, bool &exit_now);

std::string usage();

}  // namespace msjit::server

#endif  // MSJIT_SERVER_CONFIG_H
