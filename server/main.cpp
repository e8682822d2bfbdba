// msjitd - the msjit compile daemon. See `msjitd --help`.
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>

#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include "server/auth.h"
#include "server/cache/artifact_cache.h"
#include "server/cache/shared_tier.h"
#include "server/config.h"
#include "server/metrics.h"
#include "server/metrics_http.h"
#include "server/service.h"
#include "server/worker/worker_pool.h"
#include "spdlog/sinks/basic_file_sink.h"
#include "spdlog/sinks/stdout_color_sinks.h"
#include "spdlog/spdlog.h"

namespace {

constexpr const char *kUnixPrefix = "unix://";

std::string unixSocketPath(const std::string &listen) {
  return listen.rfind(kUnixPrefix, 0) == 0 ? listen.substr(std::strlen(kUnixPrefix)) : "";
}

// A socket file left by a daemon that died is removed; one that still
// accepts connections belongs to a live daemon and is left alone.
bool claimUnixSocket(const std::string &path) {
  if (access(path.c_str(), F_OK) != 0) return true;
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  bool live = connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) == 0;
  close(fd);
  if (live) return false;
  unlink(path.c_str());
  return true;
}

void setUpLogging(const msjit::server::Config &config) {
  auto logger = config.log_file.empty() ? spdlog::stderr_color_mt("msjitd")
                                        : spdlog::basic_logger_mt("msjitd", config.log_file);
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(config.log_level));
  spdlog::flush_on(spdlog::level::info);
}

// msjit-worker lives next to msjitd unless --worker-binary says otherwise.
std::string workerBinary(const msjit::server::Config &config) {
  if (!config.worker_binary.empty()) return config.worker_binary;
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return (ec ? std::filesystem::path(".") : self.parent_path()) / "msjit-worker";
}

msjit::server::WorkerSpec workerSpec(const msjit::server::Config &config, const std::string &binary, bool compiles) {
  msjit::server::WorkerSpec spec;
  spec.binary = binary;
  spec.args = {"--mode", compiles ? "compile" : "execute"};
  if (compiles) spec.args.insert(spec.args.end(), {"--memory-mb", std::to_string(config.compile_memory_mb)});
  if (!config.log_file.empty()) spec.args.insert(spec.args.end(), {"--log-file", config.log_file});
  spec.sends_hello = compiles;
  spec.stderr_file = config.log_file;
  return spec;
}

}  // namespace

