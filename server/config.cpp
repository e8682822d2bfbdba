// config.cpp - msjitd's command line.
#include "server/config.h"

#include <cstdlib>
#include <functional>
#include <map>

namespace msjit::server {
namespace {

bool parseUint(const std::string &text, uint64_t &out) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return false;
  out = std::strtoull(text.c_str(), nullptr, 10);
  return true;
}

}  // namespace

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
         "  --max-request-mb N    largest accepted request in MiB (default 512)\n";
}

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
  std::map<std::string, Setter> flags = {
      {"--listen", [&](const std::string &v) { c.listen = v; return std::string(); }},
      {"--cache-dir", [&](const std::string &v) { c.cache_dir = v; return std::string(); }},
      {"--log-file", [&](const std::string &v) { c.log_file = v; return std::string(); }},
      {"--dump-ir", [&](const std::string &v) { c.dump_ir = v; return std::string(); }},
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
  };
  for (size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i], value;
    if (flag == "--help" || flag == "-h") {
      exit_now = true;
      return "";
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
  return "";
}

}  // namespace msjit::server
