// msjitctl - operate an msjitd: health, stats, the cache's entries, compile a .mindir file.
#include <google/protobuf/util/json_util.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "client_cpp/client.h"

namespace {

const char *kUsage =
    "usage: msjitctl [--address ADDRESS] COMMAND\n"
    "  health                       exit 0 if the daemon answers SERVING\n"
    "  stats [--json]               cache hits, compiles, sizes, workers, limits hit, security events\n"
    "                               (--json: every Stats field, named as in proto/msjit.proto)\n"
    "  cache ls [--json] [--limit N]  the cached keys, most recently used first: key, artifact digest,\n"
    "                               size, tiers (memory, disk)\n"
    "  cache rm KEY [--shared]      drop KEY from the daemon's memory and disk tiers (--shared: and from\n"
    "                               the shared Redis tier); the next compile of it is a miss\n"
    "  compile FILE [--jit-level L] compile a serialized ModelProto (.mindir)\n"
    "Exit status: 0 done, 1 the call failed (or cache rm found no such key), 2 bad usage\n"
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

// A reply as JSON on stdout: field names as in the .proto, zeros and empty fields included.
int printJson(const google::protobuf::Message &message) {
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string json;
  if (!google::protobuf::util::MessageToJsonString(message, &json, options).ok())
    return fail("cannot print the reply as JSON");
  std::printf("%s\n", json.c_str());
  return 0;
}

int printStats(msjit::client::Client &client, bool json) {
  msjit::rpc::StatsReply s;
  grpc::Status status = client.stats(s);
  if (!status.ok()) return fail("stats from " + client.address() + " failed: " + describe(status));
  if (json) return printJson(s);
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

int listCache(msjit::client::Client &client, uint32_t limit, bool json) {
  msjit::rpc::ListCacheReply reply;
  grpc::Status status = client.listCache(limit, reply);
  if (status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED)
    return fail("the cache listing is larger than a reply may be; list fewer with --limit N");
  if (!status.ok()) return fail("cache ls from " + client.address() + " failed: " + describe(status));
  if (json) return printJson(reply);
  std::printf("%-64s  %-12s  %12s  %s\n", "KEY", "DIGEST", "SIZE", "TIERS");
  for (const auto &e : reply.entries()) {
    std::string tiers = e.in_memory() && e.on_disk() ? "memory,disk" : e.in_memory() ? "memory" : "disk";
    std::printf("%-64s  %-12s  %12llu  %s\n", e.key().c_str(), e.artifact_digest().substr(0, 12).c_str(),
                (unsigned long long)e.artifact_size(), tiers.c_str());
  }
  return 0;
}

int removeEntry(msjit::client::Client &client, const std::string &key, bool shared) {
  msjit::rpc::RemoveCacheEntryReply reply;
  grpc::Status status = client.removeCacheEntry(key, shared, reply);
  if (!status.ok()) return fail("cache rm " + key + " on " + client.address() + " failed: " + describe(status));
  std::printf("%s: %s the local tiers%s\n", key.c_str(), reply.removed_local() ? "removed from" : "was not in",
              !shared ? "" : reply.removed_shared() ? "; removed from the shared tier" : "; was not in the shared tier");
  return reply.removed_local() || reply.removed_shared() ? 0 : 1;
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
  std::string address = msjit::client::defaultAddress(), level = "O0", limit = "0";
  bool json = false, shared = false;
  std::vector<std::string> positional, flags;
  for (size_t i = 0; i < args.size(); ++i) {
    if ((args[i] == "--address" || args[i] == "--jit-level" || args[i] == "--limit") && i + 1 < args.size()) {
      (args[i] == "--address" ? address : args[i] == "--limit" ? limit : level) = args[i + 1];
      flags.push_back(args[i]);
      ++i;
    } else if (args[i] == "--help" || args[i] == "-h") {
      std::printf("%s", kUsage);
      return 0;
    } else if (args[i] == "--json" || args[i] == "--shared") {
      (args[i] == "--json" ? json : shared) = true;
      flags.push_back(args[i]);
    } else if (args[i].rfind("--", 0) == 0) {
      return fail("unknown option '" + args[i] + "'\n" + kUsage, 2);
    } else {
      positional.push_back(args[i]);
    }
  }
  if (positional.empty()) return fail(std::string("missing command\n") + kUsage, 2);
  // Each option belongs to some commands; elsewhere it is a mistake worth saying.
  std::string verb = positional[0] == "cache" && positional.size() > 1 ? "cache " + positional[1] : positional[0];
  for (const std::string &flag : flags) {
    bool fits = flag == "--address" || (flag == "--json" && (verb == "stats" || verb == "cache ls")) ||
                (flag == "--limit" && verb == "cache ls") || (flag == "--shared" && verb == "cache rm") ||
                (flag == "--jit-level" && verb == "compile");
    if (!fits) return fail(flag + " does not apply to '" + verb + "'\n" + kUsage, 2);
  }
  char *end = nullptr;
  unsigned long long maxEntries = std::strtoull(limit.c_str(), &end, 10);
  if (limit.empty() || *end || limit[0] == '-' || maxEntries > UINT32_MAX)
    return fail("--limit takes a number of entries (0: all), got '" + limit + "'", 2);
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
  if (command == "stats" && positional.size() == 1) return printStats(client, json);
  if (verb == "cache ls" && positional.size() == 2) return listCache(client, static_cast<uint32_t>(maxEntries), json);
  if (verb == "cache rm" && positional.size() == 3) return removeEntry(client, positional[2], shared);
  if (command == "cache") return fail("cache takes 'ls' or 'rm KEY'\n" + std::string(kUsage), 2);
  if (command == "compile" && positional.size() == 2) return compileFile(client, positional[1], level);
  return fail("unknown command '" + command + "'\n" + kUsage, 2);
}
