#include "server/cache/cache_key.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "passes/Codegen.h"
#include "passes/Compiler.h"
#include "runtime/artifact_abi.h"
#include "server/cache/digest.h"
#include "spdlog/spdlog.h"

namespace msjit::server {
namespace {

std::string canonicalGraph(const mindir::ModelProto &model) {
  mindir::ModelProto canonical = model;
  canonical.clear_producer_name();
  canonical.clear_producer_version();
  for (auto &node : *canonical.mutable_graph()->mutable_node()) node.clear_location();
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    canonical.SerializeToCodedStream(&coded);
  }
  return bytes;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> cacheKeyComponents(const rpc::CompileRequest &request) {
  const auto &o = request.options();
  const auto &target = passes::hostTarget();
  return {
      {"cache_version", std::to_string(kCacheVersion)},
      {"compiler_version", passes::compilerVersion()},
      {"artifact_abi", std::to_string(MSJIT_ARTIFACT_ABI_VERSION)},
      {"target_triple", target.triple},
      {"target_cpu", target.cpu},
      {"target_features", target.features},
      {"jit_level", o.jit_level()},
      {"backend", o.backend()},
      {"exec_order", o.exec_order()},
      {"disable_format_transform", o.disable_format_transform() ? "1" : "0"},
      {"infer_boost", o.infer_boost()},
      {"graph_sha256", sha256Hex(canonicalGraph(request.model()))},
  };
}

std::string cacheKey(const rpc::CompileRequest &request) {
  std::string text;
  for (const auto &[name, value] : cacheKeyComponents(request)) {
    spdlog::debug("cache key component {}={}", name, value);
    text += name + "=" + value + "\n";
  }
  return sha256Hex(text);
}

}  // namespace msjit::server
