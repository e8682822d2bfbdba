// msjitctl - operate an msjitd: health, stats, compile a .mindir file.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "client_cpp/client.h"

namespace {

const char *kUsage =
    "usage: msjitctl [--address ADDRESS] COMMAND\n"
    "  health                       exit 0 if the daemon answers SERVING\n"
    "  stats                        cache hits, compiles, sizes, workers, limits hit, security events\n"
    "  compile FILE [--jit-level L] compile a serialized ModelProto (.mindir)\n"
    "ADDRESS defaults to $MSJITD_ADDRESS or unix://$MSJIT_HOME/msjitd.sock\n"
    "Credentials for any other address (a TCP daemon), from the environment:\n"
    "  MSJITD_TOKEN_FILE       file holding the daemon's bearer token (its --auth-token-file)\n"
    "  MSJITD_TLS_CA           PEM roots that signed the daemon's certificate; makes the channel TLS\n"
    "  MSJITD_TLS_CERT, MSJITD_TLS_KEY  client certificate and key, for mutual TLS (--tls-client-ca)\n"
    "  MSJITD_TLS_SERVER_NAME  name to check in the daemon's certificate instead of the host\n";

int fail(const std::string &message, int code = 1) {
  std::fprintf(stderr, "msjitctl: %s\n", message.c_str());
  return code;
}

// A failed call's message; a refused credential says so, since its fix is on this side.
std::string describe(const grpc::Status &status) {
  if (status.error_code() == grpc::StatusCode::UNAUTHENTICATED)
    return "the daemon refused the credentials (UNAUTHENTICATED): " + status.error_message() +
           "; set MSJITD_TOKEN_FILE to a file holding its token";
  return status.error_message();
}

int printStats(msjit::client::Client &client) {
  msjit::rpc::StatsReply s;
  grpc::Status status = client.stats(s);
  if (!status.ok()) return fail("stats from " + client.address() + " failed: " + describe(status));
  uint64_t hits = s.memory_hits() + s.disk_hits() + s.inflight_joins();
  std::printf(
      "daemon          %s at %s (up %.0f s)\n"
      "cache dir       %s\n"
      "requests        %llu compile requests: %llu compiled, %llu hits (%llu memory, %llu disk, %llu joined in flight), %llu errors\n"
      "compile time    %.1f ms total\n"
      "memory tier     %llu entries, %llu bytes\n"
      "disk tier       %llu entries, %llu bytes, %llu evicted\n"
      "executes        %llu\n"
      "workers         %llu live, %llu crashed, %llu compiles timed out, %llu cancelled, %llu refused as remembered crashes\n"
      "queue           %llu compiling or waiting, %llu refused (full)\n"
      "security        %llu artifacts quarantined, %llu calls refused for credentials\n",
      s.version().c_str(), client.address().c_str(), s.uptime_s(), s.cache_dir().c_str(),
      (unsigned long long)s.compile_requests(), (unsigned long long)s.compiles(), (unsigned long long)hits,
      (unsigned long long)s.memory_hits(), (unsigned long long)s.disk_hits(),
      (unsigned long long)s.inflight_joins(), (unsigned long long)s.compile_errors(), s.compile_ms_total(),
      (unsigned long long)s.memory_entries(), (unsigned long long)s.memory_bytes(),
      (unsigned long long)s.disk_entries(), (unsigned long long)s.disk_bytes(),
      (unsigned long long)s.disk_evictions(), (unsigned long long)s.executes(), (unsigned long long)s.workers(),
      (unsigned long long)s.worker_crashes(), (unsigned long long)s.compile_timeouts(),
      (unsigned long long)s.compile_cancellations(), (unsigned long long)s.remembered_failures(),
      (unsigned long long)s.queued(), (unsigned long long)s.queue_rejections(), (unsigned long long)s.quarantined(),
      (unsigned long long)s.auth_failures());
  return 0;
}

int compileFile(msjit::client::Client &client, const std::string &path, const std::string &level) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("cannot read " + path);
  std::stringstream bytes;
  bytes << in.rdbuf();
  msjit::rpc::CompileRequest request;
  if (!request.mutable_model()->ParseFromString(bytes.str())) return fail(path + " is not a serialized ModelProto");
  request.mutable_options()->set_jit_level(level);
  msjit::rpc::CompileReply reply;
  grpc::Status status = client.compile(request, reply);
  if (!status.ok()) return fail(path + ": " + describe(status));
  std::printf("key       %s\nartifact  %s (%llu bytes)\ncache     %s\ncompile   %.1f ms\n", reply.key().c_str(),
              reply.artifact_path().c_str(), (unsigned long long)reply.artifact_size(),
              msjit::rpc::CacheTier_Name(reply.hit()).c_str(), reply.compile_ms());
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string address = msjit::client::defaultAddress(), level = "O0";
  std::vector<std::string> positional;
  for (size_t i = 0; i < args.size(); ++i) {
    if ((args[i] == "--address" || args[i] == "--jit-level") && i + 1 < args.size()) {
      (args[i] == "--address" ? address : level) = args[i + 1];
      ++i;
    } else if (args[i] == "--help" || args[i] == "-h") {
      std::printf("%s", kUsage);
      return 0;
    } else {
      positional.push_back(args[i]);
    }
  }
  if (positional.empty()) return fail(std::string("missing command\n") + kUsage, 2);
  // The private local daemon takes no credentials; any other address gets those of the environment.
  msjit::client::Credentials credentials;
  if (address != msjit::client::localAddress()) {
    if (std::string error = msjit::client::Credentials::fromEnvironment(credentials); !error.empty())
      return fail(error, 2);
  }
  msjit::client::Client client(address, credentials);
  const std::string &command = positional[0];
  if (command == "health") {
    bool ok = client.healthy();
    std::printf("%s: %s\n", address.c_str(), ok ? "SERVING" : "not serving");
    return ok ? 0 : 1;
  }
  if (command == "stats") return printStats(client);
  if (command == "compile" && positional.size() == 2) return compileFile(client, positional[1], level);
  return fail("unknown command '" + command + "'\n" + kUsage, 2);
}