int main(int argc, char **argv) {
  msjit::server::Config config;
  bool exit_now = false;
  std::string error = msjit::server::parseFlags({argv + 1, argv + argc}, config, exit_now);
  if (exit_now || !error.empty()) {
    std::fprintf(exit_now ? stdout : stderr, "%s%s%s", error.empty() ? "" : "msjitd: ", error.empty() ? "" : (error + "\n").c_str(),
                 msjit::server::usage().c_str());
    return exit_now ? 0 : 2;
  }
  // Sockets, cache files and directories are the daemon user's alone.
  umask(077);
  signal(SIGPIPE, SIG_IGN);  // a dead worker's pipe is an error return, not a signal
  setUpLogging(config);
  if (std::string refusal = msjit::server::checkExposure(config); !refusal.empty()) {
    spdlog::critical("{}", refusal);
    return 1;
  }
  error.clear();
  std::shared_ptr<grpc::ServerCredentials> credentials = msjit::server::serverCredentials(config, error);
  std::unique_ptr<msjit::server::Authenticator> auth;
  if (error.empty()) auth = msjit::server::Authenticator::fromConfig(config, error);
  if (!error.empty()) {
    spdlog::critical("{}", error);
    return 1;
  }

  // Signals are taken synchronously by the main thread (sigwait below); every
  // thread gRPC starts inherits this mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  msjit::server::ArtifactCache cache(config.cache_dir, config.cache_mem_bytes, config.cache_disk_bytes);
  if (!cache.ok()) {
    spdlog::critical("cannot use cache directory {}", config.cache_dir);
    return 1;
  }
  for (const std::string &dir : {config.dump_ir, cache.dir() + "/repro"}) {
    std::error_code ec;
    if (!dir.empty()) std::filesystem::create_directories(dir, ec);
    if (ec) {
      spdlog::critical("cannot create directory {}: {}", dir, ec.message());
      return 1;
    }
  }
  std::string socketPath = unixSocketPath(config.listen);
  if (!socketPath.empty() && !claimUnixSocket(socketPath)) {
    spdlog::critical("another daemon is already listening on {}", config.listen);
    return 1;
  }

  std::string binary = workerBinary(config);
  msjit::server::WorkerPool compilers("compile", workerSpec(config, binary, true), config.jobs);
  msjit::server::WorkerPool executors("execute", workerSpec(config, binary, false), config.jobs);
  if (!compilers.start(error)) {  // also learns what the workers compile for (cache keys)
    spdlog::critical("cannot start a compile worker: {}", error);
    return 1;
  }

  msjit::server::Metrics metrics;
  msjit::server::MsjitService service(config, cache, *auth, compilers, executors, metrics);
  std::unique_ptr<msjit::server::SharedTier> shared;
  if (!config.shared_cache.empty()) {
    shared = msjit::server::SharedTier::fromConfig(config, error);
    if (!shared) {
      spdlog::critical("{}", error);
      return 1;
    }
    // Not fatal: the daemon serves from its local tiers and reconnects when Redis is back.
    if (!shared->reachable())
      spdlog::warn("shared cache {} is unreachable at startup; serving locally until it is back",
                   shared->redis().address());
    else spdlog::info("shared cache {} (prefix {}, lease {} s)", shared->redis().address(), config.shared_cache_prefix,
                      config.lease_s);
    service.setSharedTier(shared.get());
  }
  msjit::server::MetricsHttpServer metricsHttp([&service] { return service.prometheusText(); });
  if (!config.metrics_listen.empty()) {
    if (std::string refusal = metricsHttp.start(config.metrics_listen); !refusal.empty()) {
      spdlog::critical("{}", refusal);
      return 1;
    }
    spdlog::info("Prometheus metrics at http://{}/metrics (unauthenticated: counters only)", config.metrics_listen);
  }
  grpc::EnableDefaultHealthCheckService(true);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(config.listen, credentials, &port);
  builder.SetMaxReceiveMessageSize(static_cast<int>(std::min<uint64_t>(config.max_request_bytes, INT32_MAX)));
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server) {
    spdlog::critical("cannot listen on {}", config.listen);
    return 1;
  }
  if (!socketPath.empty()) chmod(socketPath.c_str(), 0600);
  spdlog::info("msjitd listening on {}{}{}{}, cache {} ({} entries), {} compile workers ({}), compiler {} for {}",
               config.listen, socketPath.empty() ? " (port " + std::to_string(port) + ")" : "",
               config.tls_cert.empty() ? "" : ", TLS", auth->enabled() ? ", token required" : "", cache.dir(),
               cache.diskEntries(), config.jobs, binary, compilers.hello().compiler_version(),
               compilers.hello().target_cpu());

  int sig = 0;
  sigwait(&signals, &sig);
  spdlog::info("received {}, shutting down: in-flight requests get 30 s", strsignal(sig));
  server->GetHealthCheckService()->SetServingStatus(false);
  // Drain ourselves rather than through Shutdown's deadline, which also waits
  // out idle client connections. Cache writes are atomic renames: a compile
  // cut short leaves no entry.
  if (!service.drain(std::chrono::seconds(30))) spdlog::warn("cancelling requests still in flight");
  server->Shutdown(std::chrono::system_clock::now());
  server->Wait();
  metricsHttp.stop();
  if (!socketPath.empty()) unlink(socketPath.c_str());
  spdlog::info("msjitd stopped");
  spdlog::shutdown();
  // Everything is drained and the cache is on disk. Skip static teardown: gRPC's
  // global shutdown can wait ~10 s on an idle poller thread after large streams.
  std::_Exit(0);
}
