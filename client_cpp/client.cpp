#include "client_cpp/client.h"

#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "proto/health.grpc.pb.h"

namespace msjit::client {
namespace {

using Clock = std::chrono::steady_clock;

// The bytes of the file at `path` into `out`; false when it cannot be read.
bool readFile(const std::string &path, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream bytes;
  bytes << in.rdbuf();
  out = bytes.str();
  return !in.bad();
}

// The file named by environment variable `variable` into `out` (left empty when unset).
std::string readEnvFile(const char *variable, std::string &out) {
  const char *path = std::getenv(variable);
  if (!path || !*path) return "";
  if (!readFile(path, out)) return std::string("cannot read ") + variable + "=" + path + ": " + std::strerror(errno);
  return "";
}

std::shared_ptr<grpc::Channel> makeChannel(const std::string &address, const Credentials &c) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(1 << 30);
  args.SetMaxSendMessageSize(1 << 30);
  // As the Python client: a daemon that comes back is reconnected to within a second.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  if (!c.tls()) return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = c.root_certs;
  ssl.pem_cert_chain = c.cert_chain;
  ssl.pem_private_key = c.private_key;
  if (!c.server_name.empty()) args.SetSslTargetNameOverride(c.server_name);
  return grpc::CreateCustomChannel(address, grpc::SslCredentials(ssl), args);
}

std::chrono::system_clock::time_point after(int ms) {
  return std::chrono::system_clock::now() + std::chrono::milliseconds(ms);
}

// A private directory (0700) with its parents, as client_py's make_private_dir.
bool makePrivateDir(const std::string &path) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    std::string prefix = path.substr(0, slash);
    if (::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) return false;
    if (slash == std::string::npos) break;
  }
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) return false;
  if (info.st_uid == ::getuid() && (info.st_mode & 077)) ::chmod(path.c_str(), 0700);
  return true;
}

// Writes `bytes` to `path` through a temp file renamed into place: present means complete.
bool storeAtomically(const std::string &path, const std::string &bytes) {
  std::string dir = path.substr(0, path.rfind('/'));
  if (!makePrivateDir(dir)) return false;
  std::string tmp = dir + "/.fetch-XXXXXX";
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) return false;
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0 && errno != EINTR) break;
    if (n > 0) done += static_cast<size_t>(n);
  }
  bool ok = done == bytes.size() && ::close(fd) == 0 && ::rename(tmp.c_str(), path.c_str()) == 0;
  if (!ok) ::unlink(tmp.c_str());
  return ok;
}

// A copy that does not match its digest is kept for inspection, out of the way, as the Python
// client does: $MSJIT_HOME/quarantine/<name>.<ns>.
void quarantine(const std::string &path) {
  std::string dir = msjitHome() + "/quarantine";
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch());
  std::string target = dir + "/" + path.substr(path.rfind('/') + 1) + "." + std::to_string(ns.count());
  if (!makePrivateDir(dir) || ::rename(path.c_str(), target.c_str()) != 0) ::unlink(path.c_str());
}

bool isBusy(const grpc::Status &s) {
  // (a graph over the daemon's memory limit stays over it: not worth asking again)
  return s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED &&
         s.error_message().find("--compile-memory-mb") == std::string::npos;
}

}  // namespace

std::string msjitHome() {
  const char *home = std::getenv("MSJIT_HOME"), *user_home = std::getenv("HOME");
  return home && *home ? home : std::string(user_home ? user_home : "/tmp") + "/.cache/msjit";
}

std::string localAddress() { return "unix://" + msjitHome() + "/msjitd.sock"; }

