// config.cpp - msjitd's command line.
#include "server/config.h"

#include <cstdlib>
#include <functional>
#include <map>
#include <type_traits>

namespace msjit::server {
namespace {

bool parseUint(const std::string &text, uint64_t &out) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return false;
  out = std::strtoull(text.c_str(), nullptr, 10);
  return true;
}

// HOST:PORT with a port in [1, 65535] (HOST may be [v6]).
bool isHostPort(const std::string &text) {
  size_t colon = text.rfind(':');
  uint64_t port = 0;
  return colon != std::string::npos && colon > 0 && parseUint(text.substr(colon + 1), port) && port >= 1 &&
         port <= 65535;
}

}  // namespace

std::string parseRedisUrl(const std::string &url, RedisUrl &out) {
  out = RedisUrl{};
  std::string rest;
  if (url.rfind("redis://", 0) == 0) {
    rest = url.substr(8);
  } else if (url.rfind("rediss://", 0) == 0) {
    out.tls = true;
    rest = url.substr(9);
  } else {
    return "--shared-cache must be redis://host[:port][/db] or rediss://... (got '" + url + "')";
  }
  if (size_t at = rest.rfind('@'); at != std::string::npos) {
    std::string userinfo = rest.substr(0, at);
    if (userinfo.find(':') != std::string::npos)
      return "--shared-cache must not hold a password (it would show in ps): use --shared-cache-password-file";
    out.user = userinfo;
    rest = rest.substr(at + 1);
  }
  if (size_t slash = rest.find('/'); slash != std::string::npos) {
    uint64_t db = 0;
    std::string db_text = rest.substr(slash + 1);
    if (!db_text.empty() && (!parseUint(db_text, db) || db > 15))
      return "--shared-cache database must be an integer in [0, 15] (got '" + db_text + "')";
    out.db = static_cast<int>(db);
    rest = rest.substr(0, slash);
  }
  std::string host = rest;
  if (size_t colon = rest.rfind(':'); colon != std::string::npos && rest.find(']', colon) == std::string::npos) {
    uint64_t port = 0;
    if (!parseUint(rest.substr(colon + 1), port) || port < 1 || port > 65535)
      return "--shared-cache port must be in [1, 65535] (got '" + rest.substr(colon + 1) + "')";
    out.port = static_cast<int>(port);
    host = rest.substr(0, colon);
  }
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty()) return "--shared-cache needs a host (redis://host:port)";
  out.host = host;
  return "";
}

std::string usage() {
  return "usage: msjitd --listen ADDRESS --cache-dir DIR [options]\n"
         "  --listen ADDRESS      unix:///path/to.sock or HOST:PORT\n"
         "  --cache-dir DIR       artifact cache (created if missing)\n"
         "  --jobs N              concurrent compiles (default 2)\n"
         "  --log-level LEVEL     trace|debug|info|warn|error|off (default info)\n"
         "  --log-file PATH       log here instead of stderr\n"
         "  --dump-ir DIR         write the IR after each pipeline stage to DIR\n"
         "  --cache-mem-mb N      memory tier budget in MiB (default 256)\n"
         "  --cache-disk-mb N     disk tier budget in MiB, least recently used evicted (default 10240)\n"
         "  --max-request-mb N    largest accepted request in MiB (default 512)\n"
         "  --max-inflight-mb N   request bytes held at once, all clients together, before\n"
         "                        RESOURCE_EXHAUSTED (default 2048)\n"
         "limits (compiles and executes run in supervised worker processes):\n"
         "  --compile-timeout S   wall-clock limit of one compile or Execute (default 300)\n"
         "  --compile-memory-mb N memory (heap and private mappings, RLIMIT_DATA) of a compile\n"
         "                        worker, >= 512 (default 8192; an idle worker holds ~0.3 GiB)\n"
         "  --max-queue N         compiles queued or running before RESOURCE_EXHAUSTED (default 256)\n"
         "  --max-nodes N         nodes in one graph, Grad bodies included (default 200000)\n"
         "  --crash-retry-after S a graph that crashed its worker fails fast for S seconds (default 60)\n"
         "  --worker-binary PATH  the worker executable (default: msjit-worker next to msjitd)\n"
         "access (a non-loopback address needs a token or TLS unless --insecure):\n"
         "  --auth-token-file F   require 'authorization: Bearer <token in F>' on every call\n"
         "  --tls-cert F --tls-key F   serve TLS with this certificate chain and key (PEM)\n"
         "  --tls-client-ca F     require client certificates signed by this CA (mutual TLS)\n"
         "  --insecure            allow a non-loopback address without any credential\n"
         "  --allow-execute       serve Execute (remote execution) on TCP; always on a unix socket\n"
         "shared tier (daemons of a cluster share artifacts and compile each graph once):\n"
         "  --shared-cache URL    redis://[user@]host[:port][/db] or rediss:// (TLS)\n"
         "  --shared-cache-password-file F   Redis AUTH password\n"
         "  --shared-cache-tls-ca F, --shared-cache-tls-cert F, --shared-cache-tls-key F\n"
         "                        TLS to Redis: CA to verify it, client certificate and key\n"
         "  --shared-cache-signing-key-file F  key the daemons sign and verify entries with\n"
         "                        (required with --shared-cache unless --insecure)\n"
         "  --shared-cache-prefix P  prefix of every Redis key (default msjit:)\n"
         "  --lease-s S           a compile lease lapses S seconds after its holder's last renewal (default 30)\n"
         "  --shared-error-s S    how long a compile error is shared with the other daemons (default 10)\n"
         "  --metrics-listen HOST:PORT  serve Prometheus text metrics at http://HOST:PORT/metrics\n"
         "                        (plain HTTP, no authentication: counters and latencies only, never keys\n"
         "                        or paths; bind it where only the monitoring system reaches)\n";
}

