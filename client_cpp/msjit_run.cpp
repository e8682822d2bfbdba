// msjit-run - the C++ client end to end: compile a graph through msjitd (a list of addresses with
// failover), get its artifact verified (SHA-256) from the daemon's file, this host's client cache
// or FetchArtifact, load it in this process with the runtime, run it on the given inputs.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "client_cpp/client.h"
#include "runtime/checked_run.h"
#include "runtime/msjit_runtime.h"

namespace {

const char *kUsage =
    "usage: msjit-run [--address ADDRESSES] [--timeout-s S] REQUEST INPUTS OUTPUTS\n"
    "  REQUEST   file: a serialized msjit.rpc.CompileRequest (ModelProto + CompileOptions)\n"
    "  INPUTS    file: a serialized msjit.rpc.ExecuteRequest; its `inputs` (TensorProto, raw_data\n"
    "            little-endian) in the graph's input order, parameters after inputs; `key` is ignored\n"
    "  OUTPUTS   file written: a serialized msjit.rpc.ExecuteReply holding the outputs\n"
    "  --address ADDRESSES  comma-separated gRPC targets (default $MSJITD_ADDRESS, else\n"
    "            unix://$MSJIT_HOME/msjitd.sock); the first healthy one is used and a daemon that\n"
    "            goes away is replaced by the next (health checks time out after 1 s)\n"
    "  --timeout-s S        deadline of one Compile call (default 600)\n"
    "Compiles the graph, takes the artifact from the daemon's cache file when it is on this host,\n"
    "else from $MSJIT_HOME/artifacts/<digest>.so, else fetches it (FetchArtifact) and keeps it\n"
    "there; the bytes are always checked against the reply's SHA-256 before they are loaded.\n"
    "Prints one line on stdout:\n"
    "  tier=TIER_DISK compile_ms=0.0 key=<hex> address=<address used> artifact=daemon|client-cache|fetched\n"
    "Credentials for a TCP daemon, from the environment (applied to every address):\n"
    "  MSJITD_TOKEN_FILE, MSJITD_TLS_CA, MSJITD_TLS_CERT, MSJITD_TLS_KEY, MSJITD_TLS_SERVER_NAME\n"
    "Exit status: 0 ok; 1 compile error (the daemon's diagnostic on stderr) or another failure to\n"
    "compile, fetch, load or run; 2 bad usage or bad inputs (unreadable files, wrong count, dtype or\n"
    "shape); 3 no daemon reachable at any address.\n";

enum Exit { kOk = 0, kCompileError = 1, kBadInput = 2, kUnreachable = 3 };

int fail(const std::string &message, int code) {
  std::fprintf(stderr, "msjit-run: %s\n", message.c_str());
  return code;
}

bool parseFile(const std::string &path, google::protobuf::Message &message) {
  std::ifstream in(path, std::ios::binary);
  return in && message.ParseFromIstream(&in);
}

// (grpc 1.51 has no public name for a status code)
std::string codeName(grpc::StatusCode code) {
  static const char *names[] = {"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
                                "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
                                "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
                                "UNAUTHENTICATED"};
  return code >= 0 && code <= 16 ? names[code] : std::to_string(code);
}

// The exit status and message of a failed call to the daemons.
int failCall(const std::string &what, const grpc::Status &status) {
  std::string message = what + ": " + codeName(status.error_code()) + ": " + status.error_message();
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE) return fail(message, kUnreachable);
  if (status.error_code() == grpc::StatusCode::UNAUTHENTICATED)
    message += " (set MSJITD_TOKEN_FILE to a file holding the daemon's token)";
  return fail(message, kCompileError);
}

}  // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc), positional;
  std::vector<std::string> addresses = msjit::client::defaultAddresses();
  int timeoutS = 600;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--help" || args[i] == "-h") return std::printf("%s", kUsage), kOk;
    if ((args[i] == "--address" || args[i] == "--timeout-s") && i + 1 < args.size()) {
      if (args[i] == "--address") addresses = msjit::client::splitAddresses(args[++i]);
      else if ((timeoutS = std::atoi(args[++i].c_str())) <= 0) return fail("--timeout-s must be > 0\n" + std::string(kUsage), kBadInput);
    } else if (args[i].rfind("--", 0) == 0) {
      return fail("unknown flag " + args[i] + "\n" + kUsage, kBadInput);
    } else {
      positional.push_back(args[i]);
    }
  }
  if (positional.size() != 3) return fail("expected REQUEST INPUTS OUTPUTS\n" + std::string(kUsage), kBadInput);
  if (addresses.empty()) return fail("--address names no address", kBadInput);
  msjit::rpc::CompileRequest request;
  msjit::rpc::ExecuteRequest inputs;
  if (!parseFile(positional[0], request))
    return fail(positional[0] + " is not a readable serialized msjit.rpc.CompileRequest", kBadInput);
  if (!parseFile(positional[1], inputs))
    return fail(positional[1] + " is not a readable serialized msjit.rpc.ExecuteRequest", kBadInput);

  // The private local daemon takes no credentials; any other address gets those of the environment.
  msjit::client::Credentials credentials;
  if (addresses != std::vector<std::string>{msjit::client::localAddress()}) {
    if (std::string error = msjit::client::Credentials::fromEnvironment(credentials); !error.empty())
      return fail(error, kBadInput);
  }
  msjit::client::FailoverClient client(addresses, credentials);
  msjit::rpc::CompileReply reply;
  std::string artifact, source;
  grpc::Status status = client.compile(request, reply, timeoutS * 1000);
  if (status.error_code() == grpc::StatusCode::INVALID_ARGUMENT) return fail("compile error: " + status.error_message(), kCompileError);
  if (!status.ok()) return failCall("Compile", status);
  status = client.artifact(reply, artifact, &source);
  if (status.error_code() == grpc::StatusCode::NOT_FOUND) {
    // The daemon that compiled it went away between the two calls; the next one compiles it too.
    if (!(status = client.compile(request, reply, timeoutS * 1000)).ok()) return failCall("Compile", status);
    status = client.artifact(reply, artifact, &source);
  }
  if (!status.ok()) return failCall("FetchArtifact", status);

  msrt_executable *exe = nullptr;
  if (msrt_load_bytes(artifact.data(), artifact.size(), reply.artifact_digest().c_str(), &exe) != 0)
    return fail(std::string("loading the artifact failed: ") + msrt_last_error(), kCompileError);
  msjit::rpc::ExecuteReply outputs;
  std::string error;
  msjit::runtime::RunStatus ran = msjit::runtime::runTensors(exe, inputs.inputs(), outputs.mutable_outputs(), &error);
  msrt_unload(exe);
  if (ran == msjit::runtime::RunStatus::kInvalidInput) return fail(positional[1] + ": " + error, kBadInput);
  if (ran != msjit::runtime::RunStatus::kOk) return fail(error, kCompileError);
  std::ofstream out(positional[2], std::ios::binary | std::ios::trunc);
  if (!out || !outputs.SerializeToOstream(&out) || !out.flush())
    return fail("cannot write " + positional[2], kBadInput);
  std::printf("tier=%s compile_ms=%.1f key=%s address=%s artifact=%s\n",
              msjit::rpc::CacheTier_Name(reply.hit()).c_str(), reply.compile_ms(), reply.key().c_str(),
              client.address().c_str(), source.c_str());
  return kOk;
}