std::vector<std::string> splitAddresses(const std::string &list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

std::vector<std::string> defaultAddresses() {
  const char *list = std::getenv("MSJITD_ADDRESS");
  std::vector<std::string> out = splitAddresses(list ? list : "");
  if (out.empty()) out.push_back(localAddress());
  return out;
}

std::string defaultAddress() { return defaultAddresses().front(); }

std::string Credentials::fromEnvironment(Credentials &out) {
  out = Credentials();
  using Field = std::pair<const char *, std::string *>;
  for (auto [variable, field] : {Field{"MSJITD_TOKEN_FILE", &out.token}, Field{"MSJITD_TLS_CA", &out.root_certs},
                                 Field{"MSJITD_TLS_CERT", &out.cert_chain}, Field{"MSJITD_TLS_KEY", &out.private_key}})
    if (std::string error = readEnvFile(variable, *field); !error.empty()) return error;
  // Editors and `echo > file` add a newline; a token never ends in whitespace (as the daemon reads it).
  out.token.erase(out.token.find_last_not_of(" \t\r\n") + 1);
  if (std::getenv("MSJITD_TOKEN_FILE") && *std::getenv("MSJITD_TOKEN_FILE") && out.token.empty())
    return std::string("MSJITD_TOKEN_FILE=") + std::getenv("MSJITD_TOKEN_FILE") + " is empty";
  if (out.cert_chain.empty() != out.private_key.empty())
    return "MSJITD_TLS_CERT and MSJITD_TLS_KEY go together (a client certificate and its key); set both or neither";
  if (const char *name = std::getenv("MSJITD_TLS_SERVER_NAME")) out.server_name = name;
  return "";
}

Client::Client(const std::string &address, const Credentials &credentials)
    : address_(address),
      token_(credentials.token),
      channel_(makeChannel(address, credentials)),
      stub_(rpc::Msjit::NewStub(channel_)) {}

void Client::authorize(grpc::ClientContext &ctx) const {
  if (!token_.empty()) ctx.AddMetadata("authorization", "Bearer " + token_);
}

bool Client::healthy(int timeout_ms) {
  auto stub = grpc::health::v1::Health::NewStub(channel_);
  grpc::ClientContext ctx;
  ctx.set_deadline(after(timeout_ms));
  grpc::health::v1::HealthCheckResponse response;
  grpc::Status status = stub->Check(&ctx, grpc::health::v1::HealthCheckRequest(), &response);
  return status.ok() && response.status() == grpc::health::v1::HealthCheckResponse::SERVING;
}

grpc::Status Client::stats(rpc::StatsReply &reply) {
  grpc::ClientContext ctx;
  authorize(ctx);
  ctx.set_deadline(after(10000));
  return stub_->Stats(&ctx, rpc::StatsRequest(), &reply);
}

grpc::Status Client::listCache(uint32_t limit, rpc::ListCacheReply &reply) {
  grpc::ClientContext ctx;
  authorize(ctx);
  ctx.set_deadline(after(60000));  // reads every entry on disk
  rpc::ListCacheRequest request;
  request.set_limit(limit);
  return stub_->ListCache(&ctx, request, &reply);
}

grpc::Status Client::removeCacheEntry(const std::string &key, bool shared, rpc::RemoveCacheEntryReply &reply) {
  grpc::ClientContext ctx;
  authorize(ctx);
  ctx.set_deadline(after(30000));
  rpc::RemoveCacheEntryRequest request;
  request.set_key(key);
  request.set_shared(shared);
  return stub_->RemoveCacheEntry(&ctx, request, &reply);
}

grpc::Status Client::compile(const rpc::CompileRequest &request, rpc::CompileReply &reply, int timeout_ms) {
  grpc::ClientContext ctx;
  authorize(ctx);
  if (timeout_ms > 0) ctx.set_deadline(after(timeout_ms));
  return stub_->Compile(&ctx, request, &reply);
}

grpc::Status Client::fetchArtifact(const std::string &key, std::string &bytes, int timeout_ms) {
  grpc::ClientContext ctx;
  authorize(ctx);
  ctx.set_deadline(after(timeout_ms));
  rpc::FetchArtifactRequest request;
  request.set_key(key);
  auto reader = stub_->FetchArtifact(&ctx, request);
  bytes.clear();
  for (rpc::ArtifactChunk chunk; reader->Read(&chunk);) bytes += chunk.data();
  return reader->Finish();
}

FailoverClient::FailoverClient(const std::vector<std::string> &addresses, const Credentials &credentials)
    : credentials_(credentials) {
  for (const auto &address : addresses) targets_.push_back(Target{address, nullptr, {}, 0});
}

std::string FailoverClient::address() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return current_ < 0 ? "" : targets_[current_].address;
}

void FailoverClient::markDown(size_t index) {
  Target &t = targets_[index];
  t.backoff_ms = t.backoff_ms == 0 ? kBackoffFirstMs : std::min(2 * t.backoff_ms, kBackoffMaxMs);
  t.retry_at = Clock::now() + std::chrono::milliseconds(t.backoff_ms);
  t.client.reset();
  if (current_ == static_cast<int>(index)) current_ = -1;
}