namespace {

std::string checkSharedCache(const Config &c) {
  bool any_shared_flag = !c.shared_cache_password_file.empty() || !c.shared_cache_tls_ca.empty() ||
                         !c.shared_cache_tls_cert.empty() || !c.shared_cache_tls_key.empty() ||
                         !c.shared_cache_signing_key_file.empty();
  if (c.shared_cache.empty())
    return any_shared_flag ? "--shared-cache-* options need --shared-cache redis://host:port" : "";
  RedisUrl url;
  if (std::string err = parseRedisUrl(c.shared_cache, url); !err.empty()) return err;
  bool tls_files = !c.shared_cache_tls_ca.empty() || !c.shared_cache_tls_cert.empty() || !c.shared_cache_tls_key.empty();
  if (tls_files && !url.tls) return "--shared-cache-tls-* options need a rediss:// URL";
  if (c.shared_cache_tls_cert.empty() != c.shared_cache_tls_key.empty())
    return "--shared-cache-tls-cert and --shared-cache-tls-key go together";
  if (c.shared_cache_signing_key_file.empty() && !c.insecure)
    return "--shared-cache needs --shared-cache-signing-key-file (entries from Redis are trusted only when signed), "
           "or --insecure";
  if (c.shared_cache_prefix.empty()) return "--shared-cache-prefix must not be empty";
  return "";
}

}  // namespace

