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
};

// Parses `--flag value` / `--flag=value`. Returns "" on success, otherwise a
// message naming the flag ("--jobs must be > 0"). Sets `exit_now` for --help.
std::string parseFlags(const std::vector<std::string> &args, Config &config, bool &exit_now);

std::string usage();

}  // namespace msjit::server

#endif  // MSJIT_SERVER_CONFIG_H