bool FailoverClient::earlierMayServe() const {
  for (int i = 0; i < current_; ++i)
    if (targets_[i].backoff_ms > 0 && targets_[i].retry_at <= Clock::now()) return true;
  return false;
}

int FailoverClient::choose(const std::vector<bool> &excluded) {
  auto now = Clock::now();
  for (bool inBackoff : {false, true}) {
    for (size_t i = 0; i < targets_.size(); ++i) {
      Target &t = targets_[i];
      if (excluded[i] || (t.backoff_ms > 0 && t.retry_at > now) != inBackoff) continue;
      if (!t.client) t.client = std::make_shared<Client>(t.address, credentials_);
      if (t.client->healthy(kHealthTimeoutMs)) {
        t.backoff_ms = 0;
        return current_ = static_cast<int>(i);
      }
      markDown(i);
    }
  }
  return -1;
}

template <class Call>
grpc::Status FailoverClient::call(Call &&fn) {
  std::vector<bool> tried(targets_.size(), false);
  grpc::Status last;
  while (true) {
    std::shared_ptr<Client> client;
    int index;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      index = current_;
      if (index < 0 || tried[index] || earlierMayServe()) index = choose(tried);
      if (index < 0) {
        std::string list;
        for (const auto &t : targets_) list += (list.empty() ? "" : ", ") + t.address;
        if (!last.ok()) return grpc::Status(last.error_code(), "msjitd at " + list + " became unavailable: " + last.error_message());
        return grpc::Status(grpc::StatusCode::UNAVAILABLE, "msjitd is not reachable at " + list + " (MSJITD_ADDRESS)");
      }
      client = targets_[index].client;
    }
    grpc::Status status = fn(*client);
    if (status.error_code() != grpc::StatusCode::UNAVAILABLE) return status;
    std::lock_guard<std::mutex> lock(mutex_);
    tried[index] = true;
    last = status;
    if (current_ == index) markDown(index);
  }
}

grpc::Status FailoverClient::compile(const rpc::CompileRequest &request, rpc::CompileReply &reply, int timeout_ms) {
  auto deadline = Clock::now() + std::chrono::seconds(120);
  for (int pause_ms = 50;; pause_ms = std::min(2 * pause_ms, 2000)) {
    grpc::Status status = call([&](Client &c) { return c.compile(request, reply, timeout_ms); });
    if (!isBusy(status) || Clock::now() + std::chrono::milliseconds(pause_ms) > deadline) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
  }
}

grpc::Status FailoverClient::fetchArtifact(const std::string &key, const std::string &digest, std::string &bytes,
                                           bool *fetched) {
  if (!isDigest(digest)) return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "'" + digest + "' is not a SHA-256 digest");
  if (fetched) *fetched = false;
  std::string copy = msjitHome() + "/artifacts/" + digest + ".so";
  if (readFile(copy, bytes)) {
    if (sha256Hex(bytes) == digest) return grpc::Status::OK;
    quarantine(copy);
  }
  grpc::Status status = call([&](Client &c) { return c.fetchArtifact(key, bytes); });
  if (!status.ok()) return status;
  if (fetched) *fetched = true;
  if (std::string got = sha256Hex(bytes); got != digest)
    return grpc::Status(grpc::StatusCode::DATA_LOSS, "artifact for key " + key + " has SHA-256 " + got +
                                                         ", but the daemon announced " + digest + "; not using it");
  storeAtomically(copy, bytes);  // (a cache: failing to keep a copy costs a later fetch, nothing else)
  return grpc::Status::OK;
}

grpc::Status FailoverClient::artifact(const rpc::CompileReply &reply, std::string &bytes, std::string *source) {
  if (!reply.artifact_path().empty() && readFile(reply.artifact_path(), bytes) &&
      sha256Hex(bytes) == reply.artifact_digest()) {
    if (source) *source = "daemon";
    return grpc::Status::OK;
  }
  bool fetched = false;
  grpc::Status status = fetchArtifact(reply.key(), reply.artifact_digest(), bytes, &fetched);
  if (source) *source = fetched ? "fetched" : "client-cache";
  return status;
}

}  // namespace msjit::client