std::string parseFlags(const std::vector<std::string> &args, Config &c, bool &exit_now) {
  exit_now = false;
  using Setter = std::function<std::string(const std::string &)>;
  auto mib = [](uint64_t &field, const char *flag) -> Setter {
    return [&field, flag](const std::string &v) -> std::string {
      uint64_t n = 0;
      if (!parseUint(v, n) || n == 0) return std::string(flag) + " must be a positive integer (MiB)";
      field = n << 20;
      return "";
    };
  };
  auto text = [](std::string &field) -> Setter {
    return [&field](const std::string &v) { return field = v, std::string(); };
  };
  // An integer flag within [lo, hi].
  auto count = [](auto &field, const char *flag, int64_t lo, int64_t hi) -> Setter {
    return [&field, flag, lo, hi](const std::string &v) -> std::string {
      uint64_t n = 0;
      if (!parseUint(v, n) || n < static_cast<uint64_t>(lo) || n > static_cast<uint64_t>(hi))
        return std::string(flag) + " must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
      field = static_cast<std::remove_reference_t<decltype(field)>>(n);
      return "";
    };
  };
  std::map<std::string, Setter> flags = {
      {"--listen", text(c.listen)},
      {"--cache-dir", text(c.cache_dir)},
      {"--log-file", text(c.log_file)},
      {"--dump-ir", text(c.dump_ir)},
      {"--jobs",
       [&](const std::string &v) -> std::string {
         uint64_t n = 0;
         if (!parseUint(v, n) || n == 0 || n > 256) return "--jobs must be > 0 and <= 256";
         c.jobs = static_cast<int>(n);
         return "";
       }},
      {"--log-level",
       [&](const std::string &v) -> std::string {
         for (const char *l : {"trace", "debug", "info", "warn", "error", "off"})
           if (v == l) return c.log_level = v, "";
         return "--log-level must be one of trace, debug, info, warn, error, off";
       }},
      {"--cache-mem-mb", mib(c.cache_mem_bytes, "--cache-mem-mb")},
      {"--cache-disk-mb", mib(c.cache_disk_bytes, "--cache-disk-mb")},
      {"--max-request-mb", mib(c.max_request_bytes, "--max-request-mb")},
      {"--max-inflight-mb", mib(c.max_inflight_bytes, "--max-inflight-mb")},
      {"--compile-timeout", count(c.compile_timeout_s, "--compile-timeout", 1, 86400)},
      {"--compile-memory-mb", count(c.compile_memory_mb, "--compile-memory-mb", 512, 1 << 22)},
      {"--max-queue", count(c.max_queue, "--max-queue", 1, 1 << 20)},
      {"--max-nodes", count(c.max_nodes, "--max-nodes", 1, int64_t(1) << 32)},
      {"--crash-retry-after", count(c.crash_retry_after_s, "--crash-retry-after", 0, 86400)},
      {"--worker-binary", text(c.worker_binary)},
      {"--auth-token-file", text(c.auth_token_file)},
      {"--tls-cert", text(c.tls_cert)},
      {"--tls-key", text(c.tls_key)},
      {"--tls-client-ca", text(c.tls_client_ca)},
      {"--shared-cache", text(c.shared_cache)},
      {"--shared-cache-password-file", text(c.shared_cache_password_file)},
      {"--shared-cache-tls-ca", text(c.shared_cache_tls_ca)},
      {"--shared-cache-tls-cert", text(c.shared_cache_tls_cert)},
      {"--shared-cache-tls-key", text(c.shared_cache_tls_key)},
      {"--shared-cache-signing-key-file", text(c.shared_cache_signing_key_file)},
      {"--shared-cache-prefix", text(c.shared_cache_prefix)},
      {"--lease-s", count(c.lease_s, "--lease-s", 2, 3600)},
      {"--shared-error-s", count(c.shared_error_s, "--shared-error-s", 0, 3600)},
      {"--metrics-listen", text(c.metrics_listen)},
  };
  std::map<std::string, bool *> switches = {{"--insecure", &c.insecure}, {"--allow-execute", &c.allow_execute}};
  for (size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i], value;
    if (flag == "--help" || flag == "-h") {
      exit_now = true;
      return "";
    }
    if (auto sw = switches.find(flag); sw != switches.end()) {
      *sw->second = true;
      continue;
    }
    size_t eq = flag.find('=');
    if (eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
    }
    auto it = flags.find(flag);
    if (it == flags.end()) return "unknown flag '" + flag + "'";
    if (eq == std::string::npos) {
      if (i + 1 >= args.size()) return flag + " needs a value";
      value = args[++i];
    }
    if (std::string err = it->second(value); !err.empty()) return err;
  }
  if (c.listen.empty()) return "--listen is required (unix:///path.sock or HOST:PORT)";
  if (c.cache_dir.empty()) return "--cache-dir is required";
  if (c.max_inflight_bytes < c.max_request_bytes) return "--max-inflight-mb must be at least --max-request-mb";
  if (c.tls_cert.empty() != c.tls_key.empty()) return "--tls-cert and --tls-key go together";
  if (!c.tls_client_ca.empty() && c.tls_cert.empty()) return "--tls-client-ca needs --tls-cert and --tls-key";
  if (!c.metrics_listen.empty() && !isHostPort(c.metrics_listen))
    return "--metrics-listen must be HOST:PORT (got '" + c.metrics_listen + "')";
  return checkSharedCache(c);
}

}  // namespace msjit::server
